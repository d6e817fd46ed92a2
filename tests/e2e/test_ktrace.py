# SPDX-License-Identifier: GPL-2.0-only
"""sonde ktrace and sonde kdump against the real kernel: a program with
known behaviour (tests/e2e/ktrace/fixture.c) traced record by record for
every trace point, attaching with -p, inheritance, -t subsets, the syscall
sequence of `ls -la /` against strace -f, and kdump on truncated, foreign
and random files."""
import contextlib
import json
import os
import re
import signal
import struct
import subprocess
import time

import pytest

from conftest import SONDE, run

BUILD = os.environ.get("SONDE_BUILD") or os.path.dirname(SONDE)
FIXTURE = os.path.join(BUILD, "tests", "unit", "ktrace-fixture")
CONTENT = "sonde-ktrace-fixture data\n"
LINE = re.compile(r"^\s*(\d+) (\S+)\s+(CALL|RET|NAMI|GIO|PSIG|CSW|FORK|EXEC|"
                  r"EXIT|DROP)\s+(.*)$")


@pytest.fixture
def fixture():
    if not os.access(FIXTURE, os.X_OK):
        pytest.fail(f"no fixture at {FIXTURE}; build first (make)")
    return FIXTURE


@pytest.fixture
def data_file(tmp_path):
    p = tmp_path / "input.txt"
    p.write_text(CONTENT)
    return str(p)


def ktrace(args, out, timeout=60, **kw):
    return run([SONDE, "ktrace", "-f", str(out)] + args, timeout=timeout, **kw)


def kdump_json(out, *args):
    p = run([SONDE, "kdump", "-f", str(out), "--format", "json"] + list(args))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    head = json.loads(lines[0])
    assert head["format_version"] == 2
    return [json_times(json.loads(l)) for l in lines[1:]]


def json_times(r):
    """kdump's JSON carries 64-bit times as strings (schema 2): as
    integers here, for arithmetic."""
    for key in ("ts", "time_ns", "ret_ts"):
        if key in r:
            r[key] = int(r[key])
    return r


def kdump_text(out, *args):
    p = run([SONDE, "kdump", "-f", str(out)] + list(args))
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return p.stdout


def subsequence(records, preds):
    """Match predicates in order; returns the matched records."""
    found, i = [], 0
    for r in records:
        if i < len(preds) and preds[i](r):
            found.append(r)
            i += 1
    assert i == len(preds), (f"predicate {i} never matched after "
                             f"{found[-1] if found else None}")
    return found


def is_call(name):
    return lambda r: r["type"] == "CALL" and r["syscall"] == name


def is_ret(name, ret=None):
    return lambda r: (r["type"] == "RET" and r["syscall"] == name and
                      (ret is None or r["ret"] == ret))


def is_nami(path):
    return lambda r: r["type"] == "NAMI" and r["path"] == path


def traced_fixture(tmp_path, fixture, data_file, points=None):
    out = tmp_path / "ktrace.out"
    args = (["-t", points] if points else []) + ["--", fixture, data_file]
    p = ktrace(args, out)
    assert p.returncode == 7, p.stderr      # the command's exit status
    assert p.stdout == "fixture says hi\n"
    # One line of totals, nothing lost.
    assert re.fullmatch(r"sonde ktrace: \d+ records \(\d+ bytes\) in "
                        rf"{re.escape(str(out))}, 0 dropped\n", p.stderr), \
        p.stderr
    return out


def test_fixture_every_point(root, sonde, tmp_path, fixture, data_file):
    out = traced_fixture(tmp_path, fixture, data_file)
    assert os.stat(out).st_mode & 0o777 == 0o600
    recs = kdump_json(out)
    # The very first record is the command's execve.
    assert recs[0]["type"] == "CALL" and recs[0]["syscall"] == "execve"
    pid = recs[0]["pid"]
    parent = [r for r in recs if r["pid"] == pid]
    got = subsequence(parent, [
        is_call("execve"), is_nami(fixture),
        lambda r: r["type"] == "EXEC" and r["path"] == fixture and
        r["argv"] == [fixture, data_file],
        is_ret("execve", 0),
        is_call("openat"), is_nami(data_file),
        lambda r: r["type"] == "RET" and r["syscall"] == "openat" and
        r["ret"] >= 3,
        is_call("read"),
        lambda r: r["type"] == "GIO" and r["dir"] == "read" and
        bytes.fromhex(r["data_hex"]).decode() == CONTENT and
        r["bytes"] == len(CONTENT),
        is_ret("read", len(CONTENT)),
        is_call("close"), is_ret("close", 0),
        is_call("openat"), is_nami("/nonexistent/sonde-fixture"),
        lambda r: is_ret("openat", -2)(r) and r["error"] == "ENOENT",
        is_call("write"),
        lambda r: r["type"] == "GIO" and r["dir"] == "write" and
        r["fd"] == 1 and bytes.fromhex(r["data_hex"]) == b"fixture says hi\n",
        is_ret("write", 16),
        is_call("rt_sigaction"), is_ret("rt_sigaction", 0),
        is_call("tgkill"),
        lambda r: r["type"] == "PSIG" and r["name"] == "SIGUSR1" and
        r["event"] == "generated" and r["sender"] == pid,
        is_ret("tgkill", 0),
        lambda r: r["type"] == "PSIG" and r["name"] == "SIGUSR1" and
        r["event"] == "delivered" and r["handler"] > 1,
        is_call("rt_sigreturn"), is_ret("rt_sigreturn"),
        is_call("clone"),
        lambda r: r["type"] == "FORK" and not r["thread"],
        is_call("wait4"),
        is_call("exit_group"),
        lambda r: r["type"] == "EXIT" and r["wait_status"] == 7 << 8 and
        r["process_ended"],
    ])
    child = got[-4]["child_pid"]
    assert any(is_ret("clone", child)(r) for r in parent)
    # The child (inherited: -i is on with -- COMMAND) execs /bin/true.
    kid = [r for r in recs if r["pid"] == child]
    subsequence(kid, [
        is_call("execve"), is_nami("/bin/true"),
        lambda r: r["type"] == "EXEC" and r["argv"] == ["true", "fixture-arg"],
        is_ret("execve", 0),
        lambda r: r["type"] == "EXIT" and r["wait_status"] == 0,
    ])
    # Its SIGCHLD reaches the parent.
    assert any(r["type"] == "PSIG" and r["pid"] == pid and
               r["name"] == "SIGCHLD" and r["sender"] == child for r in recs)
    # Nothing of the tracer itself after the exec, nothing lost.
    assert {r["pid"] for r in recs} == {pid, child}
    assert not any(r["dropped_before"] or r["type"] == "DROP" for r in recs)


def test_fixture_text(root, sonde, tmp_path, fixture, data_file):
    """kdump's own lines, in the BSD layout."""
    out = traced_fixture(tmp_path, fixture, data_file)
    text = kdump_text(out)
    lines = text.splitlines()
    pid = LINE.match(lines[0]).group(1)
    i = lines.index(f"{pid:>6} ktrace-fixture NAMI  \"{data_file}\"")
    assert re.fullmatch(rf"{pid:>6} ktrace-fixture CALL  openat\(AT_FDCWD,"
                        r"0x[0-9a-f]+,0<O_RDONLY>\)", lines[i - 1])
    fd = int(re.fullmatch(rf"{pid:>6} ktrace-fixture RET   openat (\d+)",
                          lines[i + 1]).group(1))
    assert re.fullmatch(rf"{pid:>6} ktrace-fixture CALL  read\({fd:#x},"
                        r"0x[0-9a-f]+,0x100\)", lines[i + 2])
    assert lines[i + 3] == (f"{pid:>6} ktrace-fixture GIO   fd {fd} read "
                            f"{len(CONTENT)} bytes")
    assert lines[i + 4] == '       "sonde-ktrace-fixture data\\n"'
    assert lines[i + 5] == f"{pid:>6} ktrace-fixture RET   read {len(CONTENT)}"
    assert (f"{pid:>6} ktrace-fixture RET   openat -1 errno 2 No such file "
            f"or directory") in lines
    assert f"{pid:>6} ktrace-fixture EXIT  status 7" == lines[-1]
    assert any(re.fullmatch(rf"{pid:>6} ktrace-fixture PSIG  SIGUSR1 caught "
                            r"handler=0x[0-9a-f]+ flags=0x[0-9a-f]+ "
                            r"code=SI_TKILL", l) for l in lines)
    # -H adds thread ids, -T wall-clock seconds (close to now), -n drops
    # symbols, -s data, -p and -t filter.
    h = kdump_text(out, "-H").splitlines()
    assert h[0].split()[:2] == [pid, pid]
    t = kdump_text(out, "-T").splitlines()
    assert abs(float(t[0].split()[2]) - time.time()) < 120
    e = kdump_text(out, "-E").splitlines()
    assert e[0].split()[2] == "0.000000"
    n = kdump_text(out, "-n")
    assert "AT_FDCWD" not in n and "O_RDONLY" not in n
    assert "errno 2\n" in n
    s = kdump_text(out, "-s")
    assert "sonde-ktrace-fixture data" not in s and "GIO   fd" in s
    m = kdump_text(out, "-m", "5")
    assert '       "sonde"\n' in m
    only = kdump_text(out, "-p", pid, "-t", "p").splitlines()
    assert [LINE.match(l).group(3) for l in only] == ["EXEC", "FORK", "EXIT"]


@pytest.mark.parametrize("points,types", [
    ("c", {"CALL", "RET"}), ("n", {"NAMI"}), ("i", {"GIO"}),
    ("s", {"PSIG"}), ("p", {"FORK", "EXEC", "EXIT"}), ("w", {"CSW"}),
    ("t", {"STRU"}),
])
def test_trace_point_subsets(root, sonde, tmp_path, fixture, data_file,
                             points, types):
    out = traced_fixture(tmp_path, fixture, data_file, points)
    recs = kdump_json(out)
    assert {r["type"] for r in recs} == types
    if points == "n":
        assert [r["path"] for r in recs if r["path"] in
                (data_file, "/nonexistent/sonde-fixture")] == \
            [data_file, "/nonexistent/sonde-fixture"]
    if points == "i":
        assert [bytes.fromhex(r["data_hex"]) for r in recs
                if r["dir"] == "write"] == [b"fixture says hi\n"]
    if points == "s":
        assert [(r["name"], r["event"]) for r in recs if r["name"] ==
                "SIGUSR1"] == [("SIGUSR1", "generated"),
                               ("SIGUSR1", "delivered")]
    if points == "w":
        # The parent sleeps in wait4: off CPU voluntarily, back on.
        assert any(not r["on_cpu"] and r["voluntary"] for r in recs)
        assert any(r["on_cpu"] for r in recs)


def wait_recording(out, tracer, timeout=20):
    """Wait until the recorder has written its first records: loading and
    attaching takes a while on a busy machine."""
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(out) and os.path.getsize(out) > 168:
            return
        time.sleep(0.05)
    tracer.kill()
    tracer.wait()
    pytest.fail(f"no records in {out} after {timeout} s")


def bpf_fds(pid):
    """The BPF objects process pid holds: ({prog id}, {map id},
    {prog id of each link}), from its fds' /proc fdinfo (other recorders
    running on the machine are not counted)."""
    progs, maps, links = set(), set(), set()
    try:
        fds = os.listdir(f"/proc/{pid}/fdinfo")
    except OSError:
        return progs, maps, links
    for fd in fds:
        try:
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                info = dict(l.split(":", 1) for l in f.read().splitlines()
                            if ":" in l)
        except OSError:
            continue
        info = {k.strip(): v.strip() for k, v in info.items()}
        if "link_type" in info and "prog_id" in info:
            links.add(int(info["prog_id"]))
        elif "prog_id" in info:
            progs.add(int(info["prog_id"]))
        elif "map_id" in info:
            maps.add(int(info["map_id"]))
    return progs, maps, links


def wait_attached(tracer, timeout=20):
    """Until this recorder's programs are attached: its on_sys_enter (the
    verified one, not libbpf's stub), attached last, has a link."""
    end = time.time() + timeout
    while time.time() < end:
        progs, _, links = bpf_fds(tracer.pid)
        for i in progs & links:
            show = run(["bpftool", "-j", "prog", "show", "id", str(i)])
            if show.returncode == 0:
                p = json.loads(show.stdout)
                if p.get("name") == "on_sys_enter" and p.get("btf_id"):
                    return
        time.sleep(0.05)
    tracer.kill()
    tracer.wait()
    pytest.fail("the recorder's programs never appeared")


def start_loop(data_file):
    p = subprocess.Popen([FIXTURE, "--loop", data_file])
    time.sleep(0.1)
    return p


def test_attach_pid(root, sonde, tmp_path, fixture, data_file):
    """-p attaches to a running process; ktrace ends when it exits."""
    target = start_loop(data_file)
    out = tmp_path / "attach.out"
    tr = subprocess.Popen([SONDE, "ktrace", "-f", str(out), "-p",
                           str(target.pid)], stderr=subprocess.PIPE,
                          text=True)
    try:
        wait_recording(out, tr)
        time.sleep(0.5)
    finally:
        target.send_signal(signal.SIGTERM)
        target.wait()
    try:
        _, err = tr.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        tr.kill()
        pytest.fail("ktrace -p did not end when its process exited")
    assert tr.returncode == 0, err
    recs = kdump_json(out)
    assert {r["pid"] for r in recs} == {target.pid}
    opens = [r for r in recs if r["type"] == "NAMI" and r["path"] == data_file]
    assert len(opens) >= 3          # one every 20 ms for 0.5 s, if it ran
    subsequence(recs, [
        lambda r: r["type"] == "PSIG" and r["name"] == "SIGTERM" and
        r["event"] == "generated",
        # A fatal signal turns into a group exit: the kernel delivers
        # SIGKILL to every thread.
        lambda r: r["type"] == "PSIG" and r["name"] in ("SIGTERM", "SIGKILL")
        and r["event"] == "delivered" and r["handler"] == 0,
        lambda r: r["type"] == "EXIT" and r["wait_status"] == signal.SIGTERM,
    ])


@pytest.mark.parametrize("inherit", [False, True])
def test_inherit(root, sonde, tmp_path, inherit):
    """Children forked after attaching are traced with -i only."""
    sh = subprocess.Popen(["sh", "-c", "while :; do /bin/true; "
                           "sleep 0.05; done"])
    out = tmp_path / "inherit.out"
    try:
        time.sleep(0.1)
        tr = subprocess.Popen([SONDE, "ktrace", "-t", "p", "-f", str(out),
                               "-p", str(sh.pid)] + (["-i"] if inherit
                                                     else []))
        wait_recording(out, tr)
        time.sleep(0.6)
        tr.send_signal(signal.SIGINT)
        assert tr.wait(timeout=10) == 0
    finally:
        sh.kill()
        sh.wait()
    recs = kdump_json(out)
    forks = [r["child_pid"] for r in recs if r["type"] == "FORK"]
    assert len(forks) >= 2
    execs = [r for r in recs if r["type"] == "EXEC"]
    if inherit:
        assert {r["pid"] for r in recs} > {sh.pid}
        assert "/bin/true" in {r["path"] for r in execs}
        assert {r["pid"] for r in execs} <= set(forks)
    else:
        assert {r["pid"] for r in recs} == {sh.pid}
        assert execs == []


def test_descendants(root, sonde, tmp_path, data_file):
    """-d takes in the children that already exist."""
    sh = subprocess.Popen(["sh", "-c", f"{FIXTURE} --loop {data_file} & "
                           "wait"])
    out = tmp_path / "desc.out"
    try:
        time.sleep(0.2)
        tr = subprocess.Popen([SONDE, "ktrace", "-t", "n", "-d", "-f",
                               str(out), "-p", str(sh.pid)])
        wait_recording(out, tr)
        time.sleep(0.2)
        tr.send_signal(signal.SIGTERM)
        assert tr.wait(timeout=10) == 0
    finally:
        subprocess.run(["pkill", "-P", str(sh.pid)])
        sh.kill()
        sh.wait()
    recs = kdump_json(out)
    assert any(r["path"] == data_file and r["pid"] != sh.pid for r in recs)


STRACE_LINE = re.compile(r"^(?:\[pid\s+(\d+)\] |(\d+) +)?(\w+)\((.*)\)\s+= "
                         r"(-?\d+|0x[0-9a-f]+|\?)")


def strace_calls(path):
    calls = []
    with open(path) as f:
        for line in f:
            m = STRACE_LINE.match(line)
            if not m:
                continue        # signals, exits, resumed lines
            ret = m.group(5)
            ret = None if ret == "?" else int(ret, 0)
            pid = int(m.group(1) or m.group(2) or 0)
            calls.append((m.group(3), "PID" if ret == pid else ret))
    return calls


def test_ls_matches_strace(root, sonde, tmp_path):
    """`ls -la /`: the same syscalls, in the same order, with the same
    return values as strace -f sees (addresses aside: ASLR moves them)."""
    st = tmp_path / "strace.txt"
    p = run(["strace", "-f", "-qq", "-o", str(st), "ls", "-la", "/"])
    assert p.returncode == 0, p.stderr
    out = tmp_path / "ls.out"
    p = ktrace(["-t", "c", "--", "ls", "-la", "/"], out)
    assert p.returncode == 0, p.stderr
    recs = kdump_json(out)
    mine = []
    for r in recs:
        if r["type"] == "CALL":
            mine.append([r["syscall"], None])
        elif r["type"] == "RET":
            assert mine and mine[-1][0] == r["syscall"] and mine[-1][1] is None
            ret = r["ret"] if not -4096 < r["ret"] < 0 else -1
            mine[-1][1] = "PID" if ret == r["pid"] else ret
    theirs = strace_calls(st)
    # strace prints exit_group with "= ?" (it never returns); so does
    # sonde (a CALL without a RET). Addresses (mmap, brk) and the process
    # id (set_tid_address) differ between two runs: compare values only
    # where they are not addresses, and process ids as "PID". sonde's
    # own pre-exec steps (waiting on its pipe) are never recorded: the
    # child is armed and tracing starts at its execve, and the command
    # is looked up in PATH before the fork, as strace does.
    assert [c[0] for c in mine] == [c[0] for c in theirs]
    def comparable(name, ret):
        return ret if name not in ("mmap", "brk", "mremap") else "addr"
    assert [comparable(*c) for c in mine] == [comparable(*c) for c in theirs]


def small_trace(tmp_path):
    out = tmp_path / "small.out"
    p = ktrace(["-t", "p", "--", "/bin/sh", "-c", "/bin/true; exit 3"], out)
    assert p.returncode == 3, p.stderr
    data = out.read_bytes()
    assert 300 < len(data) < 4096
    return data


def record_ends(data):
    """Where each record kdump prints a line for ends, and where the
    others end: the END record that closes a recording and the SUM records
    (checksums) print none."""
    ends, silent, off = [], {}, 168
    while off < len(data):
        start = off
        off += int.from_bytes(data[off:off + 4], "little")
        rtype = int.from_bytes(data[start + 4:start + 6], "little")
        if rtype in (14, 16):
            silent[off] = rtype
        else:
            ends.append(off)
    assert off == len(data)
    return ends, silent


def test_truncated_at_every_byte(root, sonde, tmp_path):
    data = small_trace(tmp_path)
    ends, silent = record_ends(data)
    assert 16 in silent.values()    # checksummed
    full = subprocess.run([SONDE, "kdump", "-f", "-"], input=data,
                          capture_output=True, timeout=30)
    assert full.returncode == 0 and full.stderr == b""
    full_lines = full.stdout.decode().splitlines()
    assert len(full_lines) == len(ends)
    asan = os.environ.get("SONDE_ASAN")
    cut_file = tmp_path / "cut.out"
    for cut in range(len(data)):
        cut_file.write_bytes(data[:cut])
        binary = asan if asan and cut % 5 == 0 else SONDE
        p = subprocess.run([binary, "kdump", "-f", str(cut_file)],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, (cut, p.stderr)
        whole = [e for e in ends if e <= cut]
        assert p.stdout.splitlines() == full_lines[:len(whole)], cut
        if cut == 168:
            assert p.stderr == "", cut
            continue
        if cut in silent and 14 in [silent[e] for e in silent if e <= cut]:
            # The END record is there (the SUM after it may not be).
            assert p.stderr == "", (cut, p.stderr)
            continue
        if cut in ends or cut in silent:
            # Whole records, but not the END record that closes the
            # recording: kdump says it was cut short (issue 20).
            assert len(p.stderr.splitlines()) == 1 and \
                "cut short" in p.stderr, (cut, p.stderr)
            continue
        bounds = [e for e in ends + list(silent) if e <= cut]
        start = max(bounds) if bounds else (168 if cut >= 168 else 0)
        err = p.stderr.splitlines()
        assert len(err) == 1, (cut, p.stderr)
        assert err[0].startswith("sonde kdump: ") and "truncated" in err[0]
        if cut >= 168:
            assert f"byte offset {start}:" in err[0], (cut, err)
        else:
            assert f"byte offset {cut}," in err[0], (cut, err)


def test_not_a_trace(root, sonde, tmp_path):
    f = tmp_path / "random.bin"
    f.write_bytes(os.urandom(4096))
    p = run([SONDE, "kdump", "-f", str(f)])
    assert p.returncode == 1
    assert p.stdout == ""
    assert p.stderr == (f"sonde kdump: {f}: not a sonde trace file (no "
                        f"SONDEKTR magic)\n")
    # A real header followed by garbage: the records are corrupt.
    data = small_trace(tmp_path)
    for seed in range(20):
        junk = data[:168] + os.urandom(64 + seed * 13)
        f.write_bytes(junk)
        p = run([SONDE, "kdump", "-f", str(f)])
        assert p.returncode in (0, 1), p.stderr
        assert len(p.stderr.splitlines()) <= 1
    # A version this kdump does not know (the next one).
    f.write_bytes(data[:8] + (3).to_bytes(4, "little") + data[12:])
    p = run([SONDE, "kdump", "-f", str(f)])
    assert p.returncode == 1
    assert "version" in p.stderr and len(p.stderr.splitlines()) == 1
    p = run([SONDE, "kdump", "-f", str(tmp_path / "missing")])
    assert p.returncode == 1 and "No such file" in p.stderr


def test_unprivileged(root, sonde, tmp_path):
    p = run(["setpriv", "--reuid=nobody", "--regid=nogroup",
             "--clear-groups", "--inh-caps=-all", SONDE, "ktrace", "-f",
             "/tmp/sonde-unpriv.out", "--", "/bin/true"])
    assert p.returncode == 1
    assert p.stderr.startswith("sonde ktrace: need root, or CAP_BPF and "
                               "CAP_PERFMON")
    assert len(p.stderr.splitlines()) == 1
    assert not os.path.exists("/tmp/sonde-unpriv.out")


def test_usage_errors(sonde):
    for args in [[], ["-t", "x", "--", "true"], ["-p", "1", "--", "true"],
                 ["-m", "1M", "--", "true"], ["-b", "3000", "--", "true"],
                 ["-p", "abc"]]:
        p = run([SONDE, "ktrace"] + args)
        assert p.returncode == 2, args
        assert p.stderr.startswith("sonde ktrace: "), args
    p = run([SONDE, "kdump", "-E", "-T"])
    assert p.returncode == 2
    p = run([SONDE, "kdump", "--format", "xml"])
    assert p.returncode == 2


def test_leaves_nothing_behind(root, sonde, tmp_path):
    """The programs, links and maps the recorder held while it ran are
    gone once it has ended."""
    out = tmp_path / "t.out"
    tr = subprocess.Popen([SONDE, "ktrace", "-f", str(out), "--", "sleep",
                           "1"], stderr=subprocess.PIPE)
    wait_attached(tr)
    progs, maps, links = bpf_fds(tr.pid)
    assert tr.wait(timeout=30) == 0
    assert len(progs) >= 9 and links and maps
    # The kernel frees programs and maps after their last reference goes,
    # asynchronously: give it two seconds.
    for _ in range(20):
        left_p = {p["id"] for p in json.loads(run(
            ["bpftool", "-j", "prog", "show"]).stdout)} & (progs | links)
        left_m = {m["id"] for m in json.loads(run(
            ["bpftool", "-j", "map", "show"]).stdout)} & maps
        if not left_p and not left_m:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"left behind: programs {left_p}, maps {left_m}")


def test_drops_are_counted(root, sonde, tmp_path):
    """A ring buffer too small for the load: every loss is counted, DROP
    records say how many before the next record of the process, and the
    recorder prints the total."""
    out = tmp_path / "drops.out"
    p = ktrace(["-b", "64k", "-m", "16k", "--", "dd", "if=/dev/zero",
                "of=/dev/null", "bs=16k", "count=2000"], out, timeout=120)
    assert p.returncode == 0, p.stderr
    m = re.search(r"sonde ktrace: (\d+) records \((\d+) bytes\) in .*, "
                  r"(\d+) dropped \(the ring buffer was full", p.stderr)
    if not m:
        pytest.skip("the writer kept up with a 64 KiB buffer: no drops "
                    "to count on this machine now")
    total = int(m.group(3))
    assert total > 0
    recs = kdump_json(out)
    drop_recs = [r for r in recs if r["type"] == "DROP"]
    assert drop_recs, "drops were counted but no DROP record was written"
    # Losses still unreported when tracing ended are in the total only.
    assert 0 < sum(r["lost"] for r in drop_recs) <= total
    for i, r in enumerate(recs):
        if r["type"] == "DROP":
            assert r["dropped_before"]
            assert i + 1 == len(recs) or recs[i + 1]["dropped_before"] or \
                recs[i + 1]["pid"] != r["pid"]
    text = kdump_text(out)
    assert "records lost (ring buffer full)" in text
    assert "[after lost records]" in text


def test_follow_and_signal(root, sonde, tmp_path, fixture, data_file):
    """kdump -l prints records of a file still being written; SIGINT
    ends ktrace cleanly with everything flushed."""
    target = start_loop(data_file)
    out = tmp_path / "follow.out"
    tr = subprocess.Popen([SONDE, "ktrace", "-t", "n", "-f", str(out), "-p",
                           str(target.pid)])
    try:
        wait_recording(out, tr)
        kd = subprocess.Popen([SONDE, "kdump", "-l", "-f", str(out)],
                              stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)
        tr.send_signal(signal.SIGINT)
        assert tr.wait(timeout=10) == 0
        time.sleep(0.5)
        kd.send_signal(signal.SIGTERM)
        followed = kd.communicate(timeout=10)[0].splitlines()
    finally:
        target.kill()
        target.wait()
    final = kdump_text(out).splitlines()
    assert len(final) >= 10
    # What -l printed is the file: every record, in order.
    assert followed == final


def test_process_group_and_append(root, sonde, tmp_path, fixture, data_file):
    """-g attaches to a process group; -a appends to a trace."""
    a = subprocess.Popen([FIXTURE, "--loop", data_file], process_group=0)
    b = subprocess.Popen([FIXTURE, "--loop", data_file],
                         process_group=a.pid)
    out = tmp_path / "group.out"
    try:
        time.sleep(0.2)
        tr = subprocess.Popen([SONDE, "ktrace", "-t", "p", "-f", str(out),
                               "-g", str(a.pid)])
        # -t p records nothing until a process ends: wait for the
        # programs instead.
        wait_attached(tr)
        os.killpg(a.pid, signal.SIGTERM)
        assert tr.wait(timeout=10) == 0
    finally:
        for p in (a, b):
            p.kill()
            p.wait()
    recs = kdump_json(out)
    assert {r["pid"] for r in recs if r["type"] == "EXIT"} == {a.pid, b.pid}
    size = os.path.getsize(out)
    p = ktrace(["-a", "-t", "p", "--", "/bin/true"], out)
    assert p.returncode == 0, p.stderr
    recs2 = kdump_json(out)
    assert recs2[:len(recs)] == recs
    assert recs2[-1]["type"] == "EXIT" and os.path.getsize(out) > size
    # Appending to something else is refused.
    junk = tmp_path / "junk"
    junk.write_text("hello")
    p = ktrace(["-a", "--", "/bin/true"], junk)
    assert p.returncode == 1 and "not a sonde trace" in p.stderr


def test_mutated_traces_do_not_crash(root, sonde, tmp_path, fixture,
                                     data_file):
    """Random bytes flipped in a real trace (every record type): kdump
    prints or refuses, in text and JSON, and never crashes (under ASan and
    UBSan when the build has them)."""
    import random
    out = traced_fixture(tmp_path, fixture, data_file, "cnisp")
    data = bytearray(out.read_bytes())
    binary = os.environ.get("SONDE_ASAN") or SONDE
    rnd = random.Random(3)
    f = tmp_path / "mutated.out"
    for i in range(60):
        m = bytearray(data)
        for _ in range(rnd.randint(1, 8)):
            pos = rnd.randrange(168, len(m))
            m[pos] = rnd.randrange(256)
        f.write_bytes(bytes(m))
        for fmt in ("text", "json"):
            p = subprocess.run([binary, "kdump", "-f", str(f), "--format",
                                fmt], capture_output=True, timeout=30)
            assert p.returncode in (0, 1), (i, p.stderr[-2000:])
            assert b"Sanitizer" not in p.stderr and b"runtime error" \
                not in p.stderr, (i, p.stderr[-2000:])
            assert len(p.stderr.splitlines()) <= 1, p.stderr


def crc32c(data):
    """CRC-32C as RFC 3720 defines it (reflected 0x82f63b78)."""
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    c = 0xFFFFFFFF
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def sum_records(data):
    """The SUM records of a trace: (offset, crc, bytes covered)."""
    algo = int.from_bytes(data[18:20], "little")
    assert algo in (1, 2)       # CRC-32 (zlib), CRC-32C
    sums, off = [], 168
    while off < len(data):
        n = int.from_bytes(data[off:off + 4], "little")
        if int.from_bytes(data[off + 4:off + 6], "little") == 16:
            salgo, crc, covered = struct.unpack_from("<IIQ", data, off + 48)
            assert salgo == algo
            sums.append((off, crc, covered))
        off += n
    return sums


def test_checksums_catch_every_flip(root, sonde, tmp_path, fixture,
                                    data_file):
    """Every byte the recorder writes is under a checksum (SUM records, the
    header and the SUM records themselves included, each with its crc as
    0): CRC-32C on this CPU (RFC 3720's, computed here), or CRC-32
    (Python's zlib) on one without the instruction; one bit flipped
    anywhere in the file, kdump says so (the bytes of the stretch and
    exit 1), where before the checksums 1 flip in 30 was noticed. Every
    byte of the header and of the first and last SUM records is flipped
    (a flip in a SUM record's own timestamp went unnoticed once), and 30
    bytes drawn at random."""
    import random
    import zlib
    out = traced_fixture(tmp_path, fixture, data_file, "cnispt")
    data = out.read_bytes()
    sums = sum_records(data)
    assert sums and sums[-1][0] + 72 == len(data)
    fn = crc32c if int.from_bytes(data[18:20], "little") == 2 else zlib.crc32
    start = 0
    for off, crc, covered in sums:
        assert covered == off - start, (off, covered)
        own = data[off:off + 52] + bytes(4) + data[off + 56:off + 72]
        assert fn(data[start:off] + own) == crc, off
        start = off + 72
    clean = run([SONDE, "kdump", "-f", str(out)])
    assert clean.returncode == 0 and clean.stderr == "", clean.stderr
    rnd = random.Random(20)
    detected = 0
    f = tmp_path / "flipped.out"
    first, last = sums[0][0], sums[-1][0]
    positions = (list(range(168)) + list(range(first, first + 72)) +
                 list(range(last, last + 72)) +
                 [rnd.randrange(len(data)) for _ in range(30)])
    for pos in positions:
        m = bytearray(data)
        m[pos] ^= 1 << rnd.randrange(8)
        f.write_bytes(bytes(m))
        p = run([SONDE, "kdump", "-f", str(f)])
        assert p.returncode == 1, (pos, p.stderr)
        assert len(p.stderr.splitlines()) == 1, (pos, p.stderr)
        detected += "checksum mismatch" in p.stderr
        m_ = re.search(r"checksum mismatch over bytes ([0-9, -]+)", p.stderr)
        if m_:
            spans = [tuple(map(int, r.split("-")))
                     for r in m_.group(1).split(", ")]
            assert any(a <= pos <= b for a, b in spans), (pos, p.stderr)
    # Some flips (magic, version, lengths) make the file unreadable or
    # records corrupt instead; the checksum names the rest.
    assert detected >= len(positions) * 3 // 4, detected


def test_aarch64_trace_decodes(sonde, tmp_path):
    """A trace recorded on aarch64 decodes with aarch64's numbers and
    flags on this machine: built here byte by byte per
    docs/trace-format.md."""
    import struct
    hdr = struct.pack("<8sIIBBHIq65s65s6s", b"SONDEKTR", 1, 168, 1, 1, 0, 0,
                      1_700_000_000_000_000_000, b"6.1.0-arm64",
                      b"armhost", b"")
    assert len(hdr) == 168

    def rec(rtype, payload, pid=77):
        body = struct.pack("<IHHIIQHH16sI", 48 + len(payload), rtype, 0, pid,
                           pid, 5_000_000_000, 1, 0, b"cat", 0) + payload
        assert len(body) % 8 == 0
        return body
    # openat(AT_FDCWD, ptr, O_RDONLY|O_DIRECTORY) is 56 on aarch64, and
    # O_DIRECTORY is 040000 there (0200000 on x86_64).
    call = rec(1, struct.pack("<II6Q", 56, 0, (1 << 64) - 100, 0x1000,
                              0o40000, 0, 0, 0))
    ret = rec(2, struct.pack("<IIq", 56, 0, -2))
    f = tmp_path / "arm.out"
    f.write_bytes(hdr + call + ret)
    lines = kdump_text(f).splitlines()
    assert lines == [
        "    77 cat      CALL  openat(AT_FDCWD,0x1000,0x4000<O_RDONLY|"
        "O_DIRECTORY>)",
        "    77 cat      RET   openat -1 errno 2 No such file or directory",
    ]
    head = json.loads(run([SONDE, "kdump", "-f", str(f), "--format",
                           "json"]).stdout.splitlines()[0])
    assert head["abi"] == "aarch64" and head["hostname"] == "armhost"
    t = kdump_text(f, "-T").splitlines()
    assert t[0].split()[2] == "1700000005.000000"


def test_callret_prints_as_its_records(sonde, tmp_path):
    """A CALLRET record (docs/trace-format.md, type 12) prints exactly as
    the CALL, GIO and RET records it stands for, with their own times and
    CPUs: two files built byte by byte, one with the separate records and
    one with the merged ones, give the same kdump output in every mode."""
    import struct
    hdr = struct.pack("<8sIIBBHIq65s65s6s", b"SONDEKTR", 1, 168, 1, 0, 0, 0,
                      1_700_000_000_000_000_000, b"6.18.0", b"host", b"")

    def rec(rtype, payload, ts, cpu, flags=0):
        payload += b"\0" * (-len(payload) % 8)
        return struct.pack("<IHHIIQHH16sI", 48 + len(payload), rtype, flags,
                           77, 78, ts, cpu, 0, b"dd", 0) + payload
    args = (0, 0x5000, 1, 0, 0, 0)
    # write(1, "x", 1) = 1 with its data; then getpid() = 77 without.
    sep = (rec(1, struct.pack("<II6Q", 1, 0, *args), 5_000_001_000, 1,
               flags=1) +
           rec(4, struct.pack("<iIB3xIQ", 1, 1, 1, 1, 1) + b"x",
               5_000_003_500, 0) +
           rec(2, struct.pack("<IIq", 1, 0, 1), 5_000_003_500, 0) +
           rec(1, struct.pack("<II6Q", 39, 0, 0, 0, 0, 0, 0, 0),
               5_000_010_000, 0) +
           rec(2, struct.pack("<IIq", 39, 0, 77), 5_000_012_000, 1))

    def callret(ts, cpu, call_ts, call_cpu, gio, fd, nr, ret, a, data,
                flags=0):
        return rec(12, struct.pack("<QHBBiIIq6Q", call_ts, call_cpu,
                                   1 if gio else 0, 1, fd, nr, len(data),
                                   ret, *a) + data, ts, cpu, flags)
    merged = (callret(5_000_003_500, 0, 5_000_001_000, 1, True, 1, 1, 1,
                      args, b"x", flags=1) +
              callret(5_000_012_000, 1, 5_000_010_000, 0, False, 0, 39, 77,
                      (0,) * 6, b""))
    a, b = tmp_path / "sep.out", tmp_path / "merged.out"
    a.write_bytes(hdr + sep)
    b.write_bytes(hdr + merged)
    text = kdump_text(a).splitlines()
    assert [line.split()[2] for line in text
            if line.split()[0] == "77"] == \
        ["CALL", "GIO", "RET", "CALL", "RET"], text
    for opts in ([], ["-T"], ["-R"], ["-E"], ["-H"], ["-d"], ["-n"],
                 ["-t", "c"], ["-t", "i"], ["-t", "ci"], ["-s"],
                 ["-p", "77"]):
        assert kdump_text(b, *opts) == kdump_text(a, *opts), opts

    def records(f):
        out = run([SONDE, "kdump", "-f", str(f), "--format", "json"]).stdout
        recs = [json.loads(line) for line in out.splitlines()[1:]]
        for r in recs:
            r.pop("offset", None)
        return recs
    ra, rb = records(a), records(b)
    assert len(ra) == 5 and ra == rb


def test_blocking_call_keeps_its_entry(root, sonde, tmp_path):
    """A call's entry waits on its CPU for the return; a thread that
    blocks in the call leaves the CPU first, and its entry is written then,
    with the entry's own time and arguments: the CALL of a 0.3 s sleep
    comes 0.3 s before its RET, and nothing of another thread comes
    between a non-blocking call's CALL and RET."""
    out = tmp_path / "sleep.out"
    p = ktrace(["-t", "c", "--", "sh", "-c",
                "sleep 0.3 & sleep 0.3; wait"], out)
    assert p.returncode == 0, p.stderr
    recs = kdump_json(out)
    naps = [r for r in recs if r.get("syscall") == "clock_nanosleep"]
    pids = {r["pid"] for r in naps}
    assert len(pids) == 2, naps
    for pid in pids:
        call, ret = [r for r in naps if r["pid"] == pid]
        assert call["type"] == "CALL" and ret["type"] == "RET"
        assert ret["ret"] == 0
        assert 0.29e9 <= ret["ts"] - call["ts"] < 5e9
        # the request is the second argument: 0.3 s in a struct timespec
        assert call["args"][1] == 0 and call["args"][2] != 0
    # Per thread, CALL and RET alternate, in time order (a child's first
    # record is the RET of the fork that made it; exit_group returns not).
    for tid in {r["tid"] for r in recs}:
        mine = [r for r in recs if r["tid"] == tid and
                r["type"] in ("CALL", "RET")]
        assert [r["ts"] for r in mine] == sorted(r["ts"] for r in mine)
        if mine[0]["type"] == "RET":
            assert mine[0]["syscall"] in ("clone", "clone3", "fork",
                                          "vfork"), mine[0]
            mine = mine[1:]
        if mine[-1]["type"] == "CALL":
            assert mine[-1]["syscall"] in ("exit_group", "exit"), mine[-1]
            mine = mine[:-1]
        for c, r in zip(mine[::2], mine[1::2]):
            assert (c["type"], r["type"]) == ("CALL", "RET"), (c, r)
            assert c["syscall"] == r["syscall"]


SMALL_WRITES = r'''
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
fd = os.open("/dev/null", os.O_WRONLY)
# two pages, the second unmapped: data that ends at the first's end
p = libc.mmap(None, 8192, 3, 0x22, -1, 0)
libc.munmap(ctypes.c_void_p(p + 4096), ctypes.c_size_t(4096))
for hexdata in sys.argv[1:]:
    at_end = hexdata.startswith("end:")
    data = bytes.fromhex(hexdata[4:] if at_end else hexdata)
    addr = p + 4096 - len(data) if at_end else p
    ctypes.memmove(addr, data, len(data))
    assert libc.write(fd, addr, len(data)) == len(data)
'''


def test_small_data_exact(root, sonde, tmp_path):
    """Small data (up to 64 bytes) is recorded byte for byte whatever it
    holds: NUL bytes anywhere (read as strings up to four of them, then
    plainly), exactly 64 bytes, and data that ends where the mapping does
    (the string read past it faults and falls back)."""
    cases = [b"x", b"\0", b"a\0b", b"\0" * 5, bytes(range(64)), b"y" * 64,
             b"a\0b\0c\0d\0e\0f", b"tail\0", b"\xff" * 63 + b"\0"]
    ends = [b"z" * 10, b"q" * 64, b"\0" * 3]
    script = tmp_path / "writes.py"
    script.write_text(SMALL_WRITES)
    out = tmp_path / "small.out"
    p = ktrace(["-t", "ci", "--", "/usr/bin/python3", str(script)] +
               [c.hex() for c in cases] + ["end:" + c.hex() for c in ends],
               out)
    assert p.returncode == 0, p.stderr
    recs = kdump_json(out)
    fd = [r for r in recs if r["type"] == "RET" and r["syscall"] == "openat"
          ][-1]["ret"]
    got = [bytes.fromhex(r["data_hex"]) for r in recs
           if r["type"] == "GIO" and r["fd"] == fd and r["dir"] == "write"]
    assert got == cases + ends


@pytest.mark.parametrize("points", ["c", "cnisp"])
@pytest.mark.parametrize("how,call", [("--rename", "prctl"),
                                      ("--rename-proc", "write")])
def test_rename_shows_from_its_return(root, sonde, tmp_path, fixture, points,
                                      how, call):
    """A thread that renames itself (prctl PR_SET_NAME, or a write to its
    /proc comm file) is recorded under its old name up to the call and
    under the new one from the call's return on (the entry kept on the
    CPU goes out on its own then)."""
    out = tmp_path / "rename.out"
    p = ktrace(["-t", points, "--", fixture, how, "sonde-renamed"], out)
    assert p.returncode == 0, p.stderr
    recs = kdump_json(out)
    old = os.path.basename(fixture)[:15]
    call, ret, gcall, gret = subsequence(recs, [
        is_call(call), is_ret(call, 0 if call == "prctl" else 13),
        is_call("getppid"), is_ret("getppid")])
    assert call["comm"] == old
    assert ret["comm"] == gcall["comm"] == gret["comm"] == "sonde-renamed"
    assert gret["ret"] > 1


def long_path(n):
    """/nx/ddd.../x: n characters, each component short enough for the
    kernel."""
    body = "/nx/" + "d" * 200 + "/"
    return (body * (n // len(body) + 1))[:n - 1] + "x" if n > 1 else "x"


PATHS = r'''
import os, sys
for p in sys.argv[1:]:
    try:
        os.stat(p)
    except OSError:
        pass
'''


def test_path_names_exact(root, sonde, tmp_path):
    """A path name is recorded whole at every length: around the 8-byte
    words it is copied by, around the 256 bytes read through the stack,
    and up to PATH_MAX."""
    lengths = [1, 7, 8, 9, 15, 16, 17, 254, 255, 256, 257, 1000, 4095]
    script = tmp_path / "paths.py"
    script.write_text(PATHS)
    out = tmp_path / "paths.out"
    want = [long_path(n) for n in lengths]
    p = ktrace(["--", "/usr/bin/python3", str(script)] + want, out)
    assert p.returncode == 0, p.stderr
    recs = kdump_json(out)
    got = [r["path"] for r in recs if r["type"] == "NAMI" and
           r["path"] in want]
    assert got == want


def test_threads_each_in_order(root, sonde, tmp_path, fixture):
    """Four threads on two CPUs, each making a known sequence of calls,
    yielding the CPU after each round (thousands of switches and
    migrations) and signalling the next thread every 50th: each thread's
    records hold exactly its calls, each return right after its call,
    in order, with the values the program checked; every signal sent is
    recorded as generated for its target, between its tgkill's call and
    return, and each target took at least one."""
    n, iters = 4, 1500
    out = tmp_path / "threads.out"
    p = ktrace(["-t", "cs", "--", fixture, "--threads", str(n), str(iters)],
               out)
    assert p.returncode == 0, p.stderr
    assert "0 dropped" in p.stderr
    recs = kdump_json(out)
    by_tid = {}
    for r in recs:
        by_tid.setdefault(r["tid"], []).append(r)
    workers = [t for t, rs in by_tid.items()
               if any(r["type"] == "CALL" and r["syscall"] == "lseek"
                      for r in rs)]
    assert len(workers) == n
    sent = {}
    for tid in workers:
        calls = []
        for r in by_tid[tid]:
            if r["type"] == "CALL":
                calls.append([r["syscall"], r["args"], None])
            elif r["type"] == "RET":
                if not calls and r["syscall"] in ("clone", "clone3"):
                    continue        # the new thread's side of clone3
                # a return follows its own call (a thread's records in
                # order, none lost or doubled)
                assert calls and calls[-1][0] == r["syscall"] and \
                    calls[-1][2] is None, (tid, r, calls[-3:])
                calls[-1][2] = r["ret"]
        calls = [c for c in calls if c[0] != "rt_sigreturn"]
        first = next(i for i, c in enumerate(calls) if c[0] == "lseek")
        loop = calls[first:]
        want = []
        for i in range(iters):
            want += [("lseek", i), ("getppid", None), ("sched_yield", 0)]
            if i % 50 == 49:
                want += [("getpid", None), ("tgkill", None)]
        got = [(c[0], c[2] if w[1] is not None else None)
               for c, w in zip(loop, want)]
        assert got == want, tid
        ppids = {c[2] for c in loop[:len(want)] if c[0] == "getppid"}
        assert len(ppids) == 1 and ppids.pop() > 1
        for c in loop[:len(want)]:
            if c[0] == "tgkill" and c[2] == 0:
                sent[c[1][1]] = sent.get(c[1][1], 0) + 1
    for tid in workers:
        sig = [r for r in by_tid[tid] if r["type"] == "PSIG"]
        gen = [r for r in sig if r["event"] == "generated"]
        assert len(gen) == sent.get(tid, 0)
        if sent.get(tid):
            assert any(r["event"] == "delivered" for r in sig)
    # In the file, a signal sent comes between its tgkill's call and
    # return (records are in the file in the order they happened).
    for g in (r for r in recs if r["type"] == "PSIG" and
              r["event"] == "generated"):
        call = [r for r in recs if r["type"] == "CALL" and
                r["syscall"] == "tgkill" and r["args"][1] == g["tid"] and
                r["offset"] < g["offset"]][-1]
        ret = next(r for r in by_tid[call["tid"]] if r["type"] == "RET"
                   and r["offset"] >= call["offset"])
        assert ret["syscall"] == "tgkill" and ret["offset"] > g["offset"]


def test_renamed_by_other_thread(root, sonde, tmp_path, fixture):
    """A thread renamed by another thread while it keeps calling on its
    CPU (no context switch to notice it by) is recorded under its new
    name from then on."""
    if os.cpu_count() < 2:
        pytest.skip("needs two CPUs (the two threads run on their own)")
    out = tmp_path / "renamed.out"
    p = ktrace(["-t", "c", "--", fixture, "--renamed-by-other",
                "sonde-other"], out)
    assert p.returncode == 0, p.stderr
    recs = kdump_json(out)
    old = os.path.basename(fixture)[:15]
    # (The spinning thread can outrun the writer on a loaded machine: a
    # DROP record, which names no syscall, may come before the rename.)
    spin = [r for r in recs if r.get("syscall") == "getppid"]
    tids = {r["tid"] for r in spin}
    assert len(tids) == 1 and spin[0]["pid"] not in tids
    assert spin[0]["comm"] == old
    # The last 1000 calls come after the rename.
    assert [r["comm"] for r in spin[-2000:]] == ["sonde-other"] * 2000


SPIN = r'''
import os, sys
sys.stdout.write("ready\n")
sys.stdout.flush()
sys.stdin.readline()
for i in range(100):
    os.getppid()
os.umask(0o22)
while True:         # no system call from here on
    pass
'''


def start_py(tmp_path, name, text, *args, cpu=None):
    script = tmp_path / name
    script.write_text(text)
    pin = ["taskset", "-c", str(cpu)] if cpu is not None else []
    p = subprocess.Popen(pin + ["/usr/bin/python3", str(script)] + list(args),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    assert p.stdout.readline() == "ready\n"
    return p


def attach_and_go(target, points, out, pin=None):
    """sonde ktrace -t POINTS -p on a start_py() target, then the target
    told to go once the programs are in."""
    pre = ["taskset", "-c", str(pin)] if pin is not None else []
    tr = subprocess.Popen(pre + [SONDE, "ktrace", "-t", points, "-f",
                                 str(out), "-p", str(target.pid)],
                          stderr=subprocess.PIPE, text=True)
    wait_attached(tr)
    # the programs are loaded before the file is put in place and they
    # are attached: wait for the file too (kdump read it too early, once)
    end = time.time() + 20
    while not os.path.exists(out) and time.time() < end:
        time.sleep(0.05)
    target.stdin.write("go\n")
    target.stdin.flush()
    return tr


@contextlib.contextmanager
def py_target(tmp_path, name, text, *args, cpu=None):
    """start_py() for the length of a with block, killed at its end."""
    target = start_py(tmp_path, name, text, *args, cpu=cpu)
    try:
        yield target
    finally:
        target.kill()
        target.wait()


def interrupt(tr):
    """Ctrl-C to a recorder: it must end cleanly."""
    tr.send_signal(signal.SIGINT)
    _, err = tr.communicate(timeout=10)
    assert tr.returncode == 0, err


def test_batched_records_collected(root, sonde, tmp_path):
    """A thread's latest records wait in its CPU's batch until it leaves
    the CPU: a thread that makes calls and then computes without one keeps
    them there; ended with SIGINT, the recorder still writes them all.
    (The thread has a CPU of its own, the recorder the other one, so that
    nothing makes it leave its CPU.)"""
    if os.cpu_count() < 2:
        pytest.skip("needs two CPUs")
    out = tmp_path / "spin.out"
    with py_target(tmp_path, "spin.py", SPIN, cpu=1) as target:
        tr = attach_and_go(target, "c", out, pin=0)
        time.sleep(0.5)
        interrupt(tr)
    recs = kdump_json(out)
    assert len([r for r in recs if is_ret("getppid")(r)]) == 100
    subsequence(recs, [is_call("umask"), is_ret("umask", 0o22)])


def test_batched_records_reach_the_file(root, sonde, tmp_path):
    """The last records of a thread that computes without leaving its CPU
    reach the file while it runs: the idle writer moves from CPU to CPU,
    a context switch on each, which writes the batch there out."""
    if os.cpu_count() < 2:
        pytest.skip("needs two CPUs")
    out = tmp_path / "spin.out"
    with py_target(tmp_path, "spin.py", SPIN, cpu=1) as target:
        tr = attach_and_go(target, "c", out)
        for _ in range(30):
            time.sleep(0.1)
            text = kdump_text(out)
            if "RET   umask" in text:
                break
        interrupt(tr)
    assert "RET   umask 18" in text, text[-500:]


TIGHT = r'''
import os, signal, sys, time
stop = []
signal.signal(signal.SIGUSR1, lambda *a: None)
signal.signal(signal.SIGUSR2, lambda *a: stop.append(1))
sys.stdout.write("ready\n")
sys.stdout.flush()
sys.stdin.readline()
end = time.monotonic() + float(sys.argv[1])
while not stop and time.monotonic() < end:
    os.getppid()
    sum(range(2000))    # some microseconds between calls, on the CPU
'''


def test_signal_to_running_thread_in_order(root, sonde, tmp_path):
    """A signal sent from another CPU to a thread in a loop of calls: the
    sender writes the thread's batched records out before its PSIG record,
    so no return that came before the signal is written after it (but for
    the one the thread may finish while the sender writes)."""
    out = tmp_path / "tight.out"
    # (It loops until told to stop: on a loaded machine the 20 signals
    # may take longer than any fixed time, and a SIGUSR1 after its end
    # would kill it.)
    with py_target(tmp_path, "tight.py", TIGHT, "60") as target:
        tr = attach_and_go(target, "cs", out)
        time.sleep(0.1)
        for _ in range(20):
            os.kill(target.pid, signal.SIGUSR1)
            time.sleep(0.02)
        os.kill(target.pid, signal.SIGUSR2)
        assert target.wait(timeout=30) == 0
        _, err = tr.communicate(timeout=10)
        assert tr.returncode == 0, err
    recs = [r for r in kdump_json(out) if r["tid"] == target.pid]
    gens = [i for i, r in enumerate(recs) if r["type"] == "PSIG" and
            r["event"] == "generated" and r["name"] == "SIGUSR1"]
    assert len(gens) == 20
    late = 0
    for i in gens:
        late += sum(1 for r in recs[i + 1:i + 100]
                    if r["type"] == "RET" and r["ts"] < recs[i]["ts"])
    assert late <= 20, late


@pytest.mark.parametrize("ignored", [False, True])
def test_command_keeps_signal_dispositions(root, sonde, tmp_path, ignored):
    """The command starts with the signal dispositions sonde was given, as
    under strace: a SIGINT ignored by the caller (a background job, nohup)
    stays ignored, a default one stays default — sonde's own SIGINT/SIGTERM
    handlers never leak into it. Checked by the kernel's SigIgn mask of the
    command, compared with the same command run under strace."""
    def sigign(prefix):
        def pre():
            if ignored:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
        p = subprocess.run(prefix + ["/bin/grep", "^SigIgn", "/proc/self/status"],
                           capture_output=True, text=True, timeout=60,
                           preexec_fn=pre)
        assert p.returncode == 0, p.stderr
        return int(p.stdout.split()[-1], 16)
    mine = sigign([sonde, "ktrace", "-f", str(tmp_path / "k.out"), "--"])
    want = sigign(["strace", "-o", "/dev/null"]) if \
        os.path.exists("/usr/bin/strace") else sigign([])
    bits = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    assert mine & bits == want & bits
    assert bool(mine & bits) == ignored
