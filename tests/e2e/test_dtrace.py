# SPDX-License-Identifier: GPL-2.0-only
"""`sonde dtrace` against the real kernel: the D conformance suite in
tests/dtrace (scripts with expected outputs written from DTrace's documented
behaviour), and the behaviours that need an outside oracle: syscall counts
against strace, the probe list against the kernel's syscall table, timer
rates against the clock, Ctrl-C, -c/-p, the command line."""
import os
import re
import shlex
import signal
import subprocess
import time

import pytest

from conftest import ROOT, run, rust_build, rust_oracle, rustc_or_skip

SUITE = os.path.join(ROOT, "tests", "dtrace")
SCRIPTS = sorted(f[:-2] for f in os.listdir(SUITE) if f.endswith(".d"))


@pytest.fixture(scope="session")
def fixture_bin(tmp_path_factory):
    """tests/dtrace/fixture.c, built once."""
    out = tmp_path_factory.mktemp("dtrace") / "fixture"
    p = run(["cc", "-O1", "-pthread", "-o", str(out),
             os.path.join(SUITE, "fixture.c")])
    assert p.returncode == 0, p.stderr
    return str(out)


def directives(path):
    d = {"ARGS": "", "MACROS": "", "STATUS": "0", "CMD": ""}
    with open(path) as f:
        for line in f.read().split("\n")[:8]:
            m = re.match(r"^/\*\s*([A-Z]+):\s*(.*?)\s*\*/$", line)
            if m and m.group(1) in d:
                d[m.group(1)] = m.group(2)
    return d


def dtrace(sonde, *args, timeout=60, **kw):
    return run([sonde, "dtrace"] + list(args), timeout=timeout, **kw)


@pytest.mark.parametrize("name", SCRIPTS)
def test_conformance(sonde, root, fixture_bin, ufixture_bin, name):
    d = directives(os.path.join(SUITE, name + ".d"))
    cmd = ["taskset", "-c", "0", sonde, "dtrace"] + shlex.split(d["ARGS"])
    if d["CMD"]:
        words = shlex.split(d["CMD"])
        words[0] = {"fixture": fixture_bin,
                    "ufixture": ufixture_bin}.get(words[0], words[0])
        cmd += ["-c", " ".join(shlex.quote(w) for w in words)]
    cmd += ["-s", name + ".d"] + shlex.split(d["MACROS"])
    p = subprocess.run(cmd, cwd=SUITE, capture_output=True, text=True,
                       timeout=60)
    with open(os.path.join(SUITE, name + ".out")) as f:
        want_out = f.read()
    err_path = os.path.join(SUITE, name + ".err")
    want_err = open(err_path).read() if os.path.exists(err_path) else ""
    got_err = re.sub(r"at BPF pc \d+", "at BPF pc N", p.stderr)
    assert p.returncode == int(d["STATUS"]), p.stderr
    assert p.stdout == want_out
    assert got_err == want_err


# ---- syscalls against strace ----

def strace_counts(cmd):
    """Syscall counts of cmd from strace -c (the oracle)."""
    p = run(["strace", "-f", "-c", "-U", "name,calls", "-o", "/dev/stderr"]
            + cmd)
    counts = {}
    for line in p.stderr.splitlines():
        m = re.match(r"^\s*(\w+)\s+(\d+)\s*$", line)
        if m and m.group(1) not in ("syscall", "total"):
            counts[m.group(1)] = int(m.group(2))
    return counts


def test_syscall_counts_match_strace(sonde, root, fixture_bin):
    cmd = [fixture_bin, "getppid", "37"]
    want = strace_counts(cmd)
    p = dtrace(sonde, "-q", "-x", "evaltime=exec", "-c", " ".join(cmd),
               "-n",
               "syscall:::entry /pid == $target/ { @[probefunc] = count(); }"
               " END { printa(\"%s %@d\\n\", @); }")
    assert p.returncode == 0, p.stderr
    got = {}
    for line in p.stdout.splitlines():
        if line.strip():
            name, n = line.split()
            got[name] = int(n)
    assert got["getppid"] == 37
    # -x evaltime=exec: -c's command is released before its exec after
    # tracing starts: its execve is the first call both see. strace -c counts a call when it returns, so it
    # never counts exit_group.
    assert got.pop("exit_group") == 1
    assert got == want


def test_syscall_return_errno(sonde, root, fixture_bin):
    p = dtrace(sonde, "-q", "-c", fixture_bin + " open /nonexistent/x "
               "/etc/hostname", "-n",
               "syscall::openat:return /pid == $target/ "
               "{ @[errno] = count(); }")
    assert p.returncode == 0, p.stderr
    lines = [l.split() for l in p.stdout.splitlines() if l.strip()]
    errnos = {int(k): int(v) for k, v in lines}
    assert errnos.get(2) == 1          # ENOENT for /nonexistent/x
    assert errnos.get(0, 0) >= 1       # /etc/hostname and the libraries


def check_badopen_faults(p, action):
    """The fixture's `badopen` run: openat(NULL) and openat(16) each fault
    with an invalid-address error naming the address (in dtrace-utils'
    words, which do not name the action), the good path still prints
    before END's "end"."""
    assert p.returncode == 0, p.stderr
    errs = p.stderr.splitlines()
    pat = (r"dtrace: error in dt_clause_0 for probe ID \d+ \("
           r"syscall:vmlinux:openat:entry\): invalid address \(%s\) "
           r"at BPF pc \d+$")
    assert len(errs) == 2, p.stderr
    assert re.match(pat % "0x0", errs[0]), errs[0]
    assert re.match(pat % "0x10", errs[1]), errs[1]
    out = p.stdout.splitlines()
    assert "/etc/hostname" in out
    assert out.index("/etc/hostname") < out.index("end")


def test_bad_address_faults_and_the_run_goes_on(sonde, root, fixture_bin):
    """copyinstr() of NULL and of address 16 in a syscall probe: DTrace's
    error lines with the address and the probe, the later openat() still
    traced, END still run."""
    p = dtrace(sonde, "-q", "-c", fixture_bin + " badopen /etc/hostname",
               "-n", "syscall::openat:entry /pid == $target/ "
               "{ printf(\"%s\\n\", copyinstr(arg1)); }",
               "-n", "END { printf(\"end\\n\"); }")
    check_badopen_faults(p, action=1)


def test_copyinto_bad_user_address_faults(sonde, root, fixture_bin):
    """copyinto() of the fixture's openat(NULL) and openat(16) paths: an
    invalid-address fault naming each address, the clause's record
    dropped; the good path is copied and END runs."""
    p = dtrace(sonde, "-q", "-c", fixture_bin + " badopen /etc/hostname",
               "-n", "syscall::openat:entry /pid == $target/ "
               "{ this->p = (char *)alloca(16); copyinto(arg1, 14, this->p); "
               "printf(\"%s\\n\", stringof(this->p)); }",
               "-n", "END { printf(\"end\\n\"); }")
    check_badopen_faults(p, action=2)


def check_begin_faults(p, want):
    """p's standard error: one fault per (clause, action, value) of want,
    in order, each in a BEGIN clause: an invalid-address fault naming the
    address, or with value ("size", n) an invalid-size fault naming n."""
    errs = p.stderr.splitlines()
    assert len(errs) == len(want), p.stderr
    for line, (clause, action, val) in zip(errs, want):
        what = "size" if isinstance(val, tuple) else "address"
        val = val[1] if isinstance(val, tuple) else val
        assert re.match(r"dtrace: error in dt_clause_%d for probe ID 1 "
                        r"\(dtrace:::BEGIN\): invalid %s \(0x%x\) "
                        r"at BPF pc \d+$"
                        % (clause - 1, what, val), line), line


def test_bcopy_outside_alloca_memory_faults(sonde, root):
    """bcopy() and copyinto() write only into the bytes alloca() handed
    out in the clause, checked as dtrace-utils checks them: a destination
    before them or through a pointer kept from another clause is an
    invalid address, named (the address alloca() returned, printed by the
    clause before, plus the offset); bytes running past their end, or a
    size larger than scratchsize less 8, an invalid size, named (DTrace's
    suite: funcs/alloca/err.alloca-bcopy-crossing-top, bcopy/err.badbcopy7,
    copyinto/err.badsize)."""
    script = r"""
        BEGIN { p = (char *)alloca(8); printf("%d\n", (uint64_t)p); }
        BEGIN { bcopy("abc", p, 4); }
        BEGIN { p = (char *)alloca(8); bcopy("abcdefghijk", p, 9); }
        BEGIN { p = (char *)alloca(8); bcopy("abcdefghijk", p + 6, 3); }
        BEGIN { p = (char *)alloca(8); bcopy("abc", p - 8, 1); }
        BEGIN { p = (char *)alloca(8); n = 300; copyinto(0, n, p); }
        BEGIN { p = (char *)alloca(8); bcopy("abcdefgh", p, 8);
                printf("%s\n", stringof(p)); exit(0); }
        END { printf("end\n"); }
    """
    p = dtrace(sonde, "-q", "-n", script)
    assert p.returncode == 0, p.stderr
    out = p.stdout.split()
    assert out[1:] == ["abcdefgh", "end"], p.stdout
    base = int(out[0]) % (1 << 64)
    check_begin_faults(p, [(2, 1, base), (3, 2, ("size", 9)),
                           (4, 2, ("size", 3)), (5, 2, base - 8),
                           (6, 3, ("size", 300))])


def test_inet_ntoa6_matches_python(sonde, root):
    """inet_ntoa6() of addresses with zero words in every place (the
    longest run, the first of equal ones, becomes "::"; a single zero word
    stays "0") writes what Python's ipaddress writes (RFC 5952). The
    addresses keep one of their first five words non-zero: IPv4 in IPv6
    is DTrace's own rule (the suite's tst.inet_ntoa6* check it)."""
    import ipaddress
    import random
    rnd = random.Random(14)
    addrs = []
    for i in range(16):  # a clause each: 16 fit in one BEGIN program
        words = [rnd.choice([0, 0, 0, 1, 0xffff, rnd.randrange(1 << 16)])
                 for _ in range(8)]
        if not any(words[:5]):
            words[rnd.randrange(5)] = rnd.randrange(1, 1 << 16)
        addrs.append(b"".join(w.to_bytes(2, "big") for w in words))
    lines = []
    for a in addrs:
        lines += ["BEGIN {", "this->a = (char *)alloca(16);"]
        lines += ["*(uint64_t *)(this->a + %d) = 0x%xULL;" %
                  (i, int.from_bytes(a[i:i + 8], "little")) for i in (0, 8)]
        lines.append('printf("%s\\n", '
                     "inet_ntoa6((struct in6_addr *)this->a)); }")
    lines += ["BEGIN { exit(0); }"]
    p = dtrace(sonde, "-q", "-n", "\n".join(lines))
    assert p.returncode == 0, p.stderr
    want = [str(ipaddress.IPv6Address(a)) for a in addrs]
    # (dtrace's closing newline last)
    assert p.stdout.split("\n") == want + ["", ""]


def test_printf_T_is_rfc822_time(sonde, root):
    """printf's %T writes a walltimestamp-like value (ns) as RFC 822 time
    in the local zone; the text is the one DTrace's own suite expects
    (printa/tst.walltimestamp.r) for the same instant and zone."""
    p = dtrace(sonde, "-q", "-n", 'BEGIN { t = (int64_t)1075064400; '
               'printf("%T|%Y\\n", t * 1000000000, t * 1000000000); '
               'exit(0); }', env=dict(os.environ, TZ="US/Pacific"))
    assert p.returncode == 0, p.stderr
    assert p.stdout == ("Sun, 25 Jan 2004 13:00:00 PST|"
                        "2004 Jan 25 13:00:00\n\n")


def test_store_outside_alloca_memory_faults(sonde, root):
    """*p = x writes only into the bytes alloca() handed out in the clause
    (8 at a time): past them, before them, through a pointer kept from
    another clause, the invalid-address fault names p, which is the
    address alloca() returned (printed by the first clause) plus the
    offset; straddling their end, an invalid-size fault names the size
    (dtrace-utils' access check); a store inside them lands."""
    script = r"""
        BEGIN { p = (int *)alloca(4); printf("%d\n", (uint64_t)p); }
        BEGIN { *p = 1; }
        BEGIN { p = (int *)alloca(4); *(p + 2) = 1; }
        BEGIN { p = (int *)alloca(8); l = (long *)(p + 1); *l = 1; }
        BEGIN { p = (int *)alloca(8); *(p - 1) += 1; }
        BEGIN { p = (int *)alloca(4); *(p + 1) = 9;
                printf("%d\n", *(p + 1)); exit(0); }
        END { printf("end\n"); }
    """
    p = dtrace(sonde, "-q", "-n", script)
    assert p.returncode == 0, p.stderr
    out = p.stdout.split()
    assert out[1:] == ["9", "end"], p.stdout
    base = int(out[0]) % (1 << 64)
    check_begin_faults(p, [(2, 1, base), (3, 2, base + 8),
                           (4, 3, ("size", 8)), (5, 2, base - 4)])


def test_raise_signals_the_process_that_fired(sonde, root, fixture_bin):
    """raise(9) at the first getppid() of a process that would make 50:
    it dies there (the count says one call), and sonde's -c wait sees it
    killed."""
    p = dtrace(sonde, "-q", "-w", "-c", fixture_bin + " getppid 50", "-n",
               "syscall::getppid:entry /pid == $target/ "
               "{ @ = count(); raise(9); }")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["1"]


def test_stop_stops_the_process(sonde, root, fixture_bin):
    """stop() leaves the process that fired in state T (stopped), as
    /proc says; it goes on after SIGCONT."""
    child = subprocess.Popen([fixture_bin, "sleep", "1500"])
    try:
        time.sleep(0.2)
        p = dtrace(sonde, "-q", "-w", "-p", str(child.pid), "-n",
                   "syscall::clock_nanosleep:return,syscall::nanosleep:return"
                   " /pid == $target/ { stop(); exit(0); }")
        assert p.returncode == 0, p.stderr
        with open("/proc/%d/stat" % child.pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        assert state == "T"
        os.kill(child.pid, signal.SIGCONT)
        assert child.wait(timeout=10) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_begin_system_is_traced(sonde, tmp_path):
    """As in DTrace, every probe is on before BEGIN's actions run: the
    command BEGIN's system() starts is seen by the script's other probes
    (DTrace's tst.args-match-argN relies on it; sonde used to enable them
    after consuming BEGIN, so the write below went unseen)."""
    mark = tmp_path / "mark"
    p = dtrace(sonde, "-w", "-q", "-n",
               f'BEGIN {{ system("exec /bin/touch {mark}"); }} '
               'syscall::openat:entry, syscall::utimensat:entry '
               '/execname == "touch"/ { printf("%s seen\\n", probefunc); '
               'exit(0); }', timeout=20)
    assert p.returncode == 0, p.stderr
    assert mark.exists()
    assert " seen" in p.stdout, (p.stdout, p.stderr)


def test_destructive_actions_need_w(sonde, tmp_path):
    """dtrace(1) refuses destructive actions when it enables tracing
    (after "matched", in its words); a later #pragma D option destructive
    allows them."""
    for act in ("raise(9)", "stop()", "system(\"true\")", "chill(1)"):
        p = dtrace(sonde, "-n", "BEGIN { %s; }" % act)
        assert p.returncode == 1
        assert p.stderr == ("dtrace: description 'BEGIN ' matched 1 probe\n"
                            "dtrace: could not enable tracing: Destructive "
                            "actions not allowed\n")
        assert p.stdout == ""
    d = tmp_path / "late.d"
    d.write_text("BEGIN { chill(1); exit(0); }\n"
                 "#pragma D option destructive\n")
    p = dtrace(sonde, "-q", "-s", str(d))
    assert p.returncode == 0, p.stderr


def kernel_syscalls():
    names = {}
    with open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h") as f:
        for line in f:
            m = re.match(r"#define __NR_(\w+)\s+(\d+)", line)
            if m:
                names[m.group(1)] = int(m.group(2))
    return names


def test_list_matches_kernel_syscall_table(sonde):
    if os.uname().machine != "x86_64":
        pytest.skip("the oracle is the x86_64 UAPI header")
    p = dtrace(sonde, "-l", "-P", "syscall")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "%5s %10s %17s %33s %s" % (
        "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME")
    funcs = {}
    for l in lines[1:]:
        f = l.split()
        assert f[1] == "syscall" and f[2] == "vmlinux"
        funcs.setdefault(f[3], set()).add(f[4])
    want = kernel_syscalls()
    assert set(funcs) == set(want)
    assert all(v == {"entry", "return"} for v in funcs.values())


def test_list_globs_and_dtrace_provider(sonde):
    p = dtrace(sonde, "-l", "-n", "dtrace:::")
    assert p.stdout.splitlines()[1:] == [
        "%5d %10s %17s %33s %s" % (i + 1, "dtrace", "", "", n)
        for i, n in enumerate(["BEGIN", "END", "ERROR"])]
    p = dtrace(sonde, "-l", "-n", "syscall::read?:entry")
    assert [l.split()[3] for l in p.stdout.splitlines()[1:]] == ["readv"]
    # as dtrace(1)'s list_stmt: each description that matches nothing is
    # reported, the others still listed, and the status is 0
    p = dtrace(sonde, "-l", "-n", "syscall::nosuch:entry", "-n", "BEGIN")
    assert p.returncode == 0
    assert p.stderr == ("dtrace: failed to match syscall::nosuch:entry: "
                        "No probe matches description\n")
    assert p.stdout.splitlines()[1].split() == ["1", "dtrace", "BEGIN"]


def test_description_matched_count(sonde, root):
    p = dtrace(sonde, "-n", "syscall:::entry { } tick-1ms { exit(0); }")
    assert p.returncode == 0, p.stderr
    n = len(kernel_syscalls()) + 1 if os.uname().machine == "x86_64" \
        else None
    m = re.match(r"^dtrace: description 'syscall:::entry ' matched (\d+) "
                 r"probes\n", p.stderr)
    assert m, p.stderr
    if n:
        assert int(m.group(1)) == n


# ---- profile ----

def test_tick_rate_and_cpu0(sonde, root):
    t0 = time.monotonic()
    p = dtrace(sonde, "-q", "-n", "tick-20ms { n++; @c[cpu] = count(); } "
               "tick-1s { printf(\"%d\\n\", n); exit(0); }")
    elapsed = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    n = int(lines[0])
    # 50 per second; the first tick-1s ends the run after about a second
    assert 35 <= n <= 55, n
    assert elapsed < 3
    # tick fires on CPU 0 only
    assert [l.split()[0] for l in lines[1:]] == ["0"]


def test_profile_fires_on_every_cpu(sonde, root, fixture_bin):
    ncpu = os.cpu_count()
    # keep every CPU busy so that none idles
    loads = [subprocess.Popen(["taskset", "-c", str(c), "sh", "-c",
                               "while :; do :; done"]) for c in range(ncpu)]
    try:
        p = dtrace(sonde, "-q", "-n", "profile-199 { @[cpu] = count(); "
                   "@m[arg0 != 0 ? \"k\" : \"u\"] = count(); } "
                   "tick-1s { exit(0); }")
    finally:
        for l in loads:
            l.kill()
            l.wait()
    assert p.returncode == 0, p.stderr
    rows = [l.split() for l in p.stdout.splitlines() if l.strip()]
    cpus = {int(r[0]): int(r[1]) for r in rows if r[0].isdigit()}
    assert set(cpus) == set(range(ncpu))
    for c, n in cpus.items():
        assert n > 60, (c, n)     # ~199 a second; shared CPUs lose some
    modes = {r[0]: int(r[1]) for r in rows if not r[0].isdigit()}
    assert modes.get("u", 0) > 0   # the shell loops run in user mode


def test_profile_user_pc_is_in_the_programs_text(sonde, root):
    """arg1 of a sample in user mode is a PC in an executable mapping of
    the process, as /proc/PID/maps (the oracle) says."""
    busy = subprocess.Popen(["taskset", "-c", "0", "sh", "-c",
                             "while :; do :; done"])
    try:
        time.sleep(0.1)
        p = dtrace(sonde, "-q", "-n", "profile-499 /pid == %d && arg1/ "
                   "{ @[arg1] = count(); } tick-1s { exit(0); } END "
                   "{ printa(\"%%x %%@d\\n\", @); }" % busy.pid)
        maps = open(f"/proc/{busy.pid}/maps").read().splitlines()
    finally:
        busy.kill()
        busy.wait()
    assert p.returncode == 0, p.stderr
    text = []
    for m in maps:
        f = m.split()
        if "x" in f[1]:
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            text.append((lo, hi))
    pcs = [(int(l.split()[0], 16), int(l.split()[1]))
           for l in p.stdout.splitlines() if l.strip()]
    total = sum(n for _, n in pcs)
    assert total > 50, p.stdout
    inside = sum(n for pc, n in pcs if any(lo <= pc < hi for lo, hi in text))
    assert inside == total


def test_profile_kernel_pc_is_kernel_text(sonde, root, dd_load):
    """arg0 of a sample in the kernel is in the kernel's text, as
    /proc/kallsyms (the oracle) says."""
    syms = {}
    with open("/proc/kallsyms") as f:
        for line in f:
            a, _, name = line.split()[:3]
            syms[name] = int(a, 16)
    if not syms.get("_stext"):
        pytest.skip("/proc/kallsyms hides addresses")
    lo, hi = syms["_stext"], syms["_etext"]
    p = dtrace(sonde, "-q", "-n", "profile-499 /arg0/ { @[arg0] = count(); }"
               " tick-1s { exit(0); } END { printa(\"%x %@d\\n\", @); }")
    assert p.returncode == 0, p.stderr
    pcs = [(int(l.split()[0], 16), int(l.split()[1]))
           for l in p.stdout.splitlines() if l.strip()]
    total = sum(n for _, n in pcs)
    assert total > 50
    inside = sum(n for pc, n in pcs if lo <= pc < hi)
    # BPF programs and modules live outside _stext.._etext
    assert inside >= 0.9 * total, (inside, total)


# ---- ending a run ----

def test_ctrl_c_runs_end_and_prints_aggregations(sonde, root):
    p = subprocess.Popen([sonde, "dtrace", "-n",
                          "tick-10ms { @ticks = count(); } "
                          "END { printf(\"end ran\\n\"); }"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    time.sleep(0.6)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=10)
    assert p.returncode == 0, err
    assert err.startswith("dtrace: description 'tick-10ms ' matched 2 "
                          "probes\n")
    # dtrace(1) prints a newline when interrupted, before END's output
    lines = out.split("\n")
    assert lines[0] == ""
    assert lines[1] == "CPU     ID                    FUNCTION:NAME"
    end = [l for l in lines if l.endswith(":END end ran")]
    assert len(end) == 1, out
    # the aggregation, after the blank line dtrace prints at exit
    assert re.search(r"\n\n {15,}\d+\n$", out), out
    n = int(out.split()[-1])
    assert 20 <= n <= 80, n


def test_dash_p_ends_with_the_process(sonde, root, fixture_bin):
    target = subprocess.Popen([fixture_bin, "sleep", "700"])
    p = dtrace(sonde, "-p", str(target.pid), "-n",
               "syscall::exit_group:entry /pid == $target/ "
               "{ printf(\"exit %d\", arg0); }")
    target.wait()
    assert p.returncode == 0, p.stderr
    assert f"dtrace: pid {target.pid} has exited\n" in p.stderr
    assert re.search(r":entry exit 0\n", p.stdout), p.stdout


def test_dash_c_exit_status_and_output_file(sonde, root, fixture_bin,
                                            tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("before\n")
    p = dtrace(sonde, "-q", "-o", str(out), "-c", fixture_bin + " getppid 3",
               "-n", "syscall::getppid:entry /pid == $target/ { n++; } "
               "END { printf(\"%d\\n\", n); exit(4); }")
    assert p.returncode == 4, p.stderr
    assert p.stdout == ""
    assert out.read_text() == "before\n3\n\n"


def test_full_ring_buffer_counts_drops(sonde, root, tmp_path):
    """Records that do not fit are counted and reported, never lost
    silently: what printed plus what dropped is what was written."""
    script = tmp_path / "burst.d"
    script.write_text("".join(
        "BEGIN { printf(\"%%d %%s\\n\", %d, \"%s\"); }\n" % (i, "x" * 200)
        for i in range(100)) + "BEGIN { printf(\"end\\n\"); exit(0); }\n")
    p = subprocess.run(["taskset", "-c", "0", sonde, "dtrace", "-q", "-x",
                        "bufsize=4k", "-s", str(script)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    printed = [l for l in p.stdout.splitlines() if l.strip()]
    m = re.search(r"^dtrace: (\d+) drops? on CPU 0$", p.stderr, re.M)
    assert m, p.stderr
    # 100 printf records and exit()'s (which prints "end" when its record
    # fits), which ends the run even when its record is among the dropped
    assert len(printed) + int(m.group(1)) == 101
    assert 0 < len(printed) < 100


# ---- the command line ----

def test_compile_only_and_bpf_listing(sonde):
    p = dtrace(sonde, "-e", "-S", "-n",
               "syscall::read:entry /arg0 == 0/ { @[execname] = count(); }")
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    assert p.stderr.startswith("syscall:::entry: ")
    assert re.search(r"call map_lookup_elem#1", p.stderr)
    assert re.search(r"; -n:1", p.stderr)
    assert "exit\n" in p.stderr


def test_verifier_rejection_names_the_line(sonde, root):
    script = os.path.join(SUITE, "variables.d")
    # a test-only compile option: line 13's code is made one the verifier
    # refuses
    p = dtrace(sonde, "-x", "testreject=13", "-s", script)
    assert p.returncode == 1
    first = p.stderr.splitlines()[-3]
    assert re.match(r"^sonde dtrace: .*variables\.d:13:\d+: the BPF "
                    r"verifier rejected the program for dtrace:::BEGIN at "
                    r"instruction \d+: invalid read from stack", first), \
        p.stderr
    assert p.stderr.splitlines()[-2].strip() == "implicit = declared * 2;"


@pytest.mark.parametrize("args,message", [
    ([], "no program: give -n, -s, -P, -m, -f or -i"),
    (["-n"], "option '-n' needs a value"),
    (["-y"], "unknown option '-y'"),
    (["-c", "true", "-p", "1", "-n", "BEGIN"], "-c and -p exclude each "
     "other"),
])
def test_usage_errors(sonde, args, message):
    """A usage error is one line naming what is wrong, exit 2."""
    p = dtrace(sonde, *args)
    assert p.returncode == 2, p.stderr
    assert p.stderr == f"sonde dtrace: {message} (see sonde dtrace --help)\n"


def test_options_without_a_program(sonde):
    """As dtrace(1): -e with options and no program compiles nothing and
    succeeds silently (DTrace's dtrace-util/tst.Bufsize*.sh); options
    without -e and no program match no probe (exit 1)."""
    p = dtrace(sonde, "-b", "1k", "-b", "2k", "-e")
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    p = dtrace(sonde, "-q")
    assert p.returncode == 1
    assert p.stderr == "dtrace: no probes specified\n"


@pytest.mark.parametrize("args,message", [
    (["-x", "bufsize=lots", "-n", "BEGIN"], "failed to set -x bufsize: "
     "Invalid value for specified option"),
    (["-x", "nosuchopt", "-n", "BEGIN"], "failed to set -x nosuchopt: "
     "Invalid option name"),
    (["-p", "0", "-n", "BEGIN"], "invalid pid: 0"),
    (["-s", "/nonexistent/x.d"], "failed to open /nonexistent/x.d: No such "
     "file or directory"),
    (["-c", "/nonexistent/cmd", "-n", "BEGIN"], "failed to execute "
     "/nonexistent/cmd: No such file or directory"),
])
def test_dtrace_errors(sonde, args, message):
    """What dtrace(1) reports as a failure reads as it does, exit 1."""
    p = dtrace(sonde, *args)
    assert p.returncode == 1, p.stderr
    assert p.stderr == f"dtrace: {message}\n"


def test_help(sonde):
    p = dtrace(sonde, "-h")
    assert p.returncode == 0
    assert p.stdout.startswith("usage: sonde dtrace ")


def test_fbt_names_the_missing_feature(sonde):
    p = dtrace(sonde, "-e", "-n", "fbt::vfs_read:entry { }")
    assert p.returncode == 1        # a compile error, as dtrace(1)
    if os.path.exists("/sys/bus/event_source/devices/kprobe"):
        assert "not supported: the fbt provider" in p.stderr
    else:
        assert "the fbt provider needs kprobes" in p.stderr
        assert "CONFIG_KPROBES" in p.stderr


def test_interpreter_line(sonde, root, tmp_path):
    script = tmp_path / "hello.d"
    script.write_text("#!/usr/bin/env -S %s dtrace -qs\n"
                      "BEGIN { printf(\"%%s %%d\\n\", $$1, $2); exit(0); }\n"
                      % sonde)
    script.chmod(0o755)
    p = run([str(script), "word", "5"])
    assert p.returncode == 0, p.stderr
    assert p.stdout == "word 5\n\n"


def sample_rust(sonde, exe, script, args=()):
    """sonde dtrace -q -p on exe (spinning) for a second of script."""
    proc = subprocess.Popen([exe] + list(args), stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.2)
        p = dtrace(sonde, "-q", "-p", str(proc.pid), "-n", script +
                   " tick-1s { exit(0); }")
    finally:
        proc.kill()
        proc.wait()
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize("scheme", ["legacy", "v0"])
def test_rust_names_demangled(sonde, root, tmp_path, scheme):
    """A Rust program (tests/e2e/prof/spin.rs, built now) spinning in
    Spinner::spin: usym(), %A and ustack() name it as llvm-cxxfilt (v0) or
    c++filt (legacy, hash dropped) print the symbol nm lists, never by the
    symbol itself."""
    exe, sym, want = rust_build(tmp_path, scheme)
    out = sample_rust(sonde, exe,
                      "BEGIN { shown = 0; } "
                      "profile-497 /pid == $target && arg1/ "
                      "{ @u[usym(arg1)] = count(); @s[ustack()] = count(); } "
                      "profile-497 /pid == $target && arg1 && !shown/ "
                      "{ shown = 1; printf(\"A %A\\n\", arg1); }",
                      ["100000000000"])
    assert sym not in out, out
    rows = {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^  (\S+)\s+(\d+)$", out, re.M)}
    total = sum(rows.values())
    assert rows.get("spin`" + want, 0) >= 0.8 * total > 0, out
    shown = re.findall(r"^A (.*)$", out, re.M)
    assert shown and all(re.fullmatch(r"spin`" + re.escape(want) +
                                      r"\+0x[0-9a-f]+", a)
                         for a in shown), out
    assert re.search(r"^ {14}spin`" + re.escape(want) + r"\+0x[0-9a-f]+$",
                     out, re.M), out


def test_rust_keys_stay_apart_when_names_read_alike(sonde, root, tmp_path):
    """Two legacy-mangled instances of one generic method (u64 and u32)
    differ only in their hash: usym() shows both as the same readable name,
    as c++filt does, in two aggregation rows (keyed by the symbol), never
    one."""
    rustc = rustc_or_skip()
    src = tmp_path / "two.rs"
    src.write_text(open(os.path.join(ROOT, "tests", "e2e", "prof",
                                     "spin.rs")).read().split("fn main")[0] +
                   "fn main() {\n"
                   "    let (mut a, mut b) = (Spinner { v: 0u64 }, "
                   "Spinner { v: 0u32 });\n"
                   "    loop {\n"
                   "        a.spin(3, 1 << 20);\n"
                   "        b.spin(3, 1 << 20);\n"
                   "    }\n"
                   "}\n")
    exe = str(tmp_path / "two")
    p = run([rustc, "-O", "-o", exe, str(src)], timeout=300)
    assert p.returncode == 0, p.stderr
    syms = [l.split()[2] for l in run(["nm", exe]).stdout.splitlines()
            if re.search(r"\b[tT] \S*Spinner\S*4spin", l)]
    names = rust_oracle(syms)
    assert len(syms) == 2 and len(set(names.values())) == 1, names
    want = "two`" + names[syms[0]]
    out = sample_rust(sonde, exe, "profile-497 /pid == $target && arg1/ "
                      "{ @u[usym(arg1)] = count(); }")
    rows = re.findall(r"^  (\S+)\s+(\d+)$", out, re.M)
    assert [r[0] for r in rows].count(want) == 2, out
    assert all(int(n) > 10 for name, n in rows if name == want), out


def test_compile_errors_as_dtrace(sonde, tmp_path):
    """dtrace(1)'s form: the script and line, the tag with -x errtags,
    exit 1 (the words are DTrace's own tests' expected output)."""
    script = tmp_path / "e.d"
    script.write_text("BEGIN\n{\n\tx = ;\n}\n")
    p = dtrace(sonde, "-s", str(script))
    assert p.returncode == 1
    assert p.stderr == (f"dtrace: failed to compile script {script}: "
                        "line 3: syntax error near \";\"\n")
    p = dtrace(sonde, "-x", "errtags", "-n", "BEGIN { x = ; }")
    assert p.returncode == 1
    assert p.stderr == ("dtrace: invalid probe specifier BEGIN { x = ; }: "
                        "[D_SYNTAX] syntax error near \";\"\n")


def test_compile_error_lines_as_dtrace(sonde, tmp_path):
    """The line dtrace(1) names is its lexer's when its parser built the
    node: a predicate's operator is built once the '/' that ends it is
    read, which looks past the blanks to the '{' (DTrace's own tests
    types/err.D_OP_INT.badbitop and err.D_OP_SCALAR.badlogop)."""
    script = tmp_path / "p.d"
    script.write_text('BEGIN\n/"a" &\n"b"/\n\n{\n}\n')
    p = dtrace(sonde, "-x", "errtags", "-s", str(script))
    assert p.returncode == 1
    assert p.stderr == (f"dtrace: failed to compile script {script}: "
                        "[D_OP_INT] line 5: operator & requires operands of "
                        "integral type\n")
    script.write_text("BEGIN\n{\n\tq -= 1;\n}\n")
    p = dtrace(sonde, "-x", "errtags", "-s", str(script))
    assert p.returncode == 1
    assert p.stderr == (f"dtrace: failed to compile script {script}: "
                        "[D_VAR_UNDEF] line 3: q has not yet been declared "
                        "or assigned\n")


def test_library_directories(sonde, tmp_path):
    """-L DIR: its .d files are compiled before the program, in the order
    their "#pragma D depends_on library" make (DTRACE_DEBUG reports it in
    libdtrace's words); a library needing what is absent is skipped, a
    dependency outside the directory or a cycle is an error (exit 1)."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.d").write_text("#pragma D depends_on library b.d\n"
                             "inline int twice = once * 2;\n")
    (lib / "b.d").write_text("inline int once = 21;\n")
    (lib / "c.d").write_text("#pragma D depends_on module no_such_mod\n"
                             "inline int gone = 1;\n")
    (lib / "notes.txt").write_text("not D\n")
    env = dict(os.environ, DTRACE_DEBUG="1")
    p = subprocess.run([sonde, "dtrace", "-L", str(lib), "-qn",
                        'BEGIN { printf("%d\\n", twice); exit(0); }'],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "42\n\n"
    sorted_ = re.findall(r"^libdtrace DEBUG \d+: library (\S+) sorted "
                         r"\(\d+/\d+\)$", p.stderr, re.M)
    assert [os.path.basename(x) for x in sorted_] == ["a.d", "b.d", "c.d"]
    p = dtrace(sonde, "-L", str(lib), "-e", "-n", "BEGIN { trace(gone); }")
    assert p.returncode == 1
    assert "failed to resolve gone" in p.stderr
    (lib / "b.d").write_text("#pragma D depends_on library a.d\n")
    p = dtrace(sonde, "-L", str(lib), "-e", "-n", "BEGIN { }")
    assert p.returncode == 1
    assert p.stderr.endswith(f"Cyclic dependency detected: {lib}/a.d => "
                             f"{lib}/b.d\n") or \
        p.stderr.endswith(f"Cyclic dependency detected: {lib}/b.d => "
                          f"{lib}/a.d\n"), p.stderr
    (lib / "b.d").write_text("#pragma D depends_on library z.d\n")
    p = dtrace(sonde, "-L", str(lib), "-e", "-n", "BEGIN { }")
    assert p.returncode == 1
    assert p.stderr.endswith(f"Invalid library dependency in {lib}/b.d: "
                             f"{lib}/z.d\n"), p.stderr


def test_macro_arguments_after_double_dash(sonde, root):
    """Everything after -- is a macro argument, even "-e" (it crashed)."""
    p = dtrace(sonde, "-q", "-n", "BEGIN { printf(\"%s|\", $$1); exit(0); }",
               "--", "-e")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "-e|\n"


def test_extraneous_argument(sonde):
    p = dtrace(sonde, "-e", "-n", "BEGIN { exit(0); }", "10")
    assert p.returncode == 1
    assert p.stderr == ("dtrace: invalid probe specifier BEGIN { exit(0); }: "
                        "extraneous argument '10' ($1 is not referenced)\n")


def test_cpp(sonde, root, tmp_path):
    """-C runs the script through cpp with -D; #include'd errors name their
    file as dtrace(1) does."""
    script = tmp_path / "c.d"
    script.write_text("#ifdef FLAG\n#define V 5\n#else\n#define V 10\n"
                      "#endif\nBEGIN { printf(\"%d\\n\", V); exit(0); }\n")
    p = dtrace(sonde, "-qC", "-DFLAG", "-s", str(script))
    assert p.returncode == 0, p.stderr
    assert p.stdout == "5\n\n"
    p = dtrace(sonde, "-qC", "-s", str(script))
    assert p.stdout == "10\n\n"
    (tmp_path / "bad.h").write_text("\nx = ;\n")
    script.write_text("BEGIN {\n#include \"bad.h\"\n}\n")
    p = dtrace(sonde, "-C", "-I", str(tmp_path), "-s", str(script))
    assert p.returncode == 1
    assert p.stderr == (f"dtrace: failed to compile script {script}: "
                        f"\"{tmp_path}/bad.h\", line 2: syntax error near "
                        "\";\"\n")
    script.write_text("#if\nBEGIN {}\n")
    p = dtrace(sonde, "-C", "-s", str(script))
    assert p.returncode == 1
    assert p.stderr.endswith(f"dtrace: failed to compile script {script}: "
                             "Preprocessor failed to process input program\n")


def test_c_command_words(sonde, root, tmp_path):
    """-c splits its command at blanks as dtrace(1) does, and groups quoted
    words as a shell would (nothing expanded); the words reach the command
    as /bin/printf prints them. An unterminated quote runs nothing: one
    line, exit 1."""
    out = tmp_path / "argv"
    p = dtrace(sonde, "-q", "-c",
               "/bin/sh -c 'printf \"[%%s]\" \"$@\" > %s' sh  a\tb 'c  d'"
               " \"e'f\" g\\ h" % out, "-n", "BEGIN { }")
    assert p.returncode == 0, p.stderr
    assert out.read_text() == "[a][b][c  d][e'f][g h]"
    p = dtrace(sonde, "-q", "-c", "/bin/sh -c 'true", "-n", "BEGIN { }")
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == \
        ["dtrace: failed to execute /bin/sh -c 'true: unterminated quote"]


@pytest.fixture(params=["SONDE", "SONDE_ASAN"])
def plain_or_asan(request, sonde):
    path = os.environ.get(request.param,
                          sonde if request.param == "SONDE" else "")
    if not path or not os.access(path, os.X_OK):
        pytest.skip(f"no {request.param} binary (make test provides one)")
    return path


@pytest.mark.parametrize("script,message", [
    ('BEGIN { x = "' + "a" * 70000 + '"; }',
     "string literal longer than 65534 bytes"),
    ("BEGIN { x = " + "(" * 10000 + "1" + ")" * 10000 + "; }",
     "nested deeper than 200 levels"),
    ("BEGIN { x = 1; y = " + "a[" * 3000 + "1" + "]" * 3000 + "; }",
     "nested deeper than 200 levels"),
    ("BEGIN { x = " + "1 + (" * 5000 + "1" + ")" * 5000 + "; }",
     "nested deeper than 200 levels"),
    ("BEGIN { x = " + "- " * 10000 + "1; }",
     "nested deeper than 200 levels"),
    ("BEGIN { x = " + "y = " * 10000 + "1; }",
     "nested deeper than 200 levels"),
])
def test_source_limits(plain_or_asan, tmp_path, script, message):
    """Issue 20: a 65,535-character literal overflowed the heap (its size
    was kept in 16 bits) and 4,000 nested parentheses, 3,000 nested
    a[a[...]] or 5,000 right-nested 1 + (1 + ...) the stack. Each is a
    compile error in dtrace(1)'s form, exit 1, under ASan/UBSan too."""
    f = tmp_path / "big.d"
    f.write_text(script + "\n")
    p = run([plain_or_asan, "dtrace", "-e", "-s", str(f)], timeout=120)
    assert p.returncode == 1, p.stderr[-2000:]
    assert re.fullmatch(rf"dtrace: failed to compile script {re.escape(str(f))}"
                        rf": line 1: .*{message}\n", p.stderr), p.stderr
    assert "Sanitizer" not in p.stderr and "runtime error" not in p.stderr


def test_strsize_beyond_a_string_size_is_refused(sonde):
    p = run([sonde, "dtrace", "-x", "strsize=65536", "-n", "BEGIN { }"])
    assert p.returncode == 1
    assert p.stderr == "dtrace: failed to set -x strsize: Invalid value " \
        "for specified option\n"


def test_kernel_bitfields_match_the_btf_layout(sonde, root):
    """A kernel bit-field read through a pointer (curthread->frozen) is its
    bits as bpftool lays out task_struct: each field equals the 64-bit word
    it lies in, shifted and masked by bpftool's offsets, for the tasks
    whose system calls fire (sched_contributes_to_load and
    sched_remote_wakeup are often set)."""
    import shutil
    if not shutil.which("bpftool"):
        pytest.skip("bpftool (the BTF layout oracle) is not installed")
    dump = subprocess.run(["bpftool", "btf", "dump", "file",
                           "/sys/kernel/btf/vmlinux"], capture_output=True,
                          text=True).stdout
    body = dump.split("STRUCT 'task_struct' size=", 1)[1].split("\n[", 1)[0]
    fields = [(m[0], int(m[1]), int(m[2])) for m in re.findall(
        r"'(\w+)' type_id=\d+ bits_offset=(\d+) bitfield_size=(\d+)", body)]
    words = sorted({f[1] // 64 * 8 for f in fields})[:2]
    fields = [f for f in fields if f[1] // 64 * 8 in words][:12]
    assert len(fields) >= 4
    prog = ("syscall:::entry /n++ < 3000/ { printf(\"%x %x" +
            " %d" * len(fields) + "\\n\", " +
            ", ".join("*(uint64_t *)((uintptr_t)curthread + %d)" % w
                      for w in (words * 2)[:2]) + ", " +
            ", ".join("curthread->" + f[0] for f in fields) +
            "); } tick-1s { exit(0); }")
    p = dtrace(sonde, "-q", "-n", prog, "-c", "sh -c 'ls / >/dev/null; "
               "sleep 0.2; cat /proc/self/status >/dev/null'")
    assert p.returncode == 0, p.stderr
    lines = {l for l in p.stdout.splitlines() if l.strip()}
    assert lines
    set_bits = 0
    for l in lines:
        w = l.split()
        raw = dict(zip((words * 2)[:2], (int(x, 16) for x in w[:2])))
        got = [int(x) for x in w[2:]]
        want = [(raw[off // 64 * 8] >> (off % 64)) & ((1 << n) - 1)
                for _, off, n in fields]
        assert got == want, (l, fields)
        set_bits += sum(want)
    if not set_bits:
        pytest.skip("no traced task had one of these bit-fields set")


def test_copyin_size_is_a_constant_expression(sonde, root):
    """copyin()'s size may be any integer constant expression, sizeof
    included (dtrace-utils' proc tests copy 2 * sizeof (char *) of argv):
    the program's argv[0] and argv[1] read back through it."""
    p = dtrace(sonde, "-q", "-x", "evaltime=exec", "-c", "/bin/echo hello",
               "-n", "syscall::execve:entry /pid == $target/ { this->v = "
               "(uintptr_t *)copyin((uintptr_t)args[1], 2 * sizeof(char *));"
               " printf(\"%s %s\\n\", copyinstr(this->v[0]), "
               "copyinstr(this->v[1])); }")
    assert p.returncode == 0, p.stderr
    assert "/bin/echo hello\n" in p.stdout


def test_bpflog_prints_the_verifier_log(sonde, root):
    """-x bpflog: the kernel verifier's log of every program on stderr,
    each line after "BPF: " (dtrace-utils' form); its last lines are the
    verifier's statistics ("processed N insns")."""
    p = dtrace(sonde, "-x", "bpflog", "-q", "-n", "BEGIN { exit(0); }")
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert lines and all(l.startswith("BPF: ") for l in lines), p.stderr
    assert any(re.match(r"BPF: processed \d+ insns", l) for l in lines)
    p = dtrace(sonde, "-q", "-n", "BEGIN { exit(0); }")
    assert "BPF: " not in p.stderr


def test_libdir_d_libraries(sonde, root, tmp_path):
    """-L dir (-x libdir): its .d files are D libraries read before the
    program (inlines and types); a library's clauses are checked but never
    enabled, as dtrace-utils compiles a library without running it: an
    error in one fails the program in dtrace(1)'s words (its tst.libdir.r);
    a directory that does not exist is skipped as dtrace(1) skips it."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.d").write_text("inline int ANSWER = 42;\n"
                             "typedef int answer_t;\n"
                             "BEGIN { trace(\"library clause ran\"); }\n")
    p = dtrace(sonde, "-q", "-L", str(lib), "-n",
               "BEGIN { trace((answer_t)ANSWER); exit(0); }")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "42"
    p = dtrace(sonde, "-q", "-x", "libdir=" + str(tmp_path / "none"),
               "-n", "BEGIN { exit(0); }")
    assert p.returncode == 0, p.stderr
    (lib / "b.d").write_text("BEGIN\n{\n\tnonexistent_action();\n}\n")
    p = dtrace(sonde, "-q", "-L", str(lib), "-n", "BEGIN { exit(0); }")
    assert p.returncode == 1
    assert p.stderr == ("dtrace: invalid probe specifier BEGIN { exit(0); }: "
                        "\"%s/b.d\", line 3: undefined function name: "
                        "nonexistent_action\n" % lib), p.stderr


def test_G_links_a_dash_n_program(sonde, tmp_path):
    """-G with -n (dtrace(1) allows it): no provider, an object named
    d.out as dtrace(1) names it; readelf (the oracle) reads it."""
    p = dtrace(sonde, "-G", "-n", "BEGIN { exit(0); }", cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    r = run(["readelf", "-h", str(tmp_path / "d.out")])
    assert r.returncode == 0 and "REL (Relocatable file)" in r.stdout


def test_a_probe_two_descriptions_match_runs_the_clause_twice(sonde, root):
    """dtrace-utils makes one statement per probe description: a probe
    that two descriptions of a clause match runs the clause twice (its
    pid/tst.weak1.d counts go and its weak alias _go so), and "matched"
    counts it twice; other clauses run once."""
    p = dtrace(sonde, "-q", "-c", "/bin/true", "-n",
               "syscall::exit_group:entry, syscall::exit_group:entry "
               "/pid == $target/ { printf(\"%s twice\\n\", probefunc); } "
               "syscall::exit_group:entry /pid == $target/ "
               "{ printf(\"once\\n\"); }")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["exit_group", "twice", "exit_group",
                                "twice", "once"], p.stdout
    p = dtrace(sonde, "-n", "syscall::read:entry, syscall::read:entry,"
               " BEGIN { exit(0); }")
    assert "matched 3 probes" in p.stderr, p.stderr


def test_character_constants_are_ints(sonde, root):
    """A character constant is an int, as in C and DTrace (its lexer
    returns DT_TOK_INT): 4 bytes, so an aggregation key 'a' prints as
    dtrace-utils prints a 4-byte key (" %8d"), sizeof ('a') is 4."""
    p = dtrace(sonde, "-q", "-n", "BEGIN { @['a'] = count(); "
               "printf(\"%d\\n\", sizeof ('a')); exit(0); }")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "4\n\n       97                1\n", repr(p.stdout)


def test_cpuinfo_chip_lgrp_pset(sonde, root):
    """curcpu's cpu_chip is the CPU's physical package and cpu_lgrp its
    NUMA node (the oracle: sysfs for the CPU the tick ran on), cpu_pset 0
    (Linux has no processor sets); chip, lgrp and pset name them, as
    DTrace's sched.d inlines do."""
    p = dtrace(sonde, "-q", "-n", "profile-50ms { printf(\"%d %d %d %d %d "
               "%d %d\\n\", cpu, curcpu->cpu_chip, chip, curcpu->cpu_lgrp, "
               "lgrp, curcpu->cpu_pset, pset); exit(0); }")
    assert p.returncode == 0, p.stderr
    cpu, chip, chip2, lgrp, lgrp2, pset, pset2 = map(int, p.stdout.split())
    topo = "/sys/devices/system/cpu/cpu%d/" % cpu
    with open(topo + "topology/physical_package_id") as f:
        assert chip == chip2 == int(f.read())
    nodes = [int(d[4:]) for d in os.listdir(topo) if re.match(r"node\d+$", d)]
    assert lgrp == lgrp2 == (nodes[0] if nodes else 0)
    assert pset == pset2 == 0


@pytest.mark.parametrize("when", ["exec", "preinit", "postinit", "main",
                                  None])
def test_evaltime_where_the_command_waits(sonde, root, fixture_bin, when):
    """-x evaltime: where -c's command waits for tracing, as dtrace-utils
    has it (its dtrace-util/tst.ProcInvoke): exec (before the execve:
    exec-success and the execve are seen), preinit (just after it: the
    dynamic linker's openat of libc is seen, the execve not), postinit,
    the default (at the entry point: the libraries are loaded, neither is
    seen) and main (at main(): neither). The fixture's own calls are seen
    in every case (the oracle: its 37 getppid calls)."""
    opt = ["-x", "evaltime=" + when] if when else []
    p = dtrace(sonde, "-q", *opt, "-c", fixture_bin + " getppid 37", "-n",
               "syscall::execve:entry, syscall::openat:entry, "
               "syscall::getppid:entry /pid == $target/ "
               "{ @[probefunc] = count(); }"
               " proc:::exec-success /pid == $target/ { @[probename] = "
               "count(); } END { printa(\"%s %@d\\n\", @); }")
    assert p.returncode == 0, p.stderr
    got = dict((l.split()[0], int(l.split()[1]))
               for l in p.stdout.splitlines() if l.strip())
    assert got.pop("getppid") == 37
    if when == "exec":
        assert got.get("execve") == 1 and got.get("exec-success") == 1
        assert got.get("openat", 0) >= 1
    elif when == "preinit":
        assert "execve" not in got and "exec-success" not in got
        assert got.get("openat", 0) >= 1
    else:
        assert got == {}, got


def test_noresolve_user_addresses(sonde, root):
    """-x noresolve: uaddr() prints module:0xoffset from the start of the
    address's mapping, as dtrace-utils' dtrace_uaddr2str (its noresolve
    tests grep "bash:0x"); the oracle: /proc/PID/maps of the sampled
    process. umod() still names the module."""
    spin = subprocess.Popen(["sh", "-c", "while :; do :; done"])
    try:
        p = dtrace(sonde, "-q", "-x", "noresolve", "-n",
                   "profile-997hz /pid == %d && arg1/ { @[arg1, uaddr(arg1),"
                   " umod(arg1)] = count(); } tick-1s { exit(0); }"
                   % spin.pid, timeout=30)
        with open("/proc/%d/maps" % spin.pid) as f:
            maps = [l.split() for l in f]
    finally:
        spin.kill()
        spin.wait()
    assert p.returncode == 0, p.stderr
    rows = [l.split() for l in p.stdout.splitlines() if l.strip()]
    assert rows, p.stdout
    for addr, text, mod, _ in rows:
        pc = int(addr)
        m = [x for x in maps if int(x[0].split("-")[0], 16) <= pc <
             int(x[0].split("-")[1], 16)]
        assert m and len(m[0]) > 5, (addr, text)
        start = int(m[0][0].split("-")[0], 16)
        name = os.path.basename(m[0][5])
        assert text == "%s:0x%x" % (name, pc - start)
        assert mod == name


def test_aggpercpu_shows_each_cpu(sonde, root):
    """-x aggpercpu: after each total, each CPU's value ("    [CPU n]"),
    as dtrace-utils prints it; the oracle: the per-CPU values of what
    the probes themselves printed (their cpu), summed to the total, an
    empty min() as INT64_MAX."""
    p = dtrace(sonde, "-x", "aggpercpu", "-q", "-n",
               "profile-200ms { printf(\"cpu %d\\n\", cpu); @c = count(); "
               "@m = min(cpu + 100); } tick-700ms { exit(0); }",
               timeout=30)
    assert p.returncode == 0, p.stderr
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    fired = [int(l.split()[1]) for l in lines if l.startswith("cpu ")]
    rows = [l for l in lines if not l.startswith("cpu ")]
    ncpu = sum(1 for l in rows if l.startswith("    [CPU ")) // 2
    assert ncpu >= 1 and len(rows) == 2 * (ncpu + 1), p.stdout
    cnt = rows[:ncpu + 1]
    mins = rows[ncpu + 1:]
    assert int(cnt[0]) == len(fired)
    for c in range(ncpu):
        assert cnt[c + 1].split() == ["[CPU", "%d]" % c, str(fired.count(c))]
        want = str(c + 100) if c in fired else str(2**63 - 1)
        assert mins[c + 1].split() == ["[CPU", "%d]" % c, want]
    assert int(mins[0]) == min(fired) + 100


def test_statusrate_delays_exit_to_the_status_check(sonde, root):
    """-x statusrate: exit() takes effect at the next status check (every
    statusrate from the start), where dtrace(1) notices it, so END runs
    then (DTrace's rates/tst.statusrate); unset, the run ends at once."""
    prog = ("tick-100ms /n++ == 2/ { t = timestamp; exit(0); } "
            "END { printf(\"%d\\n\", (timestamp - t) / 1000000); }")
    p = dtrace(sonde, "-q", "-x", "statusrate=2s", "-n", prog, timeout=30)
    assert p.returncode == 0, p.stderr
    assert 1500 <= int(p.stdout) <= 2500, p.stdout
    p = dtrace(sonde, "-q", "-n", prog, timeout=30)
    assert p.returncode == 0, p.stderr
    assert int(p.stdout) < 500, p.stdout


def kernel_locked_down():
    """Whether kernel_lockdown(7) is on (it takes bpf_probe_write_user
    away): securityfs' lockdown file, else the boot log."""
    try:
        with open("/sys/kernel/security/lockdown") as f:
            return "[none]" not in f.read()
    except OSError:
        p = run(["dmesg"])
        return "Kernel is locked down" in p.stdout


def test_copyout_writes_user_memory(sonde, root, tmp_path):
    """copyout()/copyoutstr() (-w) write into the traced process with
    bpf_probe_write_user: the program prints its buffer after its write(2)
    (the oracle: what it prints). A kernel in lockdown refuses the
    helper: then the run fails saying so, in one line of its own."""
    src = tmp_path / "w.c"
    src.write_text('#include <stdio.h>\n#include <string.h>\n'
                   '#include <unistd.h>\nint main(void) {\n'
                   '  char s[32]; memset(s, \'-\', 31); s[31] = 0;\n'
                   '  write(-1, s, 31); puts(s); return 0; }\n')
    exe = tmp_path / "w"
    assert run(["cc", "-o", str(exe), str(src)]).returncode == 0
    p = dtrace(sonde, "-q", "-w", "-c", str(exe), "-n",
               "syscall::write:entry /pid == $target/ { s = \"HELLO\"; "
               "copyoutstr(s, arg1, 32); copyout(s, arg1 + 10, 3); }")
    if kernel_locked_down():
        assert p.returncode == 1
        assert ("copyout() and copyoutstr() need bpf_probe_write_user, "
                "which this kernel refuses: it is locked down") in p.stderr
        pytest.skip("this kernel is locked down: bpf_probe_write_user "
                    "is refused (the refusal was checked)")
    assert p.returncode == 0, p.stderr
    assert p.stdout == "HELLO\n"


def test_fault_in_error_clause_is_a_double_error(sonde, root):
    """A fault inside an ERROR clause is not fed back to ERROR (it would
    fault again, forever): dtrace(1) counts it and reports it with the
    drops — "[DTRACEDROP_DBLERROR] 1 error in ERROR probe enabling" under
    -x droptags — while the first fault is reported as usual."""
    prog = ("BEGIN { trace(*(int *)NULL); } "
            "ERROR { trace(*(int *)NULL); } "
            "BEGIN { exit(0); }")
    t = time.monotonic()
    p = dtrace(sonde, "-q", "-x", "droptags", "-n", prog, timeout=20)
    assert p.returncode == 0, p.stderr
    assert time.monotonic() - t < 15
    err = p.stderr.splitlines()
    assert err.count("dtrace: [DTRACEDROP_DBLERROR] 1 error in ERROR "
                     "probe enabling") == 1, err
    faults = [l for l in err if l.startswith("dtrace: error in ")]
    assert len(faults) == 1 and "(dtrace:::BEGIN)" in faults[0], err
    p = dtrace(sonde, "-q", "-n", prog, timeout=20)
    assert "dtrace: 1 error in ERROR probe enabling" in p.stderr.splitlines()
