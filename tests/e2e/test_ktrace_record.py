# SPDX-License-Identifier: GPL-2.0-only
"""sonde ktrace, the recorder's side of the trace file against the real
kernel: the file it replaces (never destroyed before the command runs),
every ABI the kernel runs (i386, x32) against strace, the structures
(STRU records) and signals strace shows."""
import json
import os
import re
import select
import signal
import socket
import stat
import struct
import subprocess
import time

import pytest

from conftest import SONDE, run


def ktrace(args, out, timeout=60, **kw):
    return run([SONDE, "ktrace", "-f", str(out)] + args, timeout=timeout, **kw)


def kdump_json(out, *args):
    p = run([SONDE, "kdump", "-f", str(out), "--format", "json"] + list(args))
    assert p.returncode == 0, p.stderr
    return [json.loads(l) for l in p.stdout.splitlines()[1:]]


def test_failed_command_keeps_the_trace(root, sonde, tmp_path):
    """A command that cannot be run leaves the previous trace byte for
    byte, and nothing else in its directory."""
    out = tmp_path / "ktrace.out"
    p = ktrace(["--", "true"], out)
    assert p.returncode == 0, p.stderr
    before = out.read_bytes()
    for cmd, rc, msg in (
            (["/nonexistent"], 127,
             "sonde ktrace: cannot run /nonexistent: No such file or "
             "directory\n"),
            (["no-such-command-sonde"], 1,
             "sonde ktrace: no-such-command-sonde: command not found\n"),
            ([str(tmp_path)], 127,
             f"sonde ktrace: cannot run {tmp_path}: Permission denied\n")):
        p = ktrace(["--"] + cmd, out)
        assert (p.returncode, p.stderr) == (rc, msg)
        assert out.read_bytes() == before
        assert os.listdir(tmp_path) == ["ktrace.out"]
    # The default name in the current directory, too.
    p = run([SONDE, "ktrace", "--", "/nonexistent"], cwd=tmp_path)
    assert p.returncode == 127
    assert out.read_bytes() == before
    assert os.listdir(tmp_path) == ["ktrace.out"]


def test_replaced_once_started(root, sonde, tmp_path):
    """A regular file is replaced by the new trace (mode 0600); a symlink
    to a device is written through and stays a symlink; the device stays
    a device."""
    out = tmp_path / "ktrace.out"
    out.write_text("old\n")
    os.chmod(out, 0o644)
    p = ktrace(["--", "true"], out)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:8] == b"SONDEKTR"
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    link = tmp_path / "null"
    os.symlink("/dev/null", link)
    p = ktrace(["--", "true"], link)
    assert p.returncode == 0, p.stderr
    assert os.readlink(link) == "/dev/null"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert sorted(os.listdir(tmp_path)) == ["ktrace.out", "null"]


def test_btf_scan_kept_for_the_boot(root, sonde, tmp_path):
    """What the recorder found in the kernel's BTF is kept in /run/sonde
    (root's, 0600); a damaged file is not believed: the next run scans
    again, records as before, and puts the same file back."""
    out = tmp_path / "ktrace.out"
    p = ktrace(["--", "true"], out)
    assert p.returncode == 0, p.stderr
    kept = [os.path.join("/run/sonde", f) for f in os.listdir("/run/sonde")
            if f.startswith("ktrace-btf-") and "." not in f]
    assert kept
    good = {}
    for f in kept:
        st = os.lstat(f)
        assert stat.S_ISREG(st.st_mode) and st.st_uid == 0
        assert stat.S_IMODE(st.st_mode) == 0o600
        good[f] = open(f, "rb").read()
    for f in kept:
        with open(f, "r+b") as fh:
            fh.seek(len(good[f]) // 2)
            fh.write(b"\xff\x00\xff\x00")
    p = ktrace(["--", "true"], out)
    assert p.returncode == 0, p.stderr
    execs = [r for r in kdump_json(out) if r["type"] == "NAMI"]
    assert any(r.get("path", "").endswith("/true") for r in execs), execs
    assert any(open(f, "rb").read() == good[f] for f in kept)


def test_unwritable_file_before_work(root, sonde, tmp_path):
    """A file that cannot be created is an error before anything runs."""
    marker = tmp_path / "ran"
    p = ktrace(["--", "touch", str(marker)], tmp_path / "no" / "such")
    assert p.returncode == 1
    assert p.stderr.startswith("sonde ktrace: cannot create ")
    assert not marker.exists()


HERE = os.path.dirname(os.path.abspath(__file__))
ABI_SRC = os.path.join(HERE, "ktrace", "abi.c")
STRACE = re.compile(r"^(\d+) +(?:(\w+)\(.*?(?:\) += (\S+)|<unfinished \.\.\.>)"
                    r"|<\.\.\. (\w+) resumed>.*\) += (\S+))")


def build_abi(tmp_path, flag):
    """tests/e2e/ktrace/abi.c built for a 32-bit ABI, or a skip saying
    why it cannot be built or run here."""
    exe = tmp_path / f"abi{flag}"
    p = run(["gcc", flag, "-O1", "-o", str(exe), ABI_SRC])
    if p.returncode:
        pytest.skip(f"gcc {flag} cannot build (gcc-multilib missing?): "
                    f"{p.stderr.strip().splitlines()[-1]}")
    try:
        p = run([str(exe)], cwd=tmp_path)
    except OSError as e:
        pytest.skip(f"this kernel does not run {flag} programs: {e}")
    assert p.returncode == 0 and p.stdout == "abi done\n", p.stderr
    return exe


def strace_seqs(path):
    """Per process (in order of appearance): [name, return] as strace -f
    printed them, unfinished calls completed by their resumed lines."""
    seqs = {}
    for line in open(path):
        m = STRACE.match(line)
        if not m:
            continue        # signals, exits
        pid = int(m.group(1))
        seq = seqs.setdefault(pid, [])
        if m.group(2):
            seq.append([m.group(2), m.group(3)])
        else:
            for c in reversed(seq):
                if c[0] == m.group(4) and c[1] is None:
                    c[1] = m.group(5)
                    break
    return seqs


def ret_class(name, ret, pids):
    """What two runs agree on: errors, addresses and process ids as
    classes, other values as they are."""
    if ret in (None, "?"):
        return None
    if isinstance(ret, str):    # strace: umask's 022 is octal
        v = int(ret, 8) if re.fullmatch(r"0[0-7]+", ret) else int(ret, 0)
    else:
        v = ret
    if -4096 < v < 0:
        return "error"
    if name in ("brk", "mmap", "mmap2", "mremap"):
        return "addr"
    return "pid" if v in pids else v


def test_i386_matches_strace(root, sonde, tmp_path):
    """A 32-bit program is recorded with i386's numbers and registers:
    each process's (syscall, return) sequence is strace's (>= 0.99
    similar: 1.0 in practice), its records are tagged i386, and only calls
    that move data have GIO records."""
    import difflib
    exe = build_abi(tmp_path, "-m32")
    st = tmp_path / "strace.txt"
    p = run(["strace", "-f", "-qq", "-o", str(st), str(exe)], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    out = tmp_path / "abi.out"
    p = ktrace(["--", str(exe)], out, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    recs = kdump_json(out)
    theirs = strace_seqs(st)
    mine = {}
    for r in recs:
        if r["type"] == "CALL":
            # glibc's i386 socket() is socketcall(SYS_SOCKET, args),
            # which strace shows as socket().
            m = re.match(r"socketcall\(SYS_(\w+),", r["text"])
            name = m.group(1).lower() if m else r["syscall"]
            mine.setdefault(r["pid"], []).append([name, None])
        elif r["type"] == "RET" and r["pid"] in mine:
            # (A child's first record is clone's return, without a call:
            # strace shows none either.)
            seq = mine[r["pid"]]
            assert seq[-1][1] is None, r
            seq[-1][1] = r["ret"]
    assert len(mine) == len(theirs) == 2
    for (mp, ms), (tp, ts) in zip(mine.items(), theirs.items()):
        a = [(n, ret_class(n, v, set(mine))) for n, v in ms]
        b = [(n, ret_class(n, v, set(theirs))) for n, v in ts]
        ratio = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
        assert ratio >= 0.99, (ratio, a, b)
        # The 32-bit ABI's own calls are there, by their own names.
    names = {n for s in mine.values() for n, _ in s}
    assert {"mmap2", "fstat64", "_llseek", "fcntl64", "socket", "clone",
            "wait4", "getuid32"} <= names
    # Every syscall record after the exec is i386's; the 64-bit execve
    # that started it is not.
    calls = [r for r in recs if r["type"] in ("CALL", "RET", "NAMI", "GIO")]
    assert calls[0]["syscall"] == "execve" and "abi" not in calls[0]
    assert all(r.get("abi") == "i386" for r in calls[4:]), calls[4]
    # GIO only for read and write: a misnamed call (brk read as x86_64's
    # recvfrom) would copy memory as data.
    for i, r in enumerate(recs):
        if r["type"] == "GIO":
            nxt = next(x for x in recs[i + 1:] if x["pid"] == r["pid"])
            assert nxt["type"] == "RET" and nxt["syscall"] in ("read",
                                                               "write"), nxt
    # kdump names the 32-bit flag values and joins _llseek's halves.
    text = run([SONDE, "kdump", "-f", str(out)]).stdout
    assert re.search(r"CALL  mmap2\(0,0x2000,0x3<PROT_READ\|PROT_WRITE>,"
                     r"0x22<MAP_PRIVATE\|MAP_ANONYMOUS>,-1,0\)", text)
    assert re.search(r"CALL  _llseek\(0x3,0x4,0x[0-9a-f]+,SEEK_SET\)", text)
    assert "CALL  fcntl64(0x3,F_GETFD,0)" in text


def test_x32(root, sonde, tmp_path):
    """An x32 program (64-bit registers, __X32_SYSCALL_BIT numbers) is
    recorded with x32's table, or skipped where the kernel runs none."""
    exe = build_abi(tmp_path, "-mx32")
    out = tmp_path / "x32.out"
    p = ktrace(["--", str(exe)], out, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    recs = kdump_json(out)
    names = [r["syscall"] for r in recs if r["type"] == "CALL"]
    assert {"openat", "read", "lseek", "fcntl", "socket", "wait4"} <= set(names)
    assert all(r.get("abi") == "x32" for r in recs
               if r["type"] == "CALL" and r["syscall"] != "execve")


SIGNALS_SRC = os.path.join(HERE, "ktrace", "signals.c")
STRACE_SIG = re.compile(r"^(?:\[pid +)?(\d+)\]? *--- (SIG\w+) \{si_signo=\w+, "
                        r"si_code=(\w+)(.*)\} ---")
SI_CODES = {"SI_USER": 0, "SI_KERNEL": 0x80, "SI_TIMER": -2, "SI_TKILL": -6,
            "SI_QUEUE": -1, "SEGV_MAPERR": 1, "CLD_EXITED": 1,
            "CLD_KILLED": 2}


@pytest.fixture(scope="module")
def signals_bin(tmp_path_factory):
    exe = tmp_path_factory.mktemp("signals") / "signals"
    p = run(["gcc", "-O1", "-o", str(exe), SIGNALS_SRC])
    assert p.returncode == 0, p.stderr
    return str(exe)


def strace_signals(args, tmp_path):
    """The signals strace -f shows delivered: (pid, name, si_code value,
    si_pid or None, si_addr or None), in order, and the run's pids in order
    of appearance."""
    st = tmp_path / "strace.txt"
    run(["strace", "-f", "-qq", "-o", str(st)] + args, cwd=tmp_path)
    sigs, pids = [], []
    for line in open(st):
        pid = int(line.split()[0])
        if pid not in pids:
            pids.append(pid)
        m = STRACE_SIG.match(line)
        if m:
            rest = m.group(4)
            sp = re.search(r"si_pid=(\d+)", rest)
            sa = re.search(r"si_addr=(0x[0-9a-f]+|NULL)", rest)
            sigs.append((pid, m.group(2), SI_CODES[m.group(3)],
                         int(sp.group(1)) if sp else None,
                         (0 if sa.group(1) == "NULL" else int(sa.group(1), 16))
                         if sa else None))
    return sigs, pids


def test_fatal_signal_is_named(root, sonde, tmp_path):
    """A process killed by SIGTERM: SIGTERM generated by it, SIGTERM
    delivered (fatal), the exit by SIGTERM, and no SIGKILL anywhere (the
    kernel's group exit delivers one; it was printed before)."""
    out = tmp_path / "term.out"
    p = ktrace(["--", "sh", "-c", "kill -TERM $$"], out)
    assert p.returncode == 128 + signal.SIGTERM, p.stderr
    recs = kdump_json(out)
    pid = recs[0]["pid"]
    psig = [r for r in recs if r["type"] == "PSIG"]
    assert [(r["name"], r["event"]) for r in psig] == [
        ("SIGTERM", "generated"), ("SIGTERM", "delivered")]
    assert psig[0]["sender"] == pid
    assert psig[1]["fatal"] and psig[1]["handler"] == 0
    assert [r["wait_status"] for r in recs if r["type"] == "EXIT"] == [
        signal.SIGTERM]
    text = run([SONDE, "kdump", "-f", str(out)]).stdout
    assert "SIGKILL" not in text
    assert "PSIG  SIGTERM delivered SIG_DFL (fatal) code=SI_USER" in text


def test_kernel_signals_match_strace(root, sonde, tmp_path):
    """`timeout 0.5 sleep 5`: timeout's SIGALRM comes from its timer (the
    kernel: sender 0, SI_TIMER), the SIGTERM sleep gets from timeout's
    pid, SIGCHLD from sleep with its status; si_code and si_pid as strace
    shows them for the same run's roles. (0.5 s, not 0.1: on a loaded
    machine timeout's child had not yet exec'd sleep when the SIGTERM
    came, ran timeout's own handler and exited: CLD_EXITED.)"""
    theirs, spids = strace_signals(["timeout", "0.5", "sleep", "5"], tmp_path)
    out = tmp_path / "timeout.out"
    p = ktrace(["--", "timeout", "0.5", "sleep", "5"], out)
    assert p.returncode == 124, p.stderr
    recs = kdump_json(out)
    mpids = []
    for r in recs:
        if r["pid"] not in mpids:
            mpids.append(r["pid"])
    role = lambda pid, pids: pids.index(pid) if pid in pids else pid
    mine = {(role(r["pid"], mpids), r["name"], r["code"],
             role(r["sender"], mpids), r["addr"])
            for r in recs if r["type"] == "PSIG"}
    want = {(role(pid, spids), name, code,
             role(sp, spids) if sp is not None else 0, sa or 0)
            for pid, name, code, sp, sa in theirs}
    # Every signal strace shows, with its si_code and sender, is in the
    # trace. (Under ptrace the signals timeout sends itself while it
    # ignores them are delivered; without it they are discarded when
    # generated, which sonde records as "ignored".)
    assert want <= mine, (want - mine, mine)
    assert len(want) >= 4
    gen = {(role(r["pid"], mpids), r["name"]): r for r in recs
           if r["type"] == "PSIG" and r["event"] == "generated"}
    assert gen[(0, "SIGALRM")]["sender"] == 0
    assert gen[(0, "SIGALRM")]["code"] == SI_CODES["SI_TIMER"]
    assert gen[(1, "SIGTERM")]["sender"] == mpids[0]
    chld = gen[(0, "SIGCHLD")]
    assert (chld["sender"], chld["status"], chld["code"]) == (
        mpids[1], signal.SIGTERM, SI_CODES["CLD_KILLED"])
    text = run([SONDE, "kdump", "-f", str(out)]).stdout
    assert re.search(r"PSIG  SIGALRM generated by the kernel code=SI_TIMER",
                     text)


def test_fault_address(root, sonde, tmp_path, signals_bin):
    """A store to 0x10: SIGSEGV generated by the kernel and delivered with
    si_addr 0x10 and SEGV_MAPERR, as strace shows."""
    theirs, _ = strace_signals([signals_bin, "segv"], tmp_path)
    assert [(n, c, a) for _, n, c, _, a in theirs] == [("SIGSEGV", 1, 0x10)]
    out = tmp_path / "segv.out"
    p = ktrace(["--", signals_bin, "segv"], out)
    assert p.returncode == 128 + signal.SIGSEGV, p.stderr
    psig = [r for r in kdump_json(out) if r["type"] == "PSIG"]
    assert [(r["name"], r["event"], r["code"], r["sender"], r["addr"])
            for r in psig] == [("SIGSEGV", "generated", 1, 0, 0x10),
                               ("SIGSEGV", "delivered", 1, 0, 0x10)]
    text = run([SONDE, "kdump", "-f", str(out)]).stdout
    assert "PSIG  SIGSEGV generated by the kernel code=1 addr=0x10" in text


@pytest.mark.parametrize("mode", ["restart", "eintr"])
def test_restart_shown(root, sonde, tmp_path, signals_bin, mode):
    """A read interrupted by a handled SIGALRM returns ERESTARTSYS to the
    kernel: shown as the restart it is, then the handler, then
    rt_sigreturn's 0 and the read again (SA_RESTART) or its EINTR; the
    same steps as strace's."""
    st = tmp_path / "strace.txt"
    run(["strace", "-qq", "-o", str(st), signals_bin, mode])
    lines = open(st).read().splitlines()
    i = next(k for k, l in enumerate(lines)
             if l.startswith("read(3,") and "ERESTARTSYS" in l)
    theirs = lines[i:i + 5]
    assert "= ? ERESTARTSYS" in theirs[0]
    out = tmp_path / "sig.out"
    p = ktrace(["--", signals_bin, mode], out)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ("1 read\n" if mode == "restart"
                        else "-1 Interrupted system call\n")
    recs = kdump_json(out)
    i = next(k for k, r in enumerate(recs)
             if r["type"] == "RET" and r["syscall"] == "read" and
             r["ret"] == -512)
    steps = []
    for r in recs[i:]:
        if r["type"] == "RET":
            steps.append((r["syscall"], r.get("error") or r["ret"]))
        elif r["type"] == "PSIG" and r["event"] == "delivered":
            steps.append((r["name"], r["code"]))
    want = [("read", "ERESTARTSYS"), ("SIGALRM", 0x80), ("write", 1)]
    if mode == "restart":
        assert re.match(r"rt_sigreturn\(.*\) += 0$", theirs[3])
        assert theirs[4].startswith("read(3, \"x\", 1)") and "= 1" in theirs[4]
        want += [("rt_sigreturn", 0), ("read", 1)]
    else:
        assert re.match(r"rt_sigreturn\(.*\) += -1 EINTR", theirs[3])
        want += [("rt_sigreturn", "EINTR")]
    assert steps[:len(want)] == want
    text = run([SONDE, "kdump", "-f", str(out)]).stdout
    assert re.search(r"RET   read RESTART ERESTARTSYS \(To be restarted if "
                     r"SA_RESTART is set\)\n", text)


STRUCTS_SRC = os.path.join(HERE, "ktrace", "structs.c")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def strace_call(lines, name, pat):
    """The first line of strace's calls to name matching pat: its match."""
    for l in lines:
        m = re.search(rf"\b{name}\((.*)|<\.\.\. {name} resumed>(.*)", l)
        if m:
            mm = re.search(pat, m.group(1) or m.group(2))
            if mm:
                return mm
    raise AssertionError(f"strace shows no {name} matching {pat}")


def strus(recs, name):
    """The STRU records of the calls to name: (dir, arg) -> bytes."""
    out, call = {}, {}
    for r in recs:
        if r["type"] == "CALL":
            call[r["tid"]] = r["syscall"]
        if r["type"] == "STRU" and call.get(r["tid"]) == name:
            out.setdefault((r["dir"], r.get("arg")), []).append(
                (bytes.fromhex(r["data_hex"]), r["bytes"]))
    return out


def sockaddr(b):
    fam = struct.unpack_from("<H", b)[0]
    if fam == socket.AF_INET:
        return ("AF_INET", struct.unpack_from(">H", b, 2)[0],
                socket.inet_ntoa(b[4:8]))
    if fam == socket.AF_UNIX:
        return ("AF_UNIX", b[2:].split(b"\0")[0].decode())
    return (fam,)


def test_structures_match_strace(root, sonde, tmp_path):
    """Each structure a call reads or writes is recorded (STRU records),
    and decoded it says what strace -v prints for the same program: the
    IPv4 and AF_UNIX addresses of bind, connect, accept, getsockname; stat
    of a file of known size and mode; pipe2's fds; wait4's status of a
    child exiting 3; poll's pollfd with revents; a sigaction's handler
    flags and mask; writev's iovec lengths; a limit; utsname; a timespec;
    getdents64's entries."""
    exe = tmp_path / "structs"
    p = run(["gcc", "-O1", "-o", str(exe), STRUCTS_SRC])
    assert p.returncode == 0, p.stderr
    work = tmp_path / "w"
    work.mkdir()
    f = work / "f"
    f.write_bytes(b"\0" * 1234)
    os.chmod(f, 0o640)
    # (Two ports: the first is in TIME_WAIT after the strace run.)
    sport, port = free_port(), free_port()
    sock = str(work / "sock")
    st = tmp_path / "strace.txt"
    p = run(["strace", "-f", "-v", "-qq", "-s", "4096", "-o", str(st),
             str(exe), str(sport), sock, "f"], cwd=work)
    assert p.returncode == 0, p.stderr
    theirs = open(st).read().splitlines()
    os.unlink(sock)
    out = tmp_path / "structs.out"
    p = ktrace(["--", str(exe), str(port), sock, "f"], out, cwd=work)
    assert p.returncode == 0, p.stderr
    recs = kdump_json(out)

    for name, arg in (("bind", 1), ("connect", 1)):
        got = [sockaddr(b) for b, _ in strus(recs, name)[("in", arg)]]
        want = [("AF_INET", port, "127.0.0.1"), ("AF_UNIX", sock)]
        m = strace_call(theirs, name, r"sin_port=htons\((\d+)\), "
                        r"sin_addr=inet_addr\(\"([\d.]+)\"\)")
        assert (int(m.group(1)), m.group(2)) == (sport, "127.0.0.1")
        m = strace_call(theirs, name, r"sun_path=\"([^\"]+)\"")
        assert m.group(1) == sock
        assert got == want
    for name in ("accept", "getsockname"):
        m = strace_call(theirs, name, r"sin_port=htons\((\d+)\), "
                        r"sin_addr=inet_addr\(\"([\d.]+)\"\)\}, \[128 => (\d+)\]")
        (b, total), = strus(recs, name)[("out", 1)]
        fam, _, addr = sockaddr(b)
        # (The client's port is the kernel's choice each run.)
        assert (fam, addr, total) == ("AF_INET", m.group(2), int(m.group(3)))

    m = strace_call(theirs, "newfstatat", r"^AT_FDCWD, \"f\", \{st_dev=.*?"
                    r"st_ino=(\d+), st_mode=S_IFREG\|(\d+), st_nlink=(\d+), "
                    r"st_uid=(\d+), st_gid=(\d+), st_blksize=(\d+), "
                    r"st_blocks=(\d+), st_size=(\d+)")
    stats = strus(recs, "newfstatat")[("out", 2)]
    mine = [struct.unpack_from("<QQQIII4xQqqq", b) for b, _ in stats]
    # dev, ino, nlink, mode, uid, gid, rdev, size, blksize, blocks
    want = (int(m.group(1)), int(m.group(3)), 0o100000 | int(m.group(2), 8),
            int(m.group(4)), int(m.group(5)), int(m.group(8)),
            int(m.group(6)), int(m.group(7)))
    assert want in [(s[1], s[2], s[3], s[4], s[5], s[7], s[8], s[9])
                    for s in mine]
    assert want[2:6:3] == (0o100640, 1234)

    m = strace_call(theirs, "pipe2", r"^\[(\d+), (\d+)\], O_CLOEXEC\)")
    (b, _), = strus(recs, "pipe2")[("out", 0)]
    assert struct.unpack("<ii", b) == (int(m.group(1)), int(m.group(2)))

    m = strace_call(theirs, "wait4", r"WEXITSTATUS\(s\) == (\d+)")
    (b, _), = strus(recs, "wait4")[("out", 1)]
    status, = struct.unpack("<i", b)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == int(m.group(1))

    m = strace_call(theirs, "poll", r"^\[\{fd=(\d+), events=POLLIN\}\], 1, "
                    r"1000\) += 1 \(\[\{fd=\d+, revents=POLLIN\}\]\)")
    (b, total), = strus(recs, "poll")[("out", 0)]
    assert struct.unpack("<ihh", b) == (int(m.group(1)), select.POLLIN,
                                        select.POLLIN) and total == 8

    m = strace_call(theirs, "rt_sigaction", r"^SIGUSR1, \{sa_handler=(0x[0-9a-f]+), "
                    r"sa_mask=\[(.*?)\], sa_flags=([A-Z_|]+),")
    acts = strus(recs, "rt_sigaction")[("in", 1)]
    mine = [struct.unpack("<QQQQ", b) for b, _ in acts]
    flags = {"SA_RESTORER": 0x04000000, "SA_RESTART": 0x10000000}
    mask = sum(1 << (getattr(signal, "SIG" + n) - 1)
               for n in m.group(2).split())
    want_flags = sum(flags[x] for x in m.group(3).split("|"))
    assert any(h != 0 and fl == want_flags and mk == mask
               for h, fl, _, mk in mine), (mine, mask, want_flags)

    m = strace_call(theirs, "writev", r"iov_len=(\d+)\}, \{iov_base=\"cde\", "
                    r"iov_len=(\d+)\}\], 2\)")
    (b, total), = strus(recs, "writev")[("in", 1)]
    lens = [struct.unpack_from("<QQ", b, i * 16)[1] for i in range(2)]
    assert lens == [int(m.group(1)), int(m.group(2))] and total == 32

    m = strace_call(theirs, "prlimit64", r"^0, RLIMIT_NOFILE, NULL, "
                    r"\{rlim_cur=(\d+), rlim_max=(\d+)\}")
    got = [struct.unpack("<QQ", b) for b, _ in
           strus(recs, "prlimit64")[("out", 3)]]
    assert (int(m.group(1)), int(m.group(2))) in got

    m = strace_call(theirs, "uname", r"sysname=\"(\w+)\", nodename=\"([^\"]+)\", "
                    r"release=\"([^\"]+)\"")
    (b, total), = strus(recs, "uname")[("out", 0)]
    fields = [b[i * 65:(i + 1) * 65].split(b"\0")[0].decode() for i in range(3)]
    assert fields == list(m.groups()) and total == 390

    m = strace_call(theirs, "clock_nanosleep", r"\{tv_sec=(\d+), "
                    r"tv_nsec=(\d+)\}")
    (b, _), = strus(recs, "clock_nanosleep")[("in", 2)]
    assert struct.unpack("<qq", b) == (int(m.group(1)), int(m.group(2)))

    m = strace_call(theirs, "getdents64", r"^\d+, \[(.*)\], 4096\)")
    want = sorted(re.findall(r"d_type=DT_(\w+), d_name=\"([^\"]+)\"",
                             m.group(1)))
    (b, total), = strus(recs, "getdents64")[("out", 1)]
    got, off = [], 0
    types = {4: "DIR", 8: "REG", 12: "SOCK"}
    while off < len(b):
        ino, doff, reclen, typ = struct.unpack_from("<QqHB", b, off)
        got.append((types.get(typ, str(typ)),
                    b[off + 19:off + reclen].split(b"\0")[0].decode()))
        off += reclen
    assert sorted(got) == want and total == len(b)


def test_exec_argv_and_environment(root, sonde, tmp_path):
    """execve of a 3,000-byte argument and 5 environment variables: the
    EXEC record's argv and the ENVP structure are what strace -v shows;
    a 10,000-byte argument is cut at the recorder's bound and says so."""
    big = "x" * 3000
    env = ["A=1", "B=two", "C=", "D=4=4", "E=" + "e" * 40]
    cmd = ["env", "-i"] + env + ["/bin/true", big]
    st = tmp_path / "strace.txt"
    run(["strace", "-f", "-v", "-qq", "-s", "20000", "-o", str(st)] + cmd)
    line = next(l for l in open(st) if 'execve("/bin/true"' in l)
    m = re.search(r'execve\("/bin/true", \[(.*)\], \[(.*)\]\) = 0', line)
    argv = re.findall(r'"([^"]*)"', m.group(1))
    envp = re.findall(r'"([^"]*)"', m.group(2))
    assert argv == ["/bin/true", big] and envp == env
    out = tmp_path / "exec.out"
    p = ktrace(["--"] + cmd, out)
    assert p.returncode == 0, p.stderr
    recs = kdump_json(out)
    i = next(k for k, r in enumerate(recs)
             if r["type"] == "EXEC" and r["path"] == "/bin/true")
    assert recs[i]["argv"] == argv and recs[i]["argc"] == 2
    assert recs[i]["argv_bytes"] == len("/bin/true") + 1 + len(big) + 1
    e = recs[i + 1]
    assert e["type"] == "STRU" and e["struct"] == "envp"
    got = bytes.fromhex(e["data_hex"]).split(b"\0")[:-1]
    assert [x.decode() for x in got] == envp
    assert e["bytes"] == sum(len(x) + 1 for x in env)
    # Cut: 10,000 bytes of argument, 8 KiB recorded, the total known.
    huge = "y" * 10000
    p = ktrace(["--", "/bin/true", huge], out)
    assert p.returncode == 0, p.stderr
    ex = next(r for r in kdump_json(out) if r["type"] == "EXEC")
    assert ex["argc"] == 2 and ex["argv_bytes"] == 10 + 10001
    assert ex["argv"][0] == "/bin/true"
    assert huge.startswith(ex["argv"][1]) and len(ex["argv"][1]) < 10000
    text = run([SONDE, "kdump", "-f", str(out)]).stdout
    assert re.search(r"EXEC  \"/bin/true\" argv .*\(cut: 8192 of 10011 "
                     r"bytes, 2 arguments\)", text)


END_FIELDS = ("records", "bytes", "lost_ring", "lost_write", "how", "code")
END_HOW = {1: "exit", 2: "signal", 3: "interrupt", 4: "write_error"}


def end_record(path):
    """The file's END record (docs/trace-format.md: 88 bytes, type 14, the
    last one but for the SUM records, the checksums, after it), read from
    its bytes, or None when the file has none."""
    data = open(path, "rb").read()
    last, off = None, 168
    while off + 8 <= len(data):
        length, rtype = struct.unpack_from("<IH", data, off)
        if length < 48 or off + length > len(data):
            break
        if rtype != 16:
            last = (off, length, rtype)
        off += length
    if not last or last[1:] != (88, 14):
        return None
    rec = data[last[0]:last[0] + 88]
    e = dict(zip(END_FIELDS, struct.unpack_from("<QQQQIi", rec, 48)))
    e["how"] = END_HOW.get(e["how"], e["how"])
    return e


DROPPED = re.compile(r"^sonde ktrace: \d+ records \(\d+ bytes\) in .*, (\d+) "
                     r"dropped", re.M)


def test_losses_all_in_the_file(root, sonde, tmp_path):
    """A 64 KiB ring buffer under a storm of one-byte reads loses records:
    in 20 of 20 runs the file's DROP records add up to the count printed
    on screen (and to the END record's), and every process either has its
    EXIT record or a DROP record marking its loss."""
    out = tmp_path / "small.out"
    total = 0
    for run_no in range(20):
        p = ktrace(["-b", "64k", "--", "sh", "-c",
                    "dd if=/dev/zero of=/dev/null bs=1 count=50000 "
                    "2>/dev/null; /bin/true"], out)
        assert p.returncode == 0, p.stderr
        screen = int(DROPPED.search(p.stderr).group(1))
        # (Process records, DROP and END: DROP and END always print.)
        recs = kdump_json(out, "-t", "p")
        lost = sum(r["lost"] for r in recs if r["type"] == "DROP")
        end = end_record(out)
        assert end and end["how"] == "exit"
        assert (lost, end["lost_ring"]) == (screen, screen), run_no
        pids = {r["pid"] for r in recs if r["pid"]}
        exited = {r["pid"] for r in recs if r["type"] == "EXIT" and
                  r["process_ended"]}
        marked = {r["pid"] for r in recs if r["type"] == "DROP"}
        assert pids <= exited | marked, (run_no, pids - exited - marked)
        total += screen
    assert total > 0        # (the buffer is small enough to lose some)


def test_killed_recorder_leaves_no_end(root, sonde, tmp_path):
    """Only a recording that ended properly has an END record (last): a
    recorder killed with SIGKILL leaves a file without one, which is how
    a reader tells a cut recording. Ctrl-C ends properly, and says so."""
    out = tmp_path / "k.out"
    # In a session of its own, so that the command (whose parent dies
    # first) is killed with it: a killed recorder's child is reparented,
    # and pkill -P found nothing (the loop spun on for hours).
    tr = subprocess.Popen([SONDE, "ktrace", "-f", str(out), "--", "sh", "-c",
                           "while :; do /bin/true; done"],
                          stderr=subprocess.PIPE, text=True,
                          start_new_session=True)
    try:
        end = time.time() + 30
        while time.time() < end and not (out.exists() and
                                         out.stat().st_size > 4096):
            time.sleep(0.05)
        tr.kill()
        tr.wait()
    finally:
        try:
            os.killpg(tr.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    recs = kdump_json(out)
    assert recs and end_record(out) is None
    out2 = tmp_path / "i.out"
    tr = subprocess.Popen([SONDE, "ktrace", "-f", str(out2), "--", "sleep",
                           "30"], stderr=subprocess.DEVNULL,
                          start_new_session=True)
    try:
        end = time.time() + 30
        while time.time() < end and not (out2.exists() and
                                         out2.stat().st_size > 1024):
            time.sleep(0.05)
        tr.send_signal(signal.SIGINT)
        assert tr.wait(timeout=20) == 0
    finally:
        try:
            os.killpg(tr.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    end = end_record(out2)
    assert end["how"] == "interrupt" and end["code"] == signal.SIGINT
    assert end["records"] == len({r["offset"] for r in kdump_json(out2)})


@pytest.fixture
def small_fs(tmp_path):
    """A 2 MB tmpfs, unmounted after the test."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    p = run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)])
    if p.returncode:
        pytest.skip(f"cannot mount a tmpfs: {p.stderr.strip()}")
    try:
        yield mnt
    finally:
        run(["umount", "-l", str(mnt)])


def test_disk_full(root, sonde, tmp_path, small_fs):
    """On a 2 MB file system: the first failed write is reported at once
    (while the command still runs), with what was written; recording
    stops, the command runs on to its end and its exit status (6) is
    sonde's; the last line counts what was lost."""
    out = small_fs / "full.out"
    t0 = time.time()
    tr = subprocess.Popen([SONDE, "ktrace", "-f", str(out), "--", "sh", "-c",
                           "dd if=/dev/zero of=/dev/null bs=1 count=200000 "
                           "2>/dev/null; sleep 3; exit 6"],
                          stderr=subprocess.PIPE, text=True)
    first = tr.stderr.readline()
    t_first = time.time()
    rest = tr.stderr.read()
    tr.wait(timeout=60)
    t_end = time.time()
    assert tr.returncode == 6, first + rest
    m = re.fullmatch(rf"sonde ktrace: cannot write {re.escape(str(out))}: No "
                     r"space left on device, after (\d+) records: recording "
                     r"stops \(the command runs on, untraced\)\n", first)
    assert m, first
    assert t_end - t_first > 2, (t_first - t0, t_end - t_first)
    m2 = re.fullmatch(rf"sonde ktrace: (\d+) records in {re.escape(str(out))}"
                      r", \d+ dropped, (\d+) lost: No space left on device\n",
                      rest)
    assert m2, rest
    assert int(m2.group(1)) == int(m.group(1)) and int(m2.group(2)) > 0
    # The file holds those records (its tail may be cut mid-record; a
    # CALLRET record prints as two or three lines at one offset).
    p = run([SONDE, "kdump", "-f", str(out), "--format", "json"])
    assert p.returncode == 0
    offsets = {json.loads(l)["offset"] for l in p.stdout.splitlines()[1:]}
    assert len(offsets) == int(m.group(1))
    # The header cannot be written at all: an error before the command.
    marker = tmp_path / "ran"
    p = ktrace(["--", "touch", str(marker)], "/dev/full")
    assert (p.returncode, p.stderr) == (1, "sonde ktrace: cannot write "
                                        "/dev/full: No space left on device\n")
    assert not marker.exists()


def test_append_after_a_cut_tail(root, sonde, tmp_path):
    """-a onto a file whose last record is incomplete cuts the fragment
    off (saying so) and appends whole records: every record of both
    recordings reads back; a file of another version is refused."""
    out = tmp_path / "a.out"
    p = ktrace(["--", "/bin/true"], out)
    assert p.returncode == 0, p.stderr
    first = kdump_json(out)
    data = out.read_bytes()
    # The END record, cut (the SUM after it gone: 72 bytes).
    data = data[:-72]
    out.write_bytes(data[:-20])
    p = ktrace(["-a", "--", "/bin/true"], out)
    assert p.returncode == 0, p.stderr
    assert re.match(rf"sonde ktrace: warning: {re.escape(str(out))} ends with "
                    rf"an incomplete record \(68 bytes at offset "
                    rf"{len(data) - 88}\): cut off before appending\n",
                    p.stderr), p.stderr
    p = run([SONDE, "kdump", "-f", str(out), "--format", "json"])
    assert p.returncode == 0 and p.stderr == ""
    both = [json.loads(l) for l in p.stdout.splitlines()[1:]]
    assert both[:len(first)] == first
    assert [r["type"] for r in both].count("EXEC") == 2
    assert end_record(out)["how"] == "exit"
    # Version 1 (another recorder's): refused, the file untouched.
    v1 = bytearray(out.read_bytes())
    v1[8:12] = (1).to_bytes(4, "little")
    out.write_bytes(bytes(v1))
    p = ktrace(["-a", "--", "/bin/true"], out)
    assert p.returncode == 1 and "version 1 trace" in p.stderr
    assert out.read_bytes() == bytes(v1)
