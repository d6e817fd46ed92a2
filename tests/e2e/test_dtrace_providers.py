# SPDX-License-Identifier: GPL-2.0-only
"""`sonde dtrace`'s process providers against the real kernel: pid probes
(uprobes) on tests/dtrace/ufixture.c, whose functions and call counts are
known, checked against readelf (the symbols), /proc/PID/maps (the modules) and
the fixture's own arithmetic; the conformance scripts in tests/dtrace
cover the D side."""
import errno
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import run
from test_dtrace import fixture_bin  # noqa: F401 (a pytest fixture)


def dtrace(sonde, *args, timeout=60, **kw):
    return run([sonde, "dtrace"] + list(args), timeout=timeout, **kw)


def need_uprobes():
    if not os.path.exists("/sys/bus/event_source/devices/uprobe"):
        pytest.skip("this kernel has no uprobe PMU (CONFIG_UPROBE_EVENTS)")


def elf_functions(path):
    """Defined function symbols of path's .symtab, from readelf (the
    oracle)."""
    p = run(["readelf", "-sW", path])
    assert p.returncode == 0, p.stderr
    names, table = set(), None
    for l in p.stdout.splitlines():
        if l.startswith("Symbol table"):
            table = l
        w = l.split()
        if (table and ".symtab" in table and len(w) >= 8
                and w[3] in ("FUNC", "IFUNC") and w[6] != "UND"
                and int(w[1], 16) != 0):
            names.add(w[7].split("@")[0])
    return names


def test_pid_list_matches_nm(sonde, root, ufixture_bin):
    need_uprobes()
    p = dtrace(sonde, "-l", "-n", "pid$target:a.out::entry",
               "-c", ufixture_bin)
    assert p.returncode == 0, p.stderr
    rows = [l.split() for l in p.stdout.splitlines()[1:]]
    assert rows
    pids = {r[1] for r in rows}
    assert len(pids) == 1 and re.match(r"^pid\d+$", pids.pop())
    assert {r[2] for r in rows} == {"ufixture"}
    assert {r[4] for r in rows} == {"entry"}
    assert {r[3] for r in rows} == elf_functions(ufixture_bin)


def test_pid_counts_per_function(sonde, root, ufixture_bin):
    """Every uf_ function fires exactly as often as the fixture calls it,
    in every thread."""
    need_uprobes()
    p = dtrace(sonde, "-q", "-c", ufixture_bin + " threads 25", "-n",
               "pid$target:a.out:uf_*:entry { @[probefunc] = count(); }"
               " pid$target:a.out:uf_*:entry { @t[tid] = count(); }",
               "-n", "END { printa(\"%s %@d\\n\", @); }")
    assert p.returncode == 0, p.stderr
    got = dict(re.findall(r"^(uf_\w+) (\d+)$", p.stdout, re.M))
    assert got == {"uf_add": "50", "uf_eight": "50", "uf_outer": "50",
                   "uf_middle": "50", "uf_leaf": "50"}
    # two threads, 125 calls each (5 functions x 25 rounds)
    per_thread = re.findall(r"^\s+(\d+)\s+125$", p.stdout, re.M)
    assert len(per_thread) == 2 and len(set(per_thread)) == 2


def test_pid_dash_p_and_library_module(sonde, root, ufixture_bin):
    """-p: the modules come from /proc/PID/maps; a library function (libc's
    nanosleep, which the fixture calls once) by the library's basename."""
    need_uprobes()
    target = subprocess.Popen([ufixture_bin, "wait", "1500", "6"])
    try:
        time.sleep(0.3)
        with open(f"/proc/{target.pid}/maps") as f:
            libc = [l.split()[-1] for l in f if "libc.so" in l]
        assert libc
        base = os.path.basename(libc[0])
        p = dtrace(sonde, "-q", "-p", str(target.pid), "-n",
                   "pid$target:a.out:uf_leaf:return { @r[arg1] = count(); }"
                   f" pid$target:{base}:clock_nanosleep:return,"
                   f"pid$target:{base}:exit:entry"
                   " { @l[probemod, probefunc] = count(); }")
    finally:
        target.wait()
    assert p.returncode == 0, p.stderr
    # uf_leaf(i + 2) returns 2i + 4 for i = 1..6
    assert re.findall(r"^\s+(\d+)\s+1$", p.stdout, re.M) == \
        ["6", "8", "10", "12", "14", "16"]
    assert re.search(rf"^\s+{re.escape(base)}\s+exit\s+1$", p.stdout, re.M)


def test_pid_offset_probe(sonde, root, ufixture_bin):
    """An offset probe fires at the instruction it names: offset 0 is the
    entry; an offset past the function's size is refused as dtrace(1)
    refuses it (D_PROC_OFF)."""
    need_uprobes()
    p = dtrace(sonde, "-q", "-c", ufixture_bin + " calls 7", "-n",
               "pid$target:a.out:uf_add:0 { @[probename, arg0] = count(); }")
    assert p.returncode == 0, p.stderr
    rows = re.findall(r"^\s+0\s+(\d+)\s+1$", p.stdout, re.M)
    assert rows == [str(i) for i in range(1, 8)]
    p = dtrace(sonde, "-c", ufixture_bin + " calls 1", "-n",
               "pid$target:a.out:uf_add:fffff { }")
    assert p.returncode == 1  # a compile error, as dtrace(1)
    assert "offset 0xfffff outside of function 'uf_add'" in p.stderr


def test_pid_needs_a_process(sonde):
    p = dtrace(sonde, "-e", "-n", "pid:::entry { }")
    assert p.returncode == 1  # a compile error, as dtrace(1)
    assert "pid$target" in p.stderr
    p = dtrace(sonde, "-e", "-n", "pid$target:::entry { }")
    assert p.returncode == 1  # a compile error, as dtrace(1)
    assert "$target needs -c CMD or -p PID" in p.stderr


# ---- proc ----

def test_proc_exec_psinfo(sonde, root, ufixture_bin):
    """exec-success in the new image: execname, pr_fname and pr_psargs are
    the command line that ran (the oracle: what we passed), exec's args[0]
    the path, and exit's args[0] CLD_EXITED."""
    p = dtrace(sonde, "-q", "-x", "evaltime=exec", "-c",
               ufixture_bin + " calls  2", "-n",
               "proc:::exec /pid == $target/ { printf(\"exec %s\\n\", "
               "args[0]); }"
               " proc:::exec-success /pid == $target/ { printf(\"%s|%s|%s|"
               "%d\\n\", execname, curpsinfo->pr_fname, "
               "curpsinfo->pr_psargs, curpsinfo->pr_pid == pid); }"
               " proc:::exit /pid == $target/ { printf(\"exit %d\\n\", "
               "args[0]); }")
    assert p.returncode == 0, p.stderr
    assert p.stdout.rstrip("\n").splitlines() == [
        "exec " + ufixture_bin,
        "ufixture|ufixture|%s calls 2|1" % ufixture_bin,
        "exit 1"]


def test_proc_killed_and_dumped(sonde, root, tmp_path):
    """exit's args[0]: CLD_KILLED for SIGKILL, CLD_DUMPED for a core dump
    (ulimit -c unlimited; skipped when the core pattern pipes elsewhere)."""
    p = dtrace(sonde, "-q", "-c", "sh -c 'ulimit -c unlimited; "
               "sh -c \"kill -KILL \\$\\$\"; sh -c \"kill -SEGV \\$\\$\"'",
               "-n", "proc:::exit /ppid == $target/ { @[args[0]] = count(); }",
               cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    got = dict((int(a), int(b)) for a, b in
               (l.split() for l in p.stdout.split("\n") if l.strip()))
    assert got.get(2) == 1
    with open("/proc/sys/kernel/core_pattern") as f:
        pattern = f.read()
    if pattern.startswith("|"):
        pytest.skip("core_pattern pipes cores to %s" % pattern.strip())
    assert got.get(3) == 1


def test_proc_signals_discard_and_fatal(sonde, root, tmp_path):
    """signal-discard fires (after signal-send) for a signal the target
    ignores (the oracle: /proc/PID/status SigIgn has SIGHUP), with the
    target's psinfo and the signal; signal-handle of a fatal default
    action names the signal sent (SIGTERM), not the SIGKILL the kernel
    delivers in its place (dtrace-utils reads group_exit_code)."""
    sh = tmp_path / "sig.sh"
    sh.write_text("trap '' HUP\n"
                  "sleep 30 &\n"
                  "pid=$!\n"
                  "sleep 1\n"
                  "grep SigIgn /proc/$pid/status\n"
                  "kill -HUP $pid\n"
                  "sleep 0.3\n"
                  "kill -TERM $pid\n"
                  "wait\n")
    p = dtrace(sonde, "-q", "-c", "sh " + str(sh),
               "-n", "proc:::signal-send /args[1]->pr_ppid == $target/ "
               "{ printf(\"send %d %s\\n\", args[2], args[1]->pr_fname); }"
               " proc:::signal-discard /args[1]->pr_ppid == $target/ "
               "{ printf(\"discard %d %s\\n\", args[2], "
               "args[1]->pr_fname); }"
               " proc:::signal-handle /ppid == $target/ "
               "{ printf(\"handle %d\\n\", args[0]); }", timeout=30)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    ign = [l for l in lines if l.startswith("SigIgn")]
    assert ign and int(ign[0].split()[1], 16) & (1 << (signal.SIGHUP - 1))
    got = [l for l in lines if l and not l.startswith("SigIgn")]
    assert got == ["send %d sleep" % signal.SIGHUP,
                   "discard %d sleep" % signal.SIGHUP,
                   "send %d sleep" % signal.SIGTERM,
                   "handle %d" % signal.SIGTERM], p.stdout


def test_proc_exec_failure_is_minus_errno(sonde, root, tmp_path):
    """exec-failure's args[0] is execve's return value, -errno, as
    dtrace-utils passes it (its tst.execfail.ENOENT compares -ENOENT)."""
    p = dtrace(sonde, "-q", "-c",
               "sh -c '%s/nonexistent 2>/dev/null; true'" % tmp_path,
               "-n", "proc:::exec-failure /ppid == $target || pid == $target/"
               " { printf(\"%d\\n\", args[0]); }")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(-errno.ENOENT)], p.stdout


@pytest.mark.parametrize("prog,message", [
    ("proc:::exit { trace(args[3]); }",   # dtrace-utils' words
     "[D_ARGS_IDX] in action list: index 3 is out of range for "
     "proc:vmlinux::exit args[ ]"),
    ("proc:::exit,proc:::create { trace(args[0]); }",
     "args[0] is int for some of the clause's probes and psinfo_t *"),
    ("proc:::create { trace(args[0]->pr_nope); }",
     "psinfo_t has no member pr_nope"),
    # read(2)'s tracepoint has three fields: args[0..2]
    ("syscall::read:entry { trace(args[3]); }",
     "index 3 is out of range for syscall:vmlinux:read:entry args[ ]"),
    ("BEGIN { x = 1; trace(x->pr_pid); }",
     "operator -> must be applied to a pointer"),
])
def test_args_errors(sonde, prog, message):
    p = dtrace(sonde, "-e", "-x", "errtags", "-n", prog)
    assert p.returncode == 1  # a compile error, as dtrace(1)
    assert message in p.stderr, p.stderr


# ---- sched ----

def test_sched_on_cpu_is_the_incoming_thread(sonde, root):
    """on-cpu's tid (read from the incoming task) is the tid that the next
    off-cpu on that CPU sees as current (from the BPF helper). A pipe on
    one CPU keeps tens of thousands of switches going. The kernel here now
    and then emits a thread's off-cpu switch twice with no switch back on between them
    (after a switch to the VM agent's tokio-rt-worker; bpftrace on the same
    sched_switch tracepoint sees the same), which reads as "differs": a
    handful among thousands."""
    load = subprocess.Popen(["taskset", "-c", "0", "sh", "-c",
                             "yes | head -c 400000000 > /dev/null"],
                            start_new_session=True)
    try:
        p = dtrace(sonde, "-q", "-n",
                   "sched:::on-cpu { on[cpu] = tid; }"
                   " sched:::off-cpu /on[cpu] != 0/ { @[on[cpu] == tid ?"
                   " \"same\" : \"differs\"] = count(); }"
                   " tick-300ms { exit(0); }")
    finally:
        try:
            os.killpg(load.pid, 9)
        except ProcessLookupError:
            pass
        load.wait()
    assert p.returncode == 0, p.stderr
    got = dict((k, int(v)) for k, v in
               (l.split() for l in p.stdout.split("\n") if l.strip()))
    assert got.get("same", 0) > 5000, got
    assert got.get("differs", 0) <= 0.001 * got["same"], got


def test_sched_on_cpu_time_matches_the_scheduler(sonde, root, ufixture_bin):
    """The on-cpu to off-cpu intervals of a spinning process add up to its
    sum_exec_runtime (vtimestamp at exit): never less (1% slack), and at
    most 20% more — the intervals are wall time on the CPU, which also
    holds interrupts and, in this VM, the host's steal time, which the
    scheduler's runtime leaves out. Now and then (one run in 10 to 30)
    the kernel emits an off-cpu switch with no switch back on before the
    thread's next off-cpu (after a switch to the VM agent's
    tokio-rt-worker; a bpftrace program on the same sched_switch
    tracepoint sees the same unpaired event), or an on-cpu with no
    off-cpu before it, or the thread exits running with no on-cpu since
    its last off-cpu, each of which loses an interval; the script counts
    them, and such a run is measured again."""
    for _ in range(4):
        p = dtrace(sonde, "-q", "-c", ufixture_bin + " spin 60000000", "-n",
                   "self uint64_t on; uint64_t total;"
                   " sched:::on-cpu /pid == $target && self->on/"
                   " { unpaired++; }"
                   " sched:::on-cpu /pid == $target/ { self->on = timestamp; }"
                   " sched:::off-cpu /pid == $target && !self->on/"
                   " { unpaired++; }"
                   " sched:::off-cpu /self->on/ { total += timestamp -"
                   " self->on; self->on = 0; }"
                   " proc:::exit /pid == $target/ { printf(\"%d %d %d\\n\","
                   " total + (self->on ? timestamp - self->on : 0),"
                   " vtimestamp, unpaired + (self->on ? 0 : 1)); }")
        assert p.returncode == 0, p.stderr
        measured, runtime, unpaired = map(int, p.stdout.split())
        assert runtime > 20_000_000
        if unpaired == 0:
            break
    assert unpaired == 0, "every run had an unpaired switch"
    assert 0.99 * runtime <= measured <= 1.2 * runtime, (measured, runtime)


def test_sched_on_cpu_vtimestamp_is_the_incoming_threads(sonde, root,
                                                        ufixture_bin):
    """vtimestamp at on-cpu is the incoming thread's time on a CPU: the
    scheduler does not add to it while the thread is off, so it equals
    the value at its last off-cpu (DTrace's buffering/tst.cputime sums
    these intervals; sonde read the outgoing task's). The target sleeps
    twice: a spinner on an idle machine may never leave its CPU."""
    p = dtrace(sonde, "-q", "-c", ufixture_bin + " wait 20 1 20", "-n",
               "sched:::off-cpu /pid == $target/ { self->off = vtimestamp; }"
               " sched:::on-cpu /pid == $target && self->off/ "
               "{ @[vtimestamp == self->off ? \"same\" : \"differs\"] = "
               "count(); }")
    assert p.returncode == 0, p.stderr
    got = dict((l.split()[0], int(l.split()[1]))
               for l in p.stdout.splitlines() if l.strip())
    assert "differs" not in got and got.get("same", 0) > 0, p.stdout


def test_sched_sleep_wakeup_preempt(sonde, root, ufixture_bin):
    """A nanosleep is a sleep and a wakeup of the sleeper; two spinners on
    one CPU preempt each other."""
    p = dtrace(sonde, "-q", "-c",
               "taskset -c 0 sh -c '%s wait 50 1; %s spin 80000000 &"
               " %s spin 80000000; wait'" % ((ufixture_bin,) * 3), "-n",
               "sched:::sleep /execname == \"ufixture\"/ { @[\"sleep\"] ="
               " count(); }"
               " sched:::wakeup /args[1]->pr_fname == \"ufixture\"/"
               " { @[\"wakeup\"] = count(); }"
               " sched:::preempt /execname == \"ufixture\"/ { @[\"preempt\"]"
               " = count(); }")
    assert p.returncode == 0, p.stderr
    got = dict((k, int(v)) for k, v in
               (l.split() for l in p.stdout.split("\n") if l.strip()))
    assert got.get("sleep", 0) >= 1
    assert got.get("wakeup", 0) >= 1
    assert got.get("preempt", 0) >= 2


# ---- usdt ----

def stapsdt_notes(path):
    """(provider, name, semaphore != 0) of each .note.stapsdt note, from
    readelf -n (the oracle)."""
    p = run(["readelf", "-n", path])
    assert p.returncode == 0, p.stderr
    notes, prov, name = [], None, None
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith("Provider:"):
            prov = line.split()[1]
        elif line.startswith("Name:"):
            name = line.split()[1]
        elif line.startswith("Location:"):
            sem = int(line.split("Semaphore:")[1].strip(), 16)
            notes.append((prov, name, sem != 0))
    return notes


def test_usdt_list_matches_readelf(sonde, root, ufixture_bin):
    need_uprobes()
    notes = stapsdt_notes(ufixture_bin)
    if not notes:
        pytest.skip("ufixture was built without <sys/sdt.h> "
                    "(systemtap-sdt-dev)")
    p = dtrace(sonde, "-l", "-n", "ufix$target:::", "-c", ufixture_bin)
    assert p.returncode == 0, p.stderr
    rows = [l.split() for l in p.stdout.splitlines()[1:]]
    assert all(re.match(r"^ufix\d+$", r[1]) for r in rows)
    assert sorted((r[2], r[4]) for r in rows) == sorted(
        ("ufixture", n.replace("__", "-")) for prov, n, _ in notes
        if prov == "ufix")


def test_usdt_semaphore_and_counts(sonde, root, ufixture_bin):
    """Each round fires once; the guarded probe's code runs only while
    sonde has it enabled (the kernel counts the semaphore), and never
    without a tracer."""
    need_uprobes()
    if not stapsdt_notes(ufixture_bin):
        pytest.skip("ufixture was built without <sys/sdt.h>")
    p = run([ufixture_bin, "usdt", "50"])
    assert p.stdout == "0 guarded rounds\n"
    p = dtrace(sonde, "-q", "-c", ufixture_bin + " usdt 50", "-n",
               "ufix$target:::round { @r = count(); @s = sum(arg1); }")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["0", "guarded", "rounds", "50", "-1275"]
    p = dtrace(sonde, "-q", "-c", ufixture_bin + " usdt 50", "-n",
               "ufix$target:::guarded-round { @g = count(); }")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["50", "guarded", "rounds", "50"]


# ---- fbt on a kernel without kprobes and fentry ----

def test_fbt_list_and_compile_name_the_missing_features(sonde):
    if os.path.exists("/sys/bus/event_source/devices/kprobe"):
        pytest.skip("this kernel has kprobes")
    for args, status in ((["-l", "-n", "fbt::vfs_read:entry"], 1),
                         (["-e", "-n", "fbt::vfs_read:entry { }"], 1)):
        p = dtrace(sonde, *args)
        assert p.returncode == status, p.stderr
        if "this version does not use fentry" in p.stderr:
            assert "CONFIG_KPROBES" in p.stderr
            continue	# fentry works here, but fbt runs on kprobes
        assert "the fbt provider needs kprobes or fentry" in p.stderr
        assert "CONFIG_KPROBES" in p.stderr
        assert "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS" in p.stderr
    # A function the kernel does not have: nothing to explain, dtrace(1)'s
    # one line and status 0 (DTrace's tst.ListProbesNameEmpty).
    p = dtrace(sonde, "-l", "-n", "fbt:des:des3_crunch_block:return")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ("dtrace: failed to match fbt:des:des3_crunch_block:"
                        "return: No probe matches description\n")


# ---- stacks ----

def stack_keys(out):
    """Aggregation output with one stack key: [(frames, value)]."""
    res, frames = [], []
    for line in out.split("\n"):
        if re.match(r"^ +-?\d+$", line) and frames:
            res.append((frames, int(line)))
            frames = []
        elif re.match(r"^ {14}\S", line):
            frames.append(line.strip())
    return res


def kallsyms_names():
    with open("/proc/kallsyms") as f:
        return {l.split()[2] for l in f}


def test_stack_keys_kernel(sonde, root, fixture_bin):
    """stack() at syscall::getppid:entry: the frames from the syscall
    entry path, named as /proc/kallsyms names them (the oracle), one key
    for every call."""
    p = dtrace(sonde, "-q", "-c", fixture_bin + " getppid 300", "-n",
               "syscall::getppid:entry /pid == $target/ { @[stack()] ="
               " count(); }")
    assert p.returncode == 0, p.stderr
    keys = stack_keys(p.stdout)
    assert sum(v for _, v in keys) == 300
    names = kallsyms_names()
    for frames, _ in keys:
        assert frames[-1].startswith("vmlinux`entry_SYSCALL_64")
        assert any(f.startswith("vmlinux`do_syscall_64+") for f in frames)
        for f in frames:
            m = re.match(r"^vmlinux`(\w+)\+0x[0-9a-f]+$", f)
            assert m and m.group(1) in names, f
            assert not m.group(1).startswith("bpf_"), frames


def test_ustack_keys_name_the_callers(sonde, root, ufixture_bin):
    """ustack() at pid$target::uf_leaf:entry (the process still alive when
    the aggregation prints): uf_leaf (no offset at its first byte, as dtrace(1) prints it), then uf_outer (uf_middle's frame
    is not on the frame-pointer chain yet at a function's first
    instruction), calls and main, each offset inside its function (sizes
    from readelf); ustack(2) keeps two frames."""
    p = dtrace(sonde, "-q", "-c", ufixture_bin + " wait 10 3 3000", "-n",
               "pid$target:a.out:uf_leaf:entry { @[ustack()] = count(); }"
               " pid$target:a.out:uf_outer:return /++n == 3/ { exit(0); }")
    assert p.returncode == 0, p.stderr
    keys = stack_keys(p.stdout)
    assert len(keys) == 1 and keys[0][1] == 3, p.stdout
    frames = keys[0][0]
    sizes = {}
    for l in run(["readelf", "-sW", ufixture_bin]).stdout.splitlines():
        w = l.split()
        if len(w) >= 8 and w[3] == "FUNC":
            sizes[w[7]] = int(w[2], 0)
    got = []
    for f in frames:
        m = re.match(r"^ufixture`(\w+)(?:\+0x([0-9a-f]+))?$", f)
        if not m:
            break
        got.append(m.group(1))
        assert int(m.group(2) or "0", 16) < max(sizes[m.group(1)], 1), f
    assert got[:4] == ["uf_leaf", "uf_outer", "calls", "main"], frames
    assert frames[0] == "ufixture`uf_leaf"
    p = dtrace(sonde, "-q", "-c", ufixture_bin + " wait 10 1 3000", "-n",
               "pid$target:a.out:uf_leaf:entry { @[ustack(2)] = count();"
               " exit(0); }")
    assert p.returncode == 0, p.stderr
    keys = stack_keys(p.stdout)
    assert [k[0] for k in keys] == [["ufixture`uf_leaf",
                                     frames[1]]]


def test_stack_action_kernel(sonde, root, fixture_bin):
    """stack(); alone and trace(stack()) at syscall::getppid:entry: the
    frames print where the record falls (after the probe line, indented),
    from the syscall entry path, each named as /proc/kallsyms names it."""
    p = dtrace(sonde, "-c", fixture_bin + " getppid 5", "-n",
               "syscall::getppid:entry /pid == $target/ { stack(); "
               "trace(\"mid\"); trace(stack(2)); exit(0); }")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert re.match(r"^ +\d+ +\d+ +getppid:entry $", lines[1]), p.stdout
    frames = []
    i = 2
    while re.match(r"^ {14}\S", lines[i]):
        frames.append(lines[i].strip())
        i += 1
    assert "mid" in lines[i], p.stdout
    names = kallsyms_names()
    assert frames[-1].startswith("vmlinux`entry_SYSCALL_64")
    assert any(f.startswith("vmlinux`do_syscall_64+") for f in frames)
    for f in frames:
        m = re.match(r"^vmlinux`(\w+)\+0x[0-9a-f]+$", f)
        assert m and m.group(1) in names, f
        assert not m.group(1).startswith("bpf_"), frames
    two = [l.strip() for l in lines[i + 1:] if re.match(r"^ {14}\S", l)]
    assert two == frames[:2], p.stdout


def test_ustack_action_names_the_callers(sonde, root, ufixture_bin):
    """ustack(); as a statement in a pid probe, between two printf()s: the
    frames (named by readelf's symbols: uf_leaf, uf_outer, calls,
    main) print between them; ustack(1) keeps one frame."""
    p = dtrace(sonde, "-q", "-c", ufixture_bin + " wait 10 1 3000", "-n",
               "pid$target:a.out:uf_leaf:entry { printf(\"<\"); ustack();"
               " printf(\">\"); ustack(1); exit(0); }")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert out.startswith("<\n"), out
    body, rest = out[2:].split(">", 1)
    frames = [l.strip() for l in body.split("\n") if l.strip()]
    syms = set()
    for l in run(["readelf", "-sW", ufixture_bin]).stdout.splitlines():
        w = l.split()
        if len(w) >= 8 and w[3] == "FUNC":
            syms.add(w[7])
    got = [re.match(r"^ufixture`(\w+)(?:\+0x[0-9a-f]+)?$", f)
           for f in frames]
    names = [m.group(1) for m in got if m]
    assert names[:4] == ["uf_leaf", "uf_outer", "calls", "main"], frames
    assert all(n in syms for n in names)
    assert frames[0] == "ufixture`uf_leaf"
    one = [l.strip() for l in rest.split("\n") if l.strip()]
    assert one == ["ufixture`uf_leaf"], out


def test_stack_in_printf_k(sonde, root, fixture_bin):
    """printf's %k prints a stack as the stack action does (the oracle:
    stack(); in the same clause, itself checked against kallsyms above):
    a newline, then a frame a line indented by 14; %-4k indents by 4;
    printa's %k prints a stack key the same way."""
    p = dtrace(sonde, "-q", "-c", fixture_bin + " getppid 5", "-n",
               "syscall::getppid:entry /pid == $target/ "
               "{ printf(\"<%k>\", stack()); stack(); "
               "printf(\"|%-4k|\", stack(2)); @[stack()] = count(); }"
               " END { printa(\"[%k %@d]\", @); }")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    first = out.split("|", 1)[0]
    m = re.match(r"^<\n((?: {14}\S+\n)+)>\n((?: {14}\S+\n)+)$", first)
    assert m, out
    assert m.group(1) == m.group(2), out
    frames = [l.strip() for l in m.group(1).splitlines()]
    assert frames[-1].startswith("vmlinux`entry_SYSCALL_64"), out
    two = "".join("    %s\n" % f for f in frames[:2])
    assert out.count("|\n" + two + "|") == 5, out
    agg = re.search(r"\[\n((?: {14}\S+\n)+) (\d+)\]", out)
    assert agg and agg.group(2) == "5", out
    assert agg.group(1) == m.group(1), out


def kallsyms_addr(name):
    """NAME's address in /proc/kallsyms (the oracle), core kernel only;
    the test is skipped when there is none."""
    with open("/proc/kallsyms") as f:
        for l in f:
            w = l.split()
            if w[2] == name and len(w) == 3 and int(w[0], 16):
                return int(w[0], 16)
    pytest.skip(f"no {name} in /proc/kallsyms")


def test_func_and_ufunc_are_sym_and_usym(sonde, root, ufixture_bin):
    """func() and ufunc() are DTrace's other names for sym() and usym():
    an address inside do_syscall_64 (from /proc/kallsyms) and one inside
    uf_leaf (the argument of uf_addr) name their functions."""
    addr = kallsyms_addr("do_syscall_64")
    p = dtrace(sonde, "-q", "-c", ufixture_bin + " addrs 1", "-n",
               "pid$target:a.out:uf_addr:entry { printf(\"%s|%s|%s\\n\","
               f" ufunc(arg0 + 3), usym(arg0 + 3), func({addr:#x} + 5)); }}")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[0] == ("ufixture`uf_leaf|ufixture`uf_leaf|"
                                       "vmlinux`do_syscall_64"), p.stdout


def test_stack_in_printf_is_refused(sonde):
    p = dtrace(sonde, "-e", "-n", "BEGIN { printf(\"%s\", stack()); }")
    assert p.returncode == 1  # a compile error, as dtrace(1)
    assert ("conversion: %s\n\t prototype: char [] or string (or use "
            "stringof)\n\t  argument: stack") in p.stderr


# ---- sym(), usym(), mod(), umod(), uaddr(), %a, %A ----

def nm_addrs(path):
    """Function symbols of path by nm (the oracle): name -> address."""
    out = {}
    for l in run(["nm", path]).stdout.splitlines():
        w = l.split()
        if len(w) == 3 and w[1] in "tT":
            out[w[2]] = int(w[0], 16)
    return out


def test_user_symbols(sonde, root, ufixture_bin):
    """usym/umod/uaddr/%A of uf_addr's argument (&uf_leaf, then
    &uf_middle + 3; nm has both functions) in the recording process;
    usym keys aggregate by symbol, uaddr keys by symbol and offset."""
    syms = nm_addrs(ufixture_bin)
    assert "uf_leaf" in syms and "uf_middle" in syms
    p = dtrace(sonde, "-q", "-c", ufixture_bin + " addrs 3", "-n",
               "pid$target:a.out:uf_addr:entry { printf(\"%A|%s|%s|%s\\n\","
               " arg0, usym(arg0), umod(arg0), uaddr(arg0));"
               " @s[usym(arg0 + 1)] = count(); @a[uaddr(arg0)] = count(); }"
               " END { printa(\"S %s %@d\\n\", @s);"
               " printa(\"A %s %@d\\n\", @a); }")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().split("\n")
    b = "ufixture"
    leaf = f"{b}`uf_leaf|{b}`uf_leaf|{b}|{b}`uf_leaf"
    mid = f"{b}`uf_middle+0x3|{b}`uf_middle|{b}|{b}`uf_middle+0x3"
    assert lines[:6] == [leaf, mid] * 3, p.stdout
    assert sorted(lines[6:]) == sorted([
        f"S {b}`uf_leaf 3", f"S {b}`uf_middle 3",
        f"A {b}`uf_leaf 3", f"A {b}`uf_middle+0x3 3"]), p.stdout


def test_kernel_symbols(sonde, root):
    """sym/mod/%a of addresses from /proc/kallsyms (the oracle), and of
    an address no symbol covers."""
    addr = kallsyms_addr("do_syscall_64")
    p = dtrace(sonde, "-q", "-n",
               f"BEGIN {{ printf(\"%a|%a|%s|%s|%a\\n\", {addr:#x}, "
               f"{addr:#x} + 5, sym({addr:#x} + 5), mod({addr:#x}), 16);"
               f" trace(sym({addr:#x} + 2)); @[sym({addr:#x} + 1)] ="
               f" count(); @[sym({addr:#x} + 2)] = count(); exit(0); }}")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[0] == ("vmlinux`do_syscall_64|vmlinux`do_syscall_64+0x5|"
                        "vmlinux`do_syscall_64|vmlinux|0x10"), p.stdout
    # trace() of a symbol: dtrace-utils' "  %-50s", quiet or not
    assert lines[1] == "  " + "vmlinux`do_syscall_64".ljust(50)
    assert re.search(r"^  vmlinux`do_syscall_64 +2$", p.stdout, re.M), \
        p.stdout


def test_symbols_in_variables_are_refused(sonde):
    p = dtrace(sonde, "-e", "-n", "BEGIN { x = sym(0); }")
    assert p.returncode == 1  # a compile error, as dtrace(1)
    assert "a symbol in a variable" in p.stderr
