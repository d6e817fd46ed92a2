# SPDX-License-Identifier: GPL-2.0-only
"""`sonde prof` against real threads: per-function shares against each
thread's own CLOCK_THREAD_CPUTIME_ID, totals against getrusage, the pprof
file read by `go tool pprof` (the oracle for the format and its content),
symbolization against eu-addr2line and readelf, and the process cases:
threads that predate the library, short threads, fork, exec, a program
with its own SIGPROF, and --kernel against /proc/kallsyms."""
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from conftest import SONDE, run, rust_build, rust_oracle

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "prof")


def libdir():
    build = os.environ.get("SONDE_BUILD") or os.path.dirname(SONDE)
    return os.path.join(build, "src", "prof")


@pytest.fixture(scope="session")
def bins(tmp_path_factory):
    """The fixtures, built without frame pointers (-O2 omits them), so the
    stacks come from the CFI unwinder."""
    d = tmp_path_factory.mktemp("prof-bin")
    out = {}
    for name in ("accuracy", "scenarios"):
        exe = str(d / name)
        p = run(["gcc", "-O2", "-g", "-pthread", "-o", exe,
                 os.path.join(FIXTURES, name + ".c"), "-ldl"])
        assert p.returncode == 0, p.stderr
        out[name] = exe
    return out


@pytest.fixture(scope="session")
def go_pprof():
    if not shutil.which("go"):
        pytest.skip("go tool pprof (golang-go) is not installed")
    return ["go", "tool", "pprof"]


def pprof_run(go_pprof, *args):
    p = run(go_pprof + list(args), timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "": 1}


def value(cell):
    m = re.fullmatch(r"([\d.]+)(ns|us|ms|s|)", cell)
    assert m, cell
    return float(m.group(1)) * UNITS[m.group(2)]


def top(go_pprof, path, index="cpu", *extra):
    """go tool pprof -top: {function: (flat, cum)} and the total, in ns for
    cpu and in samples for samples."""
    out = pprof_run(go_pprof, "-top", "-nodecount=100000", *extra,
                    "-sample_index=" + index, path)
    rows, total = {}, None
    for line in out.splitlines():
        m = re.search(r"Total samples = (\S+)", line)
        if m:
            total = value(m.group(1))
        m = re.match(r"\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.+?)"
                     r"( \(inline\))?$", line)
        if m and m.group(1)[0].isdigit():
            rows[m.group(3)] = (value(m.group(1)), value(m.group(2)))
    assert total is not None, out
    return rows, total


def truth(path):
    funcs, rusage = {}, None
    for line in open(path):
        f = line.split()
        if f[0] == "rusage":
            rusage = int(f[1])
        else:
            funcs[f[0]] = {"ns": int(f[1]), "tid": int(f[2]), "thread": f[3]}
    return funcs, rusage


def prof(*args, timeout=120, **kw):
    return run([SONDE, "prof"] + list(args), timeout=timeout, **kw)


def kernel_mode_or_skip():
    if os.geteuid() != 0:
        pytest.skip("--kernel needs root")


@pytest.mark.parametrize("mode,hz", [("timer", 100), ("timer", 1000),
                                     ("kernel", 1000)])
def test_accuracy(bins, go_pprof, tmp_path, mode, hz):
    """Two threads burning 3:1 in work_a and work_b, a mostly sleeping one
    in work_c: each function's share of the profile within 2 points of its
    thread's share of the process CPU, by the threads' own clocks; the total
    sampled CPU within 5 % of getrusage; the program's exit status, stdout
    and stderr untouched."""
    if mode == "kernel":
        kernel_mode_or_skip()
    plain = run([bins["accuracy"], str(tmp_path / "plain.txt"), "50", "20",
                 "10"])
    out, tf = str(tmp_path / "acc.pb.gz"), str(tmp_path / "truth.txt")
    args = ["-F", str(hz), "-o", out] + (["--kernel"] if mode == "kernel"
                                         else [])
    # The kernel checks POSIX CPU timers at its tick (4 ms at HZ=250). On a
    # loaded machine a woken thread often starts right after a tick (when
    # the running task is preempted); one that then runs less than a tick
    # and sleeps again is never seen by a tick, and its timer never fires:
    # with 2 ms bursts, runs here at load 3 on 2 CPUs sampled 0 of the
    # sleepy thread's 90 ms. That is the kernel's timer, not sonde, so with
    # timers the sleepy thread's bursts are longer than a tick (6 ms every
    # 30 ms); --kernel (high-resolution perf timers) takes 2 ms bursts.
    burst = ["6", "30"] if mode == "timer" else ["2", "20"]
    p = prof(*args, "--", bins["accuracy"], tf, "2100", "700", "90", *burst)
    if mode == "kernel" and "cannot open a task-clock perf event" in p.stderr:
        pytest.skip(p.stderr.strip())
    assert p.returncode == 3 == plain.returncode
    assert p.stdout == plain.stdout
    assert p.stderr == plain.stderr
    funcs, rusage = truth(tf)
    rows, total = top(go_pprof, out)
    print(f"{mode} {hz} Hz: sampled {total / 1e6:.0f} ms, "
          f"rusage {rusage / 1e6:.0f} ms")
    for fn, t in funcs.items():
        share = 100.0 * rows[fn][1] / total
        want = 100.0 * t["ns"] / rusage
        print(f"  {fn}: profile {share:.2f} %, thread clock {want:.2f} %")
        assert abs(share - want) <= 2.0, (fn, share, want)
    assert abs(total - rusage) <= 0.05 * rusage, (total, rusage)
    # Each thread, by its tid label, carries its own CPU time (within 5 %
    # or two periods), and its name.
    tags = pprof_run(go_pprof, "-tags", out)
    for fn, t in funcs.items():
        m = re.search(r"^\s*(\S+) \(\s*[\d.]+%\): " + str(t["tid"]) + "$",
                      tags, re.M)
        assert m, (t, tags)
        assert re.search(r"^\s*\S+ \(\s*[\d.]+%\): " + t["thread"] + "$",
                         tags, re.M), (t["thread"], tags)
        # With timers, the sleepy thread's own total is not checked: even
        # 6 ms bursts lost up to a third of its samples to the tick at load
        # 3 here (its share stays within the 2 points asserted above).
        if mode == "timer" and fn == "work_c":
            continue
        # With perf events: the hrtimer behind the task clock skips the
        # periods it fires late by (hrtimer_forward), which on this loaded
        # VM cost the sleepy thread up to 4.9 ms of 92 in 1 run of 8.
        slack = (2 if mode == "timer" else 6) * 1e9 / hz
        assert abs(value(m.group(1)) - t["ns"]) <= max(0.05 * t["ns"],
                                                     slack), (fn, t)


def folded_from_traces(text):
    """go tool pprof -traces (leaf first, labels first) as folded stacks."""
    stacks = {}
    for block in text.split("-----------+")[1:]:
        frames, count = [], None
        for line in block.splitlines()[1:]:
            if re.match(r"^\s+\w+:\s", line):
                continue        # a label line
            m = re.match(r"^\s+(\d+)\s+(.+)$", line)
            if m and count is None:
                count = int(m.group(1))
                frames.append(m.group(2))
            elif line.strip():
                frames.append(line.strip())
        if count is None:
            continue
        frames = [re.sub(r" \(inline\)$", "", f) for f in frames]
        key = ";".join(reversed(frames))
        stacks[key] = stacks.get(key, 0) + count
    return stacks


def test_pprof_readers_agree(bins, go_pprof, tmp_path):
    """go tool pprof names the hot functions of the file; its stacks, folded,
    are exactly sonde's folded output of the same file; the table's threads
    are the profile's."""
    out = str(tmp_path / "p.pb.gz")
    p = prof("-o", out, "--", bins["accuracy"], str(tmp_path / "t"),
             "400", "150", "60")
    assert p.returncode == 3, p.stderr
    rows, total = top(go_pprof, out, "samples")
    for fn in ("work_a", "work_b", "work_c", "spin", "run", "start_thread"):
        assert fn in rows, (fn, rows)
    traces = pprof_run(go_pprof, "-traces", "-sample_index=samples", out)
    mine = {}
    f = prof("-i", out, "--format", "folded")
    assert f.returncode == 0, f.stderr
    for line in f.stdout.splitlines():
        stack, n = line.rsplit(" ", 1)
        mine[stack] = int(n)
    assert mine == folded_from_traces(traces)
    assert sum(mine.values()) == total
    t = prof("-i", out)
    assert t.returncode == 0, t.stderr
    assert re.search(r"^work_a\s+\| accuracy\.c\s+\|", t.stdout, re.M), t.stdout
    assert re.search(r"^# " + str(int(total)) + " samples, ", t.stdout,
                     re.M), t.stdout


def elf_loads(path):
    """PT_LOAD (offset, vaddr, filesz) of an ELF file, from readelf."""
    out = run(["readelf", "-lW", path]).stdout
    loads = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    return loads


def build_id(path):
    m = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", path]).stdout)
    return m.group(1) if m else ""


def raw_profile(go_pprof, path):
    """Locations (id -> address, mapping, [(func, file, line)]) and mappings
    (id -> start, limit, offset, file, build-id) from go tool pprof -raw."""
    out = pprof_run(go_pprof, "-raw", path)
    locs, maps, cur, section = {}, {}, None, None
    for line in out.splitlines():
        if line in ("Locations", "Mappings"):
            section = line
            continue
        if section == "Locations":
            m = re.match(r"^\s*(\d+): 0x([0-9a-f]+) M=(\d+) (\S+) (\S*):(\d+)",
                         line)
            if m:
                cur = int(m.group(1))
                locs[cur] = {"addr": int(m.group(2), 16),
                             "map": int(m.group(3)),
                             "lines": [(m.group(4), m.group(5),
                                        int(m.group(6)))]}
                continue
            m = re.match(r"^\s+(\S+) (\S*):(\d+)", line)
            if m and cur:
                locs[cur]["lines"].append((m.group(1), m.group(2),
                                           int(m.group(3))))
        elif section == "Mappings":
            m = re.match(r"^(\d+): 0x([0-9a-f]+)/0x([0-9a-f]+)/0x([0-9a-f]+) "
                         r"(\S+) ?([0-9a-f]*)", line)
            if m:
                maps[int(m.group(1))] = (int(m.group(2), 16),
                                         int(m.group(3), 16),
                                         int(m.group(4), 16), m.group(5),
                                         m.group(6))
    return locs, maps


def test_symbols_match_eu_addr2line(bins, go_pprof, tmp_path):
    """Every location in the program's own binary has the function, file:line
    and inline chain eu-addr2line -f -i gives for its address; the mapping
    carries the binary's build-id; the inlined hot loop is named."""
    out = str(tmp_path / "i.pb.gz")
    exe = bins["scenarios"]
    p = prof("-o", out, "--", exe, "inline", str(tmp_path / "t"))
    assert p.returncode == 0, p.stderr
    locs, maps = raw_profile(go_pprof, out)
    mine = [m for m, v in maps.items() if v[3] == exe]
    assert mine, maps
    assert maps[mine[0]][4] == build_id(exe)
    loads = elf_loads(exe)
    checked = 0
    for loc in locs.values():
        if loc["map"] != mine[0]:
            continue
        start, _, off, _, _ = maps[loc["map"]]
        foff = loc["addr"] - start + off
        vaddr = next(foff - o + v for o, v, sz in loads if o <= foff < o + sz)
        a2l = run(["eu-addr2line", "-f", "-i", "-e", exe, hex(vaddr)]).stdout
        lines = a2l.strip().split("\n")
        # "f inlined at file:line:col in g": the function is the first word.
        # No line information: eu-addr2line says ??:0, pprof :0.
        want = [(lines[i].split()[0], re.sub(r"^\?\?:0$", ":0", lines[i + 1]))
                for i in range(0, len(lines), 2)]
        got = [(fn, f"{f}:{ln}") for fn, f, ln in loc["lines"]]
        # eu-addr2line prints "func" and "file:line[:col]"; no column here.
        want = [(fn, re.sub(r":\d+:\d+$", lambda m: ":" + m.group(0).split(":")[1],
                            fl)) for fn, fl in want]
        assert got == want, (hex(vaddr), got, want)
        checked += 1
    assert checked >= 3
    rows, _ = top(go_pprof, out)
    assert "inlined_mix" in rows and "inline_caller" in rows, rows
    assert rows["inlined_mix"][1] >= 0.5 * rows["inline_caller"][1]


def tids_of(go_pprof, path):
    tags = pprof_run(go_pprof, "-tags", path)
    part = tags.split(" tid:")[1] if " tid:" in tags else ""
    return {int(m.group(2)): value(m.group(1)) for m in
            re.finditer(r"^\s*(\S+) \(\s*[\d.]+%\): (\d+)$", part, re.M)}


def test_threads_before_the_library(bins, go_pprof, tmp_path):
    """Threads already running when libsonde-prof.so initializes (here it
    is dlopen'ed late) get their own timers: both show, with their time."""
    out = str(tmp_path / "e.pb.gz")
    env = dict(os.environ, SONDE_PROF=out)
    p = run([bins["scenarios"], "preexisting", str(tmp_path / "t"),
             os.path.join(libdir(), "libsonde-prof.so")], env=env)
    assert p.returncode == 0, p.stderr
    rows, total = top(go_pprof, out)
    assert rows["early_thread_work"][1] >= 100e6, rows
    tids = tids_of(go_pprof, out)
    assert len(tids) == 3, tids     # main and the two early threads


def test_short_threads(bins, go_pprof, tmp_path):
    """60 threads of 15 ms CPU each, one after the other, at 100 Hz: shorter
    than two periods each, yet with the first expiry random within the
    first period their sum is sampled near its true 900 ms."""
    out = str(tmp_path / "s.pb.gz")
    p = prof("-o", out, "--", bins["scenarios"], "short", str(tmp_path / "t"),
             "60", "15")
    assert p.returncode == 0, p.stderr
    rows, total = top(go_pprof, out)
    sampled = rows["short_thread_work"][1]
    # The kernel checks CPU timers at its tick (HZ=250 here): an expiry in
    # a thread's last tick is lost with the thread, so allow 20 %.
    assert 0.8 * 900e6 <= sampled <= 1.1 * 900e6, sampled
    assert len(tids_of(go_pprof, out)) >= 30


def test_fork_writes_a_file_per_process(bins, go_pprof, tmp_path):
    out = str(tmp_path / "f.pb.gz")
    tf = str(tmp_path / "t")
    p = prof("-o", out, "--", bins["scenarios"], "fork", tf)
    assert p.returncode == 0, p.stderr
    child = int(open(tf).read().split()[1])
    child_out = str(tmp_path / f"f.{child}.pb.gz")
    assert os.path.exists(child_out), os.listdir(tmp_path)
    parent, _ = top(go_pprof, out)
    kid, _ = top(go_pprof, child_out)
    assert "parent_work" in parent and "child_work" not in parent, parent
    assert "child_work" in kid and "parent_work" not in kid, kid
    # These tests check which file holds what; accuracy is test_accuracy's.
    # Within 25 %: on this loaded, shared VM the tick-driven timers lose
    # some of a thread's short slices.
    assert abs(kid["child_work"][1] - 300e6) <= 75e6, kid
    assert abs(parent["parent_work"][1] - 300e6) <= 75e6, parent
    # The directory merged into one profile holds both processes.
    merged = str(tmp_path / "merged.pprof")
    p = prof("-i", str(tmp_path), "--format", "pprof", "-o", merged)
    assert p.returncode == 0, p.stderr
    both, total = top(go_pprof, merged)
    assert "parent_work" in both and "child_work" in both, both
    assert total == pytest.approx(top(go_pprof, out)[1] +
                                  top(go_pprof, child_out)[1])


def test_exec_keeps_both_images(bins, go_pprof, tmp_path):
    """The image before an exec writes its samples; the image after merges
    them into the same file."""
    out = str(tmp_path / "x.pb.gz")
    p = prof("-o", out, "--", bins["scenarios"], "exec", str(tmp_path / "t"))
    assert p.returncode == 0, p.stderr
    assert p.stdout == "exec2: done\n"
    rows, total = top(go_pprof, out)
    assert abs(rows["pre_exec_work"][1] - 200e6) <= 50e6, rows
    assert abs(rows["post_exec_work"][1] - 300e6) <= 75e6, rows


def test_vfork_children(bins, go_pprof, tmp_path):
    """vfork children share the parent's memory until they exec: the
    library must leave the parent's samples alone there (the exec'd
    /bin/true writes nothing: no samples)."""
    out = str(tmp_path / "v.pb.gz")
    p = prof("-o", out, "--", bins["scenarios"], "vfork", str(tmp_path / "t"))
    assert p.returncode == 0, p.stderr
    assert p.stdout == "vfork: done\n"
    rows, _ = top(go_pprof, out)
    assert abs(rows["vfork_parent_work"][1] - 200e6) <= 50e6, rows
    # A /bin/true that got a sample writes its own v.PID.pb.gz; none holds
    # the parent's samples.
    for f in os.listdir(tmp_path):
        if f not in ("t", "v.pb.gz"):
            assert re.fullmatch(r"v\.\d+\.pb\.gz", f), f
            assert "vfork_parent_work" not in top(go_pprof,
                                                  str(tmp_path / f))[0]


def test_program_with_its_own_sigprof(bins, go_pprof, tmp_path):
    """The program installs a SIGPROF handler and arms ITIMER_PROF: sonde
    steps aside and says so; the program's handler gets its signals; the
    profile covers the time before."""
    out = str(tmp_path / "g.pb.gz")
    tf = str(tmp_path / "t")
    p = prof("-o", out, "--", bins["scenarios"], "sigprof", tf)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "sigprof: done\n"
    assert re.fullmatch(r"sonde prof: the program installed its own SIGPROF "
                        r"handler after [\d.]+ s: .*\n", p.stderr), p.stderr
    own = int(open(tf).read().split()[1])
    assert own >= 15, own           # ITIMER_PROF at 100 Hz over 300 ms
    rows, _ = top(go_pprof, out)
    assert abs(rows["before_handler_work"][1] - 300e6) <= 75e6, rows
    assert "after_handler_work" not in rows, rows


def test_thread_blocking_sigprof_is_reported(bins, tmp_path):
    """A thread that blocks SIGPROF cannot be sampled: sonde says so rather
    than showing a profile that silently lacks it."""
    out = str(tmp_path / "b.pb.gz")
    p = prof("-o", out, "--", bins["scenarios"], "blocked", str(tmp_path / "t"))
    assert p.returncode == 0
    assert p.stdout == "blocked: done\n"
    assert p.stderr == ("sonde prof: 1 thread(s) had SIGPROF blocked when they "
                        "ended: a thread is not sampled while it blocks "
                        "SIGPROF\n"), p.stderr


def test_kernel_frames(bins, go_pprof, tmp_path):
    """--kernel: per-thread perf events with kernel call chains; the kernel
    functions are /proc/kallsyms names and sit above the user frames."""
    kernel_mode_or_skip()
    src = tmp_path / "rw.c"
    src.write_text("#include <fcntl.h>\n#include <unistd.h>\n"
                   "int main(void) { char b[1]; int z = open(\"/dev/zero\", "
                   "O_RDONLY), n = open(\"/dev/null\", O_WRONLY);\n"
                   "for (long i = 0; i < 400000; i++) { if (read(z, b, 1) < 0"
                   " || write(n, b, 1) < 0) return 1; }\nreturn 0; }\n")
    exe = str(tmp_path / "rw")
    assert run(["gcc", "-O2", "-g", "-o", exe, str(src)]).returncode == 0
    out = str(tmp_path / "k.pb.gz")
    p = prof("--kernel", "-o", out, "--", exe)
    if "cannot open a task-clock perf event" in p.stderr:
        pytest.skip(p.stderr.strip())
    assert p.returncode == 0, p.stderr
    rows, total = top(go_pprof, out)
    names = set()
    for line in open("/proc/kallsyms"):
        names.add(line.split()[2])
    kernel = [fn for fn in rows if fn in names and fn not in ("read", "write")]
    assert any(re.match(r"(ksys|vfs)_(read|write)$", fn) for fn in kernel), rows
    folded = prof("-i", out, "--format", "folded").stdout
    # A kernel function is called from the user-space read/write.
    assert re.search(r";(__)?(read|write|__libc_read|__libc_write)(;[^; ]+)*"
                     r";(ksys|vfs)_(read|write)", folded), folded[:2000]


def test_cli_errors(bins, tmp_path):
    p = prof()
    assert p.returncode == 2 and "no command to profile" in p.stderr
    p = prof("-F", "0", "--", "true")
    assert p.returncode == 2 and "bad frequency" in p.stderr
    p = prof("--format", "svg", "--", "true")
    assert p.returncode == 2 and "unknown format" in p.stderr
    p = prof("--", str(tmp_path / "no-such-program"))
    assert p.returncode == 127
    assert p.stderr.startswith("sonde prof: cannot run "), p.stderr
    bad = tmp_path / "bad.pb.gz"
    bad.write_bytes(b"\x01\x02not a profile")
    p = prof("-i", str(bad))
    assert p.returncode == 1 and "not a pprof profile" in p.stderr, p.stderr


def test_exit_by_signal_passes_through(tmp_path):
    """A command killed by a signal kills sonde prof the same way, and its
    profile is still written (from the raw dump its handler left)."""
    out = str(tmp_path / "k.pb.gz")
    p = prof("-o", out, "--", "sh", "-c", "kill -TERM $$")
    assert p.returncode == -15
    assert p.stderr == ""
    assert os.path.exists(out) and not os.path.exists(out + ".raw")
    p = prof("-o", str(tmp_path / "k9.pb.gz"), "--", "sh", "-c",
             "kill -KILL $$")
    assert p.returncode == -9
    assert "no profile was written" in p.stderr


FOREVER = """
#include <stdint.h>
static volatile uint64_t s;
__attribute__((noinline)) void forever_work(void) { for (;;) s++; }
int main(void) { forever_work(); return 0; }
"""


def session_cpu_ns(sid, comm):
    """User + system CPU time of the process named comm in session sid."""
    tick = os.sysconf("SC_CLK_TCK")
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        name = st[st.index("(") + 1:st.rindex(")")]
        f = st[st.rindex(")") + 2:].split()
        # Fields after comm: state is f[0]; session f[3]; utime f[11], stime f[12].
        if name == comm and int(f[3]) == sid:
            return (int(f[11]) + int(f[12])) * 1e9 / tick
    raise AssertionError(f"no {comm} in session {sid}")


def test_ctrl_c_still_writes(go_pprof, tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it):
    the program dies by SIGINT as it would, sonde prof too, and the profile
    holds the time until then."""
    src = tmp_path / "forever.c"
    src.write_text(FOREVER)
    exe = str(tmp_path / "forever")
    assert run(["gcc", "-O2", "-g", "-o", exe, str(src)]).returncode == 0
    out = str(tmp_path / "c.pb.gz")
    p = subprocess.Popen([SONDE, "prof", "-o", out, "--", exe],
                         start_new_session=True, stderr=subprocess.PIPE,
                         text=True)
    try:
        time.sleep(0.8)
        # The CPU time the program has had so far (on a loaded machine it
        # is well below the 0.8 s of wall time): the profile must hold at
        # least most of it.
        used = session_cpu_ns(p.pid, "forever")
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        # a failure above must not leave the spinning program behind
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert p.returncode == -signal.SIGINT
    assert err == ""
    rows, total = top(go_pprof, out)
    assert used >= 100e6, used
    assert rows["forever_work"][1] >= 0.9 * total and total >= 0.8 * used, \
        (rows, used)

    # Without the launcher the raw dump stays, and sonde prof -i reads it.
    out2 = str(tmp_path / "d.pb.gz")
    env = dict(os.environ, SONDE_PROF=out2,
               LD_PRELOAD=os.path.join(libdir(), "libsonde-prof.so"))
    q = subprocess.Popen([exe], env=env)
    time.sleep(0.5)
    q.send_signal(signal.SIGTERM)
    assert q.wait(timeout=60) == -signal.SIGTERM
    assert os.path.exists(out2 + ".raw") and not os.path.exists(out2)
    t = prof("-i", out2 + ".raw", "--format", "folded")
    assert t.returncode == 0, t.stderr
    assert "forever_work" in t.stdout


def test_table_and_folded_to_stdout(bins, tmp_path):
    p = prof("--format", "table", "-n", "5", "--", bins["accuracy"],
             str(tmp_path / "t"), "200", "100", "10")
    assert p.returncode == 3
    lines = p.stdout.split("\n")
    assert lines[:2] == ["accuracy: starting", "accuracy: done"]
    assert lines[2].startswith("Function ") and "Self share" in lines[2]
    assert len([l for l in lines if re.match(r"^\S.*\| .*%$", l)]) >= 5
    p = prof("--format", "folded", "--", bins["accuracy"], str(tmp_path / "t"),
             "200", "100", "10")
    assert p.returncode == 3
    stacks = [l for l in p.stdout.split("\n")[2:] if l]
    assert stacks and all(re.fullmatch(r"\S.* \d+", l) for l in stacks)
    assert any(";work_a;spin" in l for l in stacks), stacks


@pytest.mark.parametrize("scheme", ["legacy", "v0"])
def test_rust_names_demangled(go_pprof, tmp_path, scheme):
    """A Rust program built at test time (tests/e2e/prof/spin.rs) spending
    its time in <spin::Spinner<u64>>::spin: in the pprof file the function's
    name is readable as llvm-cxxfilt or c++filt print it and its
    system_name is the symbol nm lists, read back by go tool pprof with its
    own demangling off (-symbolize=none), so what is checked is what sonde
    wrote. Every other Rust function (std's, inlined ones named by their
    DWARF linkage name) reads as the demanglers print its system_name. The
    table and folded views show the readable names too."""
    exe, sym, want = rust_build(tmp_path, scheme)

    out = str(tmp_path / "r.pb.gz")
    p = prof("-o", out, "--", exe, "2000000000")
    assert p.returncode == 0, p.stderr
    raw = pprof_run(go_pprof, "-raw", "-symbolize=none", out)
    # "name file:line s=start(system_name)": the name differs from the
    # system name, so go tool pprof prints the latter in parentheses.
    assert re.search(r"\s" + re.escape(want) + r" \S*spin\.rs:\d+ s=\d+\(" +
                     re.escape(sym) + r"\)", raw), raw
    assert sym not in raw.replace("(" + sym + ")", ""), raw
    fns = set()
    for line in raw.split("\nMappings")[0].splitlines():
        m = re.match(r"^\s+(?:\d+: 0x[0-9a-f]+ M=\d+ )?(.+) \S*:\d+ s=\d+"
                     r"\((_R\S+|_ZN\S+)\)$", line)
        if m and "." not in m.group(2):
            fns.add((m.group(1), m.group(2)))
    # main, std's start-up, and the functions inlined into spin (std's
    # are legacy-mangled even in a v0 build)
    assert len(fns) >= 4, raw
    names = rust_oracle([s for _, s in fns])
    assert all(n == names[s] for n, s in fns), \
        [(n, names[s]) for n, s in fns if n != names[s]]
    assert any(n.startswith("core::ptr::") for n, _ in fns), fns
    rows, total = pprof_top(go_pprof, out)
    assert rows[want][1] >= 0.9 * total, (want, rows)

    table = prof("-i", out, "--format", "table")
    assert table.returncode == 0, table.stderr
    assert re.search(r"^" + re.escape(want) + r" +\| spin\.rs ",
                     table.stdout, re.M), table.stdout
    folded = prof("-i", out, "--format", "folded")
    assert folded.returncode == 0, folded.stderr
    hot = [l for l in folded.stdout.splitlines() if ";" + want + ";" in l]
    assert sum(int(l.rsplit(" ", 1)[1]) for l in hot) >= 0.9 * sum(
        int(l.rsplit(" ", 1)[1]) for l in folded.stdout.splitlines()), \
        folded.stdout


def pprof_top(go_pprof, path):
    """top() with go tool pprof's own demangling off."""
    return top(go_pprof, path, "cpu", "-symbolize=none")


def test_reports_under_asan(bins, tmp_path):
    """The pprof reader and the reports, in the ASan/UBSan build."""
    asan = os.environ.get("SONDE_ASAN")
    if not asan or not os.access(asan, os.X_OK):
        pytest.skip("no ASan build (SONDE_ASAN; make test sets it)")
    out = str(tmp_path / "a.pb.gz")
    p = prof("-o", out, "--", bins["scenarios"], "inline", str(tmp_path / "t"))
    assert p.returncode == 0, p.stderr
    for fmt in ("table", "folded"):
        a = run([asan, "prof", "-i", out, "--format", fmt])
        assert a.returncode == 0 and a.stderr == "", a.stderr
        assert "inline_caller" in a.stdout
    bad = tmp_path / "cut.pb.gz"
    bad.write_bytes(open(out, "rb").read()[:-40])
    a = run([asan, "prof", "-i", str(bad)])
    assert a.returncode == 1 and "AddressSanitizer" not in a.stderr, a.stderr


# ---- outputs: checked before the run, never destroyed, said once ----

@pytest.mark.parametrize("args", [
    ["-o", "/nonexistent/p.pb.gz"],
    ["--svg", "/nonexistent/p.svg"],
    ["--format", "folded", "-o", "/proc/version"],
])
def test_output_errors_fail_before_running(tmp_path, args):
    """A bad output path fails with one line and exit 1 in under 100 ms of
    CPU (wall time is the machine's load), and the command never runs (it
    would create a file, then sleep 30 s)."""
    import resource
    marker = tmp_path / "ran"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = prof(*args, "--", "sh", "-c", f"touch {marker}; sleep 30")
    took = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime +
                                               before.ru_stime)
    assert p.returncode == 1, p.stderr
    assert cpu < 0.1 and took < 2, (cpu, took)
    lines = p.stderr.strip().split("\n")
    assert len(lines) == 1 and lines[0].startswith("sonde prof: cannot write"), \
        p.stderr
    assert not marker.exists()


def pty_run(args):
    """Run with stderr on a terminal: (exit status, what the terminal got)."""
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave)
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
    return p.wait(timeout=120), tty.decode(errors="replace").replace("\r", "")


def test_says_what_it_wrote(bins, go_pprof, tmp_path):
    """On a terminal, `sonde prof: wrote FILE (N samples, M threads, K KB)`
    as perf record says it: N and M as go tool pprof counts samples and
    tid labels, K the file's size; -q says nothing; without a terminal
    nothing is said (stderr stays the program's)."""
    out = str(tmp_path / "w.pb.gz")
    rc, tty = pty_run([SONDE, "prof", "-o", out, "--", bins["accuracy"],
                       str(tmp_path / "t"), "300", "100", "10"])
    assert rc == 3, tty
    m = re.search(r"^sonde prof: wrote (\S+) \((\d+) samples, (\d+) threads?, "
                  r"(\d+) KB\)$", tty, re.M)
    assert m, tty
    assert m.group(1) == out
    _, samples = top(go_pprof, out, "samples")
    assert int(m.group(2)) == samples
    tids = pprof_run(go_pprof, "-tags",
                     "-sample_index=samples", out)
    ntids = len(re.findall(r"^\s+\S+ \(\s*[\d.]+%\): \d+$",
                           tids.split(" tid:")[1], re.M))
    assert int(m.group(3)) == ntids, tids
    assert int(m.group(4)) == (os.path.getsize(out) + 1023) // 1024
    rc, tty = pty_run([SONDE, "prof", "-q", "-o", out, "--", bins["accuracy"],
                       str(tmp_path / "t"), "100", "50", "10"])
    assert rc == 3 and "wrote" not in tty, tty


def test_svg_flame_graph(bins, tmp_path):
    """--svg FILE draws hot's flame graph of the run: well-formed XML with
    the hottest function in it; -i FILE --svg draws any profile."""
    import xml.etree.ElementTree as ET
    out, svg = str(tmp_path / "s.pb.gz"), str(tmp_path / "s.svg")
    p = prof("-o", out, "--svg", svg, "--", bins["accuracy"],
             str(tmp_path / "t"), "300", "100", "10")
    assert p.returncode == 3, p.stderr
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    assert "work_a" in open(svg).read()
    svg2 = str(tmp_path / "i.svg")
    p = prof("-i", out, "--svg", svg2)
    assert p.returncode == 0 and p.stdout == "", p.stderr
    ET.parse(svg2)
    assert "work_a" in open(svg2).read()


def test_devices_and_links_are_written_through(tmp_path):
    """-o never renames over what is not a regular file: a replica of
    /dev/null stays a device, a symlink to /dev/stdout stays a link (the
    profile goes to stdout), /dev/full fails with one message and the
    command's status passes through."""
    if os.geteuid() != 0:
        pytest.skip("mknod needs root")
    null = tmp_path / "null"
    os.mknod(null, 0o666 | 0o020000, os.makedev(1, 3))
    p = prof("-o", str(null), "--", "sh", "-c", "exit 6")
    assert p.returncode == 6, p.stderr
    assert os.stat(null).st_rdev == os.makedev(1, 3)
    assert (os.stat(null).st_mode & 0o170000) == 0o020000
    link = tmp_path / "out"
    link.symlink_to("/dev/stdout")
    p = subprocess.run([SONDE, "prof", "-o", str(link), "--", "sh", "-c",
                        "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"],
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout[:2] == b"\x1f\x8b"      # gzip, through the link
    assert os.path.islink(link) and os.readlink(link) == "/dev/stdout"
    p = prof("-o", "/dev/full", "--", "sh", "-c", "exit 6")
    assert p.returncode == 6
    m = re.fullmatch(r"sonde prof: cannot write /dev/full: No space left on "
                     r"device; the profile is in (\S+)\n", p.stderr)
    assert m, p.stderr
    assert open(m.group(1), "rb").read(2) == b"\x1f\x8b"
    shutil.rmtree(os.path.dirname(m.group(1)))


def test_fifo_nobody_reads_does_not_hold_the_exit(tmp_path):
    """-o on a FIFO whose reader never reads: the command exits with its
    own status within a second of its end, the profile kept and named."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # The reader holds the FIFO open (read-write, so its open never waits)
    # and never reads; prof starts once it has it open: with no reader at
    # all, prof's check before the run refuses the path (ENXIO).
    reader = subprocess.Popen(["sh", "-c", f"exec 3<>{fifo}; sleep 60"])
    try:
        deadline = time.monotonic() + 10
        while not os.path.exists(f"/proc/{reader.pid}/fd/3") and \
                time.monotonic() < deadline:
            time.sleep(0.01)
        t0 = time.monotonic()
        p = prof("-o", str(fifo), "--", "sh", "-c",
                 "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; "
                 "exit 6", timeout=60)
        took = time.monotonic() - t0
    finally:
        reader.kill()
        reader.wait()
    assert p.returncode == 6, p.stderr
    # the profile may fit in the pipe's buffer; if not, it is kept
    if p.stderr:
        m = re.fullmatch(r"sonde prof: cannot write \S+: Connection timed "
                         r"out; the profile is in (\S+)\n", p.stderr)
        assert m, p.stderr
        shutil.rmtree(os.path.dirname(m.group(1)))
    assert took < 30


def test_full_disk_keeps_the_profile(tmp_path):
    """-o on a full 2 MB tmpfs: one message naming where the profile is,
    exit 1 (the command's own status was 0)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs",
            str(mnt)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        with open(mnt / "fill", "wb") as f:
            try:
                f.write(b"\0" * (3 << 20))
            except OSError:
                pass
        p = prof("-o", str(mnt / "p.pb.gz"), "--", "sh", "-c",
                 "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done")
        assert p.returncode == 1, p.stderr
        m = re.fullmatch(r"sonde prof: cannot write \S+/p\.pb\.gz: No space "
                         r"left on device; the profile is in (\S+)\n",
                         p.stderr)
        assert m, p.stderr
        assert open(m.group(1), "rb").read(2) == b"\x1f\x8b"
        shutil.rmtree(os.path.dirname(m.group(1)))
        assert sorted(os.listdir(mnt)) == ["fill"]
    finally:
        run(["umount", str(mnt)])


def test_gzip_bomb_is_refused(tmp_path):
    """prof -i reads at most --input-max decompressed bytes (default 1 GiB):
    a 1.2 GiB gzip bomb is refused with one line, in bounded memory."""
    import zlib
    bomb = tmp_path / "bomb.pb.gz"
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"\0" * (16 << 20)
    with open(bomb, "wb") as f:
        for _ in range(77):                  # 1.2 GiB
            f.write(z.compress(chunk))
        f.write(z.flush())
    p = run(["sh", "-c", f"ulimit -v 1800000; exec {SONDE} prof -i {bomb}"],
            timeout=300)
    assert p.returncode == 1, p.stderr
    assert re.fullmatch(r"sonde prof: cannot read \S+: it decompresses to "
                        r"more than 1073741824 bytes \(a gzip bomb\? "
                        r"--input-max raises the limit\)\n", p.stderr), p.stderr
    p = prof("-i", str(bomb), "--input-max", "1M")
    assert p.returncode == 1 and "more than 1048576 bytes" in p.stderr


# ---- the program's behaviour is kept ----

def run_group(args, timeout=60):
    """run() in a process group of its own, killed whole on every path: a
    program sonde prof started must not outlive a failed or timed-out test
    (prof's launcher waits for it; killing the launcher alone orphans it)."""
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return subprocess.CompletedProcess(args, p.returncode, out, err)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def test_itimer_prof_program_dies_as_without_sonde(bins, go_pprof, tmp_path):
    """A program that arms ITIMER_PROF and leaves SIGPROF at its default
    dies by SIGPROF (exit 155 in a shell) under sonde prof as without it;
    sonde steps aside, says so once, and the profile of the time before is
    written."""
    out = str(tmp_path / "i.pb.gz")
    alone = run_group([bins["scenarios"], "itimer", str(tmp_path / "t")])
    assert alone.returncode == -signal.SIGPROF       # 128 + 27 in a shell
    p = run_group([SONDE, "prof", "-o", out, "--", bins["scenarios"],
                   "itimer", str(tmp_path / "t")])
    assert p.returncode == -signal.SIGPROF, p.stderr
    assert re.fullmatch(r"sonde prof: the program armed ITIMER_PROF after "
                        r"[\d.]+ s: sampling stopped there, .*\n", p.stderr), \
        p.stderr
    rows, _ = top(go_pprof, out)
    assert abs(rows["before_itimer_work"][1] - 300e6) <= 75e6, rows


def test_segfault_still_leaves_a_profile(bins, go_pprof, tmp_path):
    """A program that dies by SIGSEGV dies so (139) and its samples until
    then are written, by the crash-safe raw dump."""
    out = str(tmp_path / "s.pb.gz")
    p = prof("-o", out, "--", bins["scenarios"], "segv", str(tmp_path / "t"))
    assert p.returncode == -signal.SIGSEGV, p.stderr    # 139 in a shell
    assert p.stderr == ""
    rows, _ = top(go_pprof, out)
    assert abs(rows["before_crash_work"][1] - 300e6) <= 75e6, rows


def test_static_and_setuid_get_the_true_reason(tmp_path):
    """LD_PRELOAD cannot reach a static binary, nor a setuid one run by
    another user: said before running, exit 1."""
    src = tmp_path / "s.c"
    src.write_text("int main(void) { return 0; }\n")
    static = str(tmp_path / "static")
    if run(["gcc", "-static", "-o", static, str(src)]).returncode:
        pytest.skip("no static libc to link with")
    p = prof("--", static)
    assert p.returncode == 1
    assert p.stderr == (f"sonde prof: cannot profile {static}: it is "
                        "statically linked: there is no dynamic loader to "
                        "preload libsonde-prof.so with\n"), p.stderr
    if os.geteuid() != 0:
        return
    import tempfile
    d = tempfile.mkdtemp(prefix="sonde-suid-")     # reachable by nobody
    try:
        os.chmod(d, 0o755)
        suid = os.path.join(d, "suid")
        assert run(["gcc", "-o", suid, str(src)]).returncode == 0
        os.chmod(suid, 0o4755)
        p = run(["setpriv", "--reuid=65534", "--regid=65534",
                 "--clear-groups", "--", SONDE, "prof", "-o",
                 os.path.join(d, "never.pb.gz"), "--", suid])
        assert p.returncode == 1, p.stderr
        assert p.stderr.startswith(f"sonde prof: cannot profile {suid}: it "
                                   "is setuid or setgid"), p.stderr
    finally:
        shutil.rmtree(d)
