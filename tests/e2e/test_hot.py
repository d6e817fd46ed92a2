# SPDX-License-Identifier: GPL-2.0-only
"""`sonde hot` against the real kernel: a kernel-heavy load must show its
syscall path, agree with perf on the same load, and every output format and
error path must hold."""
import json
import os
import pty
import re
import shutil
import signal
import subprocess
import time
import xml.etree.ElementTree as ET

import pytest

from conftest import (LOAD_COMM, Busy, last_cpu, parse_table, run, rust_build,
                      share)

# Functions of the read/write syscall path that dd bs=1 spends its kernel
# time in (entry, dispatch, VFS, the /dev/zero and /dev/null drivers).
RW_PATH = re.compile(r"^(vfs_read|vfs_write|ksys_read|ksys_write|"
                     r"__x64_sys_read|__x64_sys_write|read_zero|write_null|"
                     r"fdget_pos|__fdget_pos|rw_verify_area|do_syscall_64|"
                     r"entry_SYSCALL_64\w*|syscall_exit_to_user_mode\w*|"
                     r"_copy_to_iter|iov_iter_zero|__check_object_size)(\+|$)")
IDLE_ONLY = re.compile(r"safe_halt|default_idle|cpuidle|do_idle|mwait_idle|"
                       r"poll_idle|acpi_idle")


# The kernel may throttle a sampling event when the machine is loaded
# (perf_cpu_time_max_percent); sonde hot must then say so, and that warning
# is the only stderr output a quiet run may have.
THROTTLED = re.compile(r"^sonde hot: warning: the kernel throttled sampling "
                       r"\d+ times \(kernel\.perf_cpu_time_max_percent\); "
                       r"shares are still comparable, totals are low$")


def unexpected_stderr(stderr):
    return [l for l in stderr.splitlines() if not THROTTLED.match(l)]


def hot(sonde, *args, timeout=60):
    p = run([sonde, "hot"] + list(args), timeout=timeout)
    assert p.returncode == 0, p.stderr
    return p


def test_dd_load_shows_syscall_path(sonde, root, dd_load):
    with Busy() as busy:
        p = hot(sonde, "-d", "2s", "--no-idle")
    header, rows, foot = parse_table(p.stdout)
    assert header == ["Module", "Method", "Calls", "Share"]
    assert foot["samples"] > 300
    # Every row is printed; Calls add up to the sample total and Shares
    # to 100 %.
    assert sum(int(r[2]) for r in rows) == foot["samples"]
    assert abs(sum(share(r[3]) for r in rows) - 100.0) <= 0.01 * len(rows)
    assert abs(sum(share(r[3]) for r in rows) - 100.0) < 0.01 or len(rows) > 1
    # Sorted by Calls, then Module, then Method.
    keys = [(-int(r[2]), r[0], r[1]) for r in rows]
    assert keys == sorted(keys)
    # PC rows are function+0xoffset.
    assert all(re.fullmatch(r"[\w.$]+\+0x[0-9a-f]+|0x[0-9a-f]+", r[1])
               for r in rows), rows
    assert not any(IDLE_ONLY.search(r[1]) for r in rows), rows
    # The read/write path is among the top rows (unless other work
    # crowded the machine).
    busy.skip_if_busy()
    assert foot["idle"] > 0     # CPU 0 idled: --no-idle dropped it
    top = rows[:10]
    assert sum(1 for r in top if RW_PATH.match(r[1])) >= 2, top
    assert unexpected_stderr(p.stderr) == []


def cpu0_idle_ticks():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu0 "):
                v = [int(x) for x in line.split()[1:]]
                return v[3] + v[4], sum(v)   # idle + iowait, total
    return 0, 0


def test_idle_is_included_by_default(sonde, root, dd_load):
    if last_cpu() == 0:
        pytest.skip("one CPU: no CPU is left idle beside the load")
    i0, t0 = cpu0_idle_ticks()
    p = hot(sonde, "-d", "1s", "-f")
    i1, t1 = cpu0_idle_ticks()
    if t1 - t0 and (i1 - i0) / (t1 - t0) < 0.3:
        pytest.skip("CPU 0 was busy with other work: no idle time to see")
    _, rows, foot = parse_table(p.stdout)
    assert foot["idle"] == 0
    # One CPU runs dd, the other idles: the idle loop shows.
    assert any(IDLE_ONLY.search(r[1]) for r in rows), rows


def function_shares(rows):
    out = {}
    for r in rows:
        fn = r[1].split("+0x")[0]
        out[fn] = out.get(fn, 0.0) + share(r[-1])
    return out


def test_function_and_module_aggregation(sonde, root, dd_load):
    # Both runs see only dd, so the other work on the machine does not
    # move the shares.
    pid = str(dd_load.pid)
    with Busy() as busy:
        _, pc_rows, pc_foot = parse_table(
            hot(sonde, "-d", "2s", "-p", pid).stdout)
        _, fn_rows, fn_foot = parse_table(
            hot(sonde, "-d", "2s", "-p", pid, "-f").stdout)
    header, mod_rows, mod_foot = parse_table(
        hot(sonde, "-d", "1s", "--no-idle", "-m").stdout)
    # -f rows are bare function names, one per function.
    names = [r[1] for r in fn_rows]
    assert len(names) == len(set(names))
    assert all("+0x" not in n for n in names)
    assert sum(int(r[2]) for r in fn_rows) == fn_foot["samples"]
    # -m: one row per module, each the core kernel, a module the kernel has
    # loaded (/proc/modules), or BPF programs (others' tracing programs run
    # inside dd's syscalls).
    assert header == ["Module", "Calls", "Share"]
    mods = {r[0]: int(r[1]) for r in mod_rows}
    assert len(mods) == len(mod_rows)
    assert sum(mods.values()) == mod_foot["samples"]
    loaded = set()
    if os.path.exists("/proc/modules"):
        loaded = {l.split()[0] for l in open("/proc/modules")}
    assert set(mods) <= {"kernel", "bpf"} | loaded, mods
    assert mods.get("kernel", 0) >= 0.5 * mod_foot["samples"]
    # Summing the PC rows by function gives the -f shares (two runs of the
    # same steady load: within a few points, unless other work crowded dd
    # off its CPU, which changes where its time goes).
    by_fn = function_shares(pc_rows)
    busy.skip_if_busy()
    for r in fn_rows[:5]:
        if share(r[3]) >= 5:
            assert abs(by_fn.get(r[1], 0) - share(r[3])) < 6, (r, by_fn)


def perf_available():
    return subprocess.run(["perf", "--version"], capture_output=True).returncode == 0


# Without a PMU, a cpu-clock sample is taken when the timer interrupt is
# delivered, so samples that fell in an interrupts-off region pile up where
# interrupts are re-enabled. How many do depends on the timer's phase and
# varies from run to run for perf and sonde alike; the rest of the profile
# is stable. Compare with the pile-up points left out and shares renormalized.
PILE_UP = re.compile(r"irq_enable|irq_restore|_raw_spin_unlock_irq")


def renormalized(shares):
    rest = {k: v for k, v in shares.items() if not PILE_UP.search(k)}
    total = sum(rest.values())
    return {k: 100.0 * v / total for k, v in rest.items()} if total else {}


def perf_vs_sonde(sonde, dd_load, data):
    """One side-by-side run: perf record -a and sonde hot -p on the dd load
    at once. Returns (perf's shares, sonde's, the disagreements), or None
    when the machine was busy with other work."""
    # 3997 Hz and 3331 Hz: ~5000-6000 samples of dd a side keep sampling
    # noise near 1 point. Two samplers at one frequency lock their timers at
    # a fixed phase, so one always samples just after the other's interrupt
    # (the likely cause of read_zero 18 % against 11 % in one run); distinct
    # frequencies let the phase sweep ~2000 times in the 3 s.
    with Busy() as busy:
        rec = run(["perf", "record", "-q", "-a", "-e", "cpu-clock:k", "-F",
                   "3997", "-o", str(data), "--", "sleep", "3"])
        assert rec.returncode == 0, rec.stderr
        p = hot(sonde, "-d", "3s", "-F", "3331", "-f", "-p", str(dd_load.pid),
                "--format", "json")
    if busy.idle < 0.3:
        return None
    rep = run(["perf", "report", "-i", str(data), "--stdio", "--sort", "sym",
               "--no-children", "--comms", LOAD_COMM, "--percentage", "relative",
               "--percent-limit", "0"])
    assert rep.returncode == 0, rep.stderr
    perf_shares = {}
    for line in rep.stdout.splitlines():
        m = re.match(r"^\s+([\d.]+)%\s+\[k\]\s+(\S+)", line)
        if m:
            perf_shares[m.group(2)] = perf_shares.get(m.group(2), 0) + float(m.group(1))
    assert perf_shares, rep.stdout
    doc = json.loads(p.stdout)
    assert doc["samples"] > 2000
    theirs = renormalized(perf_shares)
    ours = renormalized({r["method"]: r["share"] for r in doc["rows"]})
    compared, bad = 0, []
    for a, b in ((theirs, ours), (ours, theirs)):
        for fn, pct in sorted(a.items(), key=lambda kv: -kv[1])[:5]:
            if pct >= 3.0:
                compared += 1
                if abs(b.get(fn, 0.0) - pct) > 5.0:
                    bad.append((fn, pct, b.get(fn)))
    assert compared >= 6, (theirs, ours)
    return theirs, ours, bad


def test_agrees_with_perf(sonde, root, dd_load, tmp_path):
    """The steady dd load profiled by perf record -a + perf report --sort
    sym, then by sonde, both restricted to that dd process's own samples (the idle CPU's
    share depends on which sampler's own work lands there): each side's
    top functions within 5 points on the other. Two samplers on a VM: a
    run that disagrees is measured once more, and the second must agree
    (one full-suite run in about twenty saw a 8 % function on one side
    only; the data of the first run is printed with a failure)."""
    if not perf_available():
        pytest.skip("perf (Debian linux-perf) is not installed")
    runs = []
    for attempt in range(2):
        got = perf_vs_sonde(sonde, dd_load, tmp_path / f"perf{attempt}.data")
        if got is None:
            pytest.skip("the machine was busy with other work: a profile "
                        "comparison needs a steady load")
        runs.append(got)
        if not got[2]:
            return
        top = lambda d: sorted(d.items(), key=lambda kv: -kv[1])[:12]
        print(f"run {attempt + 1} disagrees on {got[2]}\n  perf: "
              f"{top(got[0])}\n  sonde: {top(got[1])}")
    assert not runs[-1][2], runs[-1][2]


def check_json_schema(doc):
    types = {"tool": str, "schema": int, "event": str, "frequency_hz": int,
             "duration_ns": int, "cpus": list, "aggregate": str,
             "samples": int, "dropped_idle": int,
             "dropped_other_processes": int, "lost": int, "throttled": int,
             "unknown": int, "interrupted": bool, "rows": list}
    for k, t in types.items():
        assert isinstance(doc[k], t), (k, doc.get(k))
    assert doc["tool"] == "sonde hot" and doc["schema"] == 1
    assert doc["aggregate"] in ("pc", "function", "module")
    for r in doc["rows"]:
        assert isinstance(r["module"], str) and isinstance(r["calls"], int)
        assert isinstance(r["share"], float)
        assert ("method" in r) == (doc["aggregate"] != "module")
    assert sum(r["calls"] for r in doc["rows"]) == doc["samples"]
    if doc["rows"]:
        assert abs(sum(r["share"] for r in doc["rows"]) - 100) < 0.01 * len(doc["rows"])
    for s in doc.get("stacks", []):
        assert isinstance(s["frames"], list) and s["frames"]
        assert all(isinstance(f, str) for f in s["frames"])
        assert isinstance(s["count"], int) and s["count"] > 0


def test_json_and_folded(sonde, root, dd_load, tmp_path):
    out = tmp_path / "hot.json"
    p = hot(sonde, "-d", "1s", "--no-idle", "--stacks", "--format", "json",
            "-o", str(out))
    assert p.stdout == ""
    doc = json.loads(out.read_text())
    check_json_schema(doc)
    assert doc["frequency_hz"] == 997 and doc["event"] == "cpu-clock"
    assert sum(s["count"] for s in doc["stacks"]) == doc["samples"]

    p = hot(sonde, "-d", "1s", "--no-idle", "--stacks", "--format", "folded")
    total, with_entry = 0, 0
    for line in p.stdout.splitlines():
        m = re.fullmatch(r"(\S.*) (\d+)", line)
        assert m, line
        frames = m.group(1).split(";")
        total += int(m.group(2))
        if any(re.match(r"entry_SYSCALL_64|do_syscall_64", f) for f in frames):
            with_entry += int(m.group(2))
    # dd's kernel time is syscalls: most stacks come through the entry.
    assert total > 200
    assert with_entry > 0.5 * total, (with_entry, total)


def test_svg_flame_graph(sonde, root, dd_load, tmp_path):
    svg = tmp_path / "hot.svg"
    p = hot(sonde, "-d", "2s", "--no-idle", "-f", "--svg", str(svg))
    _, rows, _ = parse_table(p.stdout)
    tree = ET.parse(svg)
    assert tree.getroot().tag == "{http://www.w3.org/2000/svg}svg"
    titles = [t.text for t in tree.getroot().iter("{http://www.w3.org/2000/svg}title")]
    top = rows[0][1]
    assert any(t.startswith(top + " (") for t in titles), (top, titles[:20])
    assert any(t.startswith("all (") for t in titles)
    assert tree.getroot().find("{http://www.w3.org/2000/svg}script") is not None


def test_user_mode_and_pid(sonde, root, dd_load):
    p = hot(sonde, "-d", "2s", "--user", "-p", str(dd_load.pid), "-f")
    _, rows, foot = parse_table(p.stdout)
    mods = {r[0] for r in rows}
    # bpf: other tools' BPF programs run inside dd's syscalls.
    assert mods <= {"kernel", "bpf", "dd", "libc.so.6", "ld-linux-x86-64.so.2",
                    "[vdso]", "[anon]"}, mods
    assert "kernel" in mods
    # dd's user time is in libc's read and write wrappers.
    libc = [r[1] for r in rows if r[0] == "libc.so.6"]
    assert any(re.match(r"(__GI_|__libc_)?(read|write)$", f) for f in libc), rows
    assert foot["other"] > 0

    # With stacks, the user frame comes before (is the caller of) the
    # kernel's syscall entry.
    p = hot(sonde, "-d", "1s", "--user", "-p", str(dd_load.pid), "--stacks",
            "--format", "folded")
    joined = p.stdout
    assert re.search(r"libc\.so\.6`\w+;(\w+;)*entry_SYSCALL_64", joined), joined[:2000]


@pytest.mark.parametrize("scheme", ["legacy", "v0"])
def test_user_rust_names_demangled(sonde, root, tmp_path, scheme):
    """A Rust program (tests/e2e/prof/spin.rs, built now) spinning in
    <spin::Spinner<u64>>::spin: with --user its row's method is the symbol
    nm lists and its demangled name the one llvm-cxxfilt or c++filt print;
    folded stacks show the readable name."""
    exe, sym, want = rust_build(tmp_path, scheme)
    proc = subprocess.Popen([exe, "100000000000"], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.2)
        p = hot(sonde, "-d", "1500ms", "--user", "-p", str(proc.pid), "-f",
                "--format", "json")
        rows = json.loads(p.stdout)["rows"]
        mine = [r for r in rows if r["module"] == "spin"]
        assert mine and mine[0]["method"] == sym, rows
        assert mine[0]["demangled"] == want, rows
        assert mine[0]["calls"] >= 0.8 * sum(r["calls"] for r in rows), rows
        p = hot(sonde, "-d", "1s", "--user", "-p", str(proc.pid), "--stacks",
                "--format", "folded")
        assert re.search(r"(^|;)spin`" + re.escape(want) + r" \d+$",
                         p.stdout, re.M), p.stdout
        assert sym not in p.stdout
    finally:
        proc.kill()
        proc.wait()


def test_cpu_restriction(sonde, root):
    p = hot(sonde, "-d", "500ms", "-C", "0", "--format", "json")
    doc = json.loads(p.stdout)
    assert doc["cpus"] == [0]
    p = hot(sonde, "-d", "500ms", "-C", "0")
    assert parse_table(p.stdout)[2]["cpus"] == 1


def test_ctrl_c_prints_result(sonde, root):
    proc = subprocess.Popen([sonde, "hot", "-d", "30s", "--format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    time.sleep(1.5)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert time.monotonic() - t0 < 2
    assert proc.returncode == 0, err
    doc = json.loads(out)
    assert doc["interrupted"] is True
    assert 1e9 <= doc["duration_ns"] < 5e9
    assert doc["samples"] > 0


def test_progress_only_on_tty(sonde, root):
    master, slave = pty.openpty()
    p = subprocess.Popen([sonde, "hot", "-d", "1s", "-n", "1"],
                         stdout=subprocess.PIPE, stderr=slave, text=True)
    out, _ = p.communicate(timeout=20)
    os.close(slave)
    tty = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        tty += chunk
    os.close(master)
    assert p.returncode == 0
    assert b"elapsed" in tty and b"samples" in tty, tty
    # the line is erased at the end; a throttling warning may follow it
    erased = tty.rindex(b"\r\x1b[K") if b"\r\x1b[K" in tty else -1
    after = tty[erased + 4:].decode(errors="replace")
    assert erased >= 0 and unexpected_stderr(after.replace("\r", "")) == [], \
        tty[-200:]
    assert "elapsed" not in out
    # Without a TTY, stderr stays empty.
    assert unexpected_stderr(hot(sonde, "-d", "500ms").stderr) == []


def kallsyms_code_symbols():
    """Independent count: distinct (address, module) of code symbols."""
    seen = set()
    with open("/proc/kallsyms") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                seen.add((parts[0], parts[3] if len(parts) > 3 else ""))
    return len(seen)


def test_kallsyms_symbol_count(sonde, root):
    """sonde's count of kernel code symbols equals /proc/kallsyms' read
    just before and just after it, within 5. BPF programs loaded and
    unloaded meanwhile (other tests, other users) add and remove [bpf]
    symbols: a run that misses is tried again (up to 5 runs); a wrong
    count misses every time."""
    for attempt in range(5):
        before = kallsyms_code_symbols()
        p = hot(sonde, "-d", "200ms", "-v")
        after = kallsyms_code_symbols()
        m = re.search(r"kallsyms: (\d+) symbols in ([\d.]+) (ms|s)",
                      p.stderr)
        assert m, p.stderr
        n = int(m.group(1))
        if min(before, after) - 5 <= n <= max(before, after) + 5:
            break
    assert min(before, after) - 5 <= n <= max(before, after) + 5, \
        (n, before, after)


def test_hardware_event_without_pmu(sonde, root):
    has_pmu = os.path.exists("/sys/bus/event_source/devices/cpu")
    p = run([sonde, "hot", "-d", "300ms", "-e", "cycles", "-n", "3"])
    if has_pmu:
        assert p.returncode == 0, p.stderr
        assert parse_table(p.stdout)[2]["event"] == "cycles"
    else:
        assert p.returncode == 1
        lines = p.stderr.strip().split("\n")
        assert len(lines) == 1, p.stderr
        assert "cannot open cycles events" in lines[0]
        assert "no hardware PMU" in lines[0]


def test_unprivileged_run_fails_clearly(sonde, root):
    p = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
             "--", sonde, "hot", "-d", "1s"])
    assert p.returncode == 1, (p.stdout, p.stderr)
    lines = p.stderr.strip().split("\n")
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("sonde hot: cannot open cpu-clock events")
    assert "need root or CAP_PERFMON" in lines[0]
    assert "perf_event_paranoid" in lines[0]
    assert p.stdout == ""


def test_kptr_restrict_is_said_plainly(sonde, root):
    path = "/proc/sys/kernel/kptr_restrict"
    old = open(path).read().strip()
    try:
        with open(path, "w") as f:
            f.write("2")
        p = run([sonde, "hot", "-d", "500ms", "-n", "5"])
    finally:
        with open(path, "w") as f:
            f.write(old)
    assert p.returncode == 0, p.stderr
    assert "kernel addresses are hidden by kernel.kptr_restrict" in p.stderr
    _, rows, foot = parse_table(p.stdout)
    assert rows and all(re.fullmatch(r"0x[0-9a-f]+", r[1]) for r in rows)
    assert foot["unknown"] == foot["samples"]


def test_no_such_pid(sonde, root):
    p = run([sonde, "hot", "-d", "1s", "-p", "999999999"])
    assert p.returncode in (1, 2)
    assert p.stderr.startswith("sonde hot: ")


def test_pid_exit_ends_run(sonde, root):
    sleeper = subprocess.Popen(["sleep", "1"])
    t0 = time.monotonic()
    p = hot(sonde, "-d", "20s", "-p", str(sleeper.pid), "--format", "json")
    sleeper.wait()
    assert time.monotonic() - t0 < 5
    assert json.loads(p.stdout)["duration_ns"] < 5e9


@pytest.mark.parametrize("args", [
    ["--user", "--stacks", "--svg", "{tmp}/a.svg", "--format", "json",
     "-o", "{tmp}/a.json"],
    ["--user", "-f", "-n", "2"],
    ["-m"],
    ["--stacks", "--format", "folded"],
    ["-p", "1", "--user"],
    ["-C", "0", "--no-idle"],
])
def test_sanitizers_clean(sonde, root, dd_load, tmp_path, args):
    """The AddressSanitizer/UBSan build of sonde hot runs clean on every
    code path (make test builds it; skipped when run without it)."""
    asan = os.environ.get("SONDE_ASAN")
    if not asan or not os.access(asan, os.X_OK):
        pytest.skip("no sanitizer build (SONDE_ASAN); make test provides one")
    env = dict(os.environ, UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1",
               ASAN_OPTIONS="detect_leaks=1")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    p = run([asan, "hot", "-d", "700ms"] + args, env=env)
    assert p.returncode == 0, p.stderr
    assert "runtime error" not in p.stderr and "Sanitizer" not in p.stderr


# The functions a reader of /proc/kallsyms spends its kernel time in.
KALLSYMS_READER = re.compile(r"^(kallsyms_expand_symbol|s_show|update_iter|"
                             r"s_next|s_start|kallsyms_\w+|get_ksymbol_\w+|"
                             r"seq_read\w*|format_decode|number|vsnprintf|"
                             r"seq_printf|string|pointer)$")


def test_hot_does_not_sample_itself(sonde, root):
    """On one CPU with --no-idle, the table is free of sonde's own work:
    kallsyms is read before the events are enabled (it was read while
    they sampled: 23 of 31 samples were sonde's kallsyms reading), and
    what sonde's threads still do is dropped and counted as `own N`."""
    cpu = str(last_cpu())
    for attempt in range(2):
        p = run(["taskset", "-c", cpu, sonde, "hot", "-C", cpu, "--no-idle",
                 "-f", "-d", "1500ms", "--format", "json"])
        assert p.returncode == 0, p.stderr
        doc = json.loads(p.stdout)
        readers = [r for r in doc["rows"]
                   if KALLSYMS_READER.match(r["method"])]
        # another program reading kallsyms at the same moment: once more
        if not readers:
            break
    assert not readers, doc["rows"][:10]
    assert doc.get("dropped_own", 0) >= 0
    check_json_schema(doc)


def test_user_mode_share_in_footer(sonde, root, dd_load):
    """Without --user the footer says how much of the time was user mode:
    dd's share of user time over the run, as its own /proc/PID/stat
    utime and stime count it (15 points of tolerance: the kernel's tick
    accounting is coarse, and on this VM user-mode timer interrupts can
    be delivered at the next kernel entry, as sonde-hot(1) explains)."""
    def times():
        f = open(f"/proc/{dd_load.pid}/stat").read().rsplit(")", 1)[1].split()
        return int(f[11]), int(f[12])
    u0, s0 = times()
    p = hot(sonde, "-d", "3s", "-p", str(dd_load.pid))
    u1, s1 = times()
    truth = 100.0 * (u1 - u0) / max(1, (u1 - u0) + (s1 - s0))
    m = re.search(r"; user mode ([\d.]+) % \(not shown without --user\)",
                  p.stdout)
    assert m, p.stdout[-300:]
    assert abs(float(m.group(1)) - truth) < 15, (m.group(1), truth)
    p = hot(sonde, "-d", "500ms", "-p", str(dd_load.pid), "--user")
    assert "user mode" not in p.stdout


@pytest.mark.parametrize("args", [
    ["-o", "/nonexistent/x"],
    ["--svg", "/nonexistent/x.svg"],
    ["-o", "/proc/version"],
    ["--format", "json", "-o", "{tmp}"],
])
def test_output_errors_fail_at_once(sonde, root, tmp_path, args):
    """A bad output path fails in under 100 ms with one line and exit 1,
    before any sampling (the run asks for 60 s)."""
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    t0 = time.monotonic()
    p = run([sonde, "hot", "-d", "60s"] + args)
    took = time.monotonic() - t0
    assert p.returncode == 1, p.stderr
    assert took < 0.1, took
    lines = p.stderr.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("sonde hot: cannot write "), \
        p.stderr
    assert p.stdout == ""


def test_full_disk_keeps_the_output(sonde, root, tmp_path):
    """Writing fails at the end (a full 1 MB tmpfs): the output is kept in
    $TMPDIR, named in the one message, and the exit status is 1."""
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs",
            str(mnt)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        with open(mnt / "fill", "wb") as f:
            try:
                f.write(b"\0" * (2 << 20))
            except OSError:
                pass
        keep = tmp_path / "keep"
        keep.mkdir()
        p = run([sonde, "hot", "-d", "500ms", "--stacks", "--format",
                 "folded", "-o", str(mnt / "out.folded")],
                env=dict(os.environ, TMPDIR=str(keep)))
        assert p.returncode == 1, p.stderr
        m = re.fullmatch(r"sonde hot: cannot write \S+/out\.folded: No space "
                         r"left on device; it is in (\S+) instead\n",
                         unexpected_lines(p.stderr))
        assert m, p.stderr
        kept = open(m.group(1)).read().splitlines()
        assert kept and all(re.fullmatch(r"\S.* \d+", l) for l in kept)
        assert os.listdir(mnt) == ["fill"]      # no temporary file left
    finally:
        run(["umount", str(mnt)])


def unexpected_lines(stderr):
    return "".join(l + "\n" for l in unexpected_stderr(stderr))


def test_pprof_output(sonde, root, dd_load, tmp_path):
    """hot --format pprof -o FILE --user --stacks: go tool pprof reads it;
    dd's samples carry its comm, pid and the CPU it is pinned to as
    labels, and its chains run from libc's read/write down into the
    kernel's syscall path."""
    if not shutil.which("go"):
        pytest.skip("go is not installed (scripts/deps.sh installs it)")
    out = str(tmp_path / "hot.pb.gz")
    p = hot(sonde, "-d", "2s", "--user", "--stacks", "-p", str(dd_load.pid),
            "--format", "pprof", "-o", out)
    assert p.stdout == ""
    tags = run(["go", "tool", "pprof", "-tags", "-sample_index=samples",
                "-symbolize=none", out]).stdout
    assert re.search(r"comm: Total ([\d.]+)\n\s+\1 \(\s*100%\): " + LOAD_COMM,
                     tags), tags
    assert re.search(r"cpu: Total ([\d.]+)\n\s+\1 \(\s*100%\): " +
                     str(last_cpu()) + r"\b", tags), tags
    assert re.search(r"pid: Total ([\d.]+)\n\s+\1 \(\s*100%\): " +
                     str(dd_load.pid) + r"\b", tags), tags
    top = run(["go", "tool", "pprof", "-top", "-sample_index=samples",
               "-symbolize=none", out]).stdout
    flat = {m.group(2): int(m.group(1)) for m in
            re.finditer(r"^\s*(\d+)\s+\S+\s+\S+\s+\d+\s+\S+\s+(.+)$", top,
                        re.M)}
    assert any(RW_PATH.match(f) for f in flat), top
    traces = run(["go", "tool", "pprof", "-traces", "-symbolize=none",
                  out]).stdout
    assert re.search(r"(fdget_pos|vfs_read|vfs_write|read_zero|"
                     r"entry_SYSCALL_64\w*)\n(\s+\S+\n)*?\s+(__GI_|__libc_)?"
                     r"(read|write)\n", traces), traces[:3000]
