#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run every sonde test and print one summary line.

The cmocka unit tests (every test() in the meson build, run with TAP
output; the sanitizer build's with UBSan fatal), a short deterministic run
of every libFuzzer target (tests/fuzz) over its seeds, and the pytest
end-to-end suite (tests/e2e, the real binary against the real kernel) and
the tests of DTrace's own suite that `sonde dtrace` passes
(tests/dtrace-suite.pass, run by the suite's run.sh) are counted together; the last line printed is `N passed, N failed` with
`, N skipped` when some were skipped.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAP_LINE = re.compile(r"^(not ok|ok)\s+(\d+)\s*(?:-\s*)?(#\s*SKIP\b)?\s*(.*)$")


def unit_tests(build):
    out = subprocess.run(["meson", "introspect", "--tests", build],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


# A sanitizer report ends the process: UBSan alone would print and go on.
SANITIZE_ENV = {"UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}


def run_unit(test, counts, verbose, label="unit"):
    """Run one cmocka binary; every TAP line is one test."""
    env = dict(os.environ, CMOCKA_MESSAGE_OUTPUT="TAP", **SANITIZE_ENV)
    env.update(test.get("env") or {})
    try:
        p = subprocess.run(test["cmd"], capture_output=True, text=True,
                           env=env, cwd=test.get("workdir") or ROOT,
                           timeout=test.get("timeout") or 120)
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out, err, rc = (e.stdout or b"").decode(errors="replace"), "", "timeout"
    planned, seen, failed = None, 0, []
    for line in out.splitlines():
        m = re.match(r"^1\.\.(\d+)", line)
        if m:
            planned = int(m.group(1))
            continue
        m = TAP_LINE.match(line)
        if not m:
            continue
        seen += 1
        name = f"{label}:{test['name']}:{m.group(4).strip()}"
        if m.group(3):
            counts["skipped"] += 1
            counts["skips"].append(name)
        elif m.group(1) == "ok":
            counts["passed"] += 1
        else:
            counts["failed"] += 1
            failed.append(name)
    # A crash loses the rest of the plan: every missing test failed.
    missing = (planned or 1) - seen
    if missing > 0 or (rc not in (0, 1) and not failed):
        n = max(missing, 1)
        counts["failed"] += n
        failed.append(f"{test['name']}: exited with {rc}, {n} test(s) "
                      f"did not report")
    if failed or verbose:
        sys.stdout.write(out)
        if failed:
            sys.stdout.write(err)
    for f in failed:
        counts["failures"].append(f)
    status = "FAIL" if failed else "ok"
    print(f"{label:<10} {test['name']:<22} {status} ({seen} tests)")


# Each libFuzzer target and the seeds it starts from (those that exist).
FUZZ_SEEDS = {
    "fuzz_dtrace": ["tests/dtrace"],
    "fuzz_kptrace": ["../shared/corpus/linux-reports/syzkaller",
                     "../shared/corpus/macos-panics", "tests/fuzz/seeds/kptrace"],
    "fuzz_kdump": ["tests/fuzz/seeds/kdump"],
}
FUZZ_RUNS = 20000


def run_fuzz(build, counts, verbose):
    """A fixed-seed libFuzzer run of every target: any crash, sanitizer
    report or leak fails it. New inputs go to a temporary directory,
    never into the seed folders."""
    for name, seeds in FUZZ_SEEDS.items():
        exe = os.path.join(build, "tests/unit", name)
        label = f"fuzz:{name}"
        if not os.path.exists(exe):
            counts["skipped"] += 1
            counts["skips"].append(f"{label}: not built (needs clang with "
                                   "-fsanitize=fuzzer)")
            print(f"{'fuzz':<10} {name:<22} skipped")
            continue
        dirs = [d for d in (os.path.join(ROOT, s) for s in seeds)
                if os.path.isdir(d) and glob.glob(os.path.join(d, "*"))]
        with tempfile.TemporaryDirectory(prefix="sonde-fuzz-") as tmp:
            cmd = [exe, "-seed=1", f"-runs={FUZZ_RUNS}",
                   "-max_total_time=120", "-close_fd_mask=3",
                   "-timeout=10", "-rss_limit_mb=2048",
                   f"-artifact_prefix={tmp}/", tmp] + dirs
            env = dict(os.environ, **SANITIZE_ENV)
            p = subprocess.run(cmd, capture_output=True, text=True,
                               cwd=ROOT, env=env, errors="replace")
        ok = p.returncode == 0
        if ok:
            counts["passed"] += 1
        else:
            counts["failed"] += 1
            counts["failures"].append(f"{label}: exited with "
                                      f"{p.returncode}")
        if not ok or verbose:
            sys.stdout.write(p.stderr[-6000:])
        done = re.findall(r"Done (\d+) runs", p.stderr)
        print(f"{'fuzz':<10} {name:<22} {'ok' if ok else 'FAIL'} "
              f"({done[-1] if done else '?'} runs)")


def run_e2e(build, counts, extra, asan=None):
    xml_path = os.path.join(build, "e2e-junit.xml")
    if os.path.exists(xml_path):
        os.unlink(xml_path)
    env = dict(os.environ, SONDE=os.path.join(os.path.abspath(build), "sonde"),
               SONDE_BUILD=os.path.abspath(build))
    env.update(SANITIZE_ENV)
    if asan:
        env["SONDE_ASAN"] = os.path.join(os.path.abspath(asan), "sonde")
    # Test files or node ids among the arguments narrow the run to them;
    # otherwise every e2e test runs.
    named = [a for a in extra if not a.startswith("-") and
             os.path.exists(a.split("::")[0])]
    cmd = ["/usr/bin/python3", "-m", "pytest"]
    if not named:
        cmd.append(os.path.join(ROOT, "tests/e2e"))
    cmd += ["-q", "-rfEs", "-p", "no:cacheprovider", f"--junitxml={xml_path}"]
    cmd += [os.path.abspath(a) if a in named else a for a in extra]
    subprocess.run(cmd, cwd=ROOT, env=env)
    if not os.path.exists(xml_path):
        counts["failed"] += 1
        counts["failures"].append("e2e: pytest produced no results")
        return
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            counts["failed"] += 1
            counts["failures"].append(name)
        elif case.find("skipped") is not None:
            counts["skipped"] += 1
            msg = case.find("skipped").get("message", "")
            counts["skips"].append(f"{name}: {msg}")
        else:
            counts["passed"] += 1


# DTrace's own unit tests (dtrace-utils' test/unittest with the runner that
# judges them as its runtest.sh does) live outside the tree: DTRACE_SUITE or
# ../shared/dtrace-suite next to the checkout.
PASS_LIST = os.path.join(ROOT, "tests", "dtrace-suite.pass")


def dtrace_suite_dir():
    for d in (os.environ.get("DTRACE_SUITE"),
              os.path.join(ROOT, "..", "shared", "dtrace-suite"),
              "/work/shared/dtrace-suite"):
        if d and os.path.exists(os.path.join(d, "run.sh")):
            return os.path.abspath(d)
    return None


def pass_list():
    if not os.path.exists(PASS_LIST):
        return []
    with open(PASS_LIST) as f:
        return [l.strip() for l in f
                if l.strip() and not l.startswith("#")]


def run_dtrace_suite(build, counts, verbose, jobs=None):
    """Every test of tests/dtrace-suite.pass through the suite's run.sh,
    split across the CPUs (one run.sh each, its own copy of the suite):
    a listed test that does not pass (PASS or XPASS) is a failure."""
    label = "dtrace-suite"
    tests = pass_list()
    suite = dtrace_suite_dir()
    why = None
    if suite is None:
        why = ("DTrace's suite not found (set DTRACE_SUITE to a copy of "
               "shared/dtrace-suite)")
    elif os.geteuid() != 0:
        why = "needs root: the suite's tests trace the real kernel"
    elif subprocess.run(["sh", "-c", "command -v gawk bc gcc"],
                        capture_output=True).returncode:
        why = "run.sh needs gawk, bc and gcc"
    if why:
        counts["skipped"] += len(tests)
        counts["skips"].append(f"{label}: {len(tests)} tests: {why}")
        print(f"{label:<10} {'pass list':<22} skipped ({why})")
        return
    sonde = os.path.join(os.path.abspath(build), "sonde")
    jobs = jobs or max(1, min(len(os.sched_getaffinity(0)), 4))
    chunks = [tests[i::jobs] for i in range(jobs)]
    # DTrace's tests probe system calls system-wide and expect a live
    # system: 'write:entry { exit(0); }' waits for anyone's write(), and
    # on an idle VM nobody may write for the 15 s a test has. A process
    # writing to /dev/null five times a second stands in for the rest of
    # a real machine while the list runs.
    writer = subprocess.Popen(
        ["sh", "-c", "while :; do echo . >/dev/null; sleep 0.2; done"],
        start_new_session=True)
    try:
        run_dtrace_chunks(suite, sonde, chunks, tests, counts, verbose,
                          label)
    finally:
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait()


def run_sh_work(pid, timeout=30):
    """The work directory of a starting run.sh (pid), or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            return None
        m = re.fullmatch(r"(/tmp/dtrace-suite\.[A-Za-z0-9]{6})/suite", cwd)
        if m:
            return m.group(1)
        time.sleep(0.01)
    return None


def run_dtrace_chunks(suite, sonde, chunks, tests, counts, verbose, label):
    with tempfile.TemporaryDirectory(prefix="sonde-dtsuite-") as tmp:
        procs = []
        for i, chunk in enumerate(chunks):
            res = os.path.join(tmp, f"r{i}.tsv")
            log = open(os.path.join(tmp, f"r{i}.log"), "w")
            # one CPU spinner is enough for the tick-N tests (run.sh's
            # BUSY): the first runner starts it
            env = dict(os.environ, RESULTS=res, BUSY="1" if i == 0 else "0")
            procs.append((subprocess.Popen(
                [os.path.join(suite, "run.sh"), sonde] + chunk, env=env,
                stdout=log, stderr=subprocess.STDOUT, cwd=tmp,
                start_new_session=True), res, log))
        # run.sh works in a /tmp/dtrace-suite.XXXXXX of its own (its cwd
        # is WORK/suite) and leaves it: removed here once it has ended
        works = [run_sh_work(p.pid) for p, _, _ in procs]
        seen = {}
        # run.sh can hang (bash waiting for a child already gone, seen
        # once in a whole-suite run): what has not ended in 10 minutes is
        # killed, and its tests that did not report fail
        deadline = time.monotonic() + 600
        for p, res, log in procs:
            try:
                p.wait(timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            log.close()
            if os.path.exists(res):
                for line in open(res):
                    f = line.rstrip("\n").split("\t")
                    if len(f) >= 2:
                        seen[f[0]] = f
        for w in works:
            if w:
                shutil.rmtree(w, ignore_errors=True)
        if verbose:
            for i in range(len(procs)):
                sys.stdout.write(open(os.path.join(tmp, f"r{i}.log")).read())
    failed = 0
    for t in tests:
        f = seen.get(t)
        if f and f[1] in ("PASS", "XPASS"):
            counts["passed"] += 1
            continue
        failed += 1
        counts["failed"] += 1
        counts["failures"].append(
            f"{label}:{t}: " + (f"{f[1]} {f[4] if len(f) > 4 else ''}"
                               if f else "did not run"))
    print(f"{label:<10} {'pass list':<22} {'FAIL' if failed else 'ok'} "
          f"({len(tests)} tests)")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--asan-build",
                    help="a -Db_sanitize=address,undefined build: its unit "
                         "tests run too, and e2e smoke runs use its binary")
    ap.add_argument("--fuzz-build",
                    help="a clang sanitizer build holding the libFuzzer "
                         "targets: each runs briefly over its seeds")
    ap.add_argument("--unit-only", action="store_true")
    ap.add_argument("--e2e-only", action="store_true")
    ap.add_argument("--dtrace-suite-only", action="store_true",
                    help="only the tests of DTrace's suite in "
                         "tests/dtrace-suite.pass")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("pytest_args", nargs="*",
                    help="passed to pytest (e.g. -k hot)")
    a = ap.parse_args()
    counts = {"passed": 0, "failed": 0, "skipped": 0, "failures": [],
              "skips": []}
    if a.dtrace_suite_only:
        a.unit_only = a.e2e_only = True
    if not a.e2e_only:
        for t in unit_tests(a.build):
            run_unit(t, counts, a.verbose)
        if a.asan_build:
            for t in unit_tests(a.asan_build):
                run_unit(t, counts, a.verbose, label="unit-asan")
        if a.fuzz_build:
            run_fuzz(a.fuzz_build, counts, a.verbose)
    if not a.unit_only:
        run_e2e(a.build, counts, a.pytest_args, a.asan_build)
    # the pass list runs with the whole e2e suite (not when e2e files are
    # named)
    named = [x for x in a.pytest_args if not x.startswith("-")]
    if a.dtrace_suite_only or (not a.unit_only and not named):
        run_dtrace_suite(a.build, counts, a.verbose)
    if counts["skips"]:
        print("\nskipped:")
        for s in counts["skips"]:
            print(f"  {s}")
    if counts["failures"]:
        print("\nfailed:")
        for f in counts["failures"]:
            print(f"  {f}")
    line = f"{counts['passed']} passed, {counts['failed']} failed"
    if counts["skipped"]:
        line += f", {counts['skipped']} skipped"
    print(line)
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
