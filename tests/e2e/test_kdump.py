# SPDX-License-Identifier: GPL-2.0-only
"""sonde kdump's views against strace: the -c table against strace -c -f,
-e trace= classes and -Z/-z against strace's, -y fd names against
strace -y, time order across threads, the JSON schema (64-bit times
through a double-based parser, --merge), hex dumps against od, and damaged
files (a flipped length byte is skipped, the rest decoded)."""
import json
import os
import re
import shutil
import struct
import subprocess
import time

import pytest

from conftest import SONDE, run

BUILD = os.environ.get("SONDE_BUILD") or os.path.dirname(SONDE)
FIXTURE = os.path.join(BUILD, "tests", "unit", "ktrace-fixture")
CALLS = os.path.join(BUILD, "tests", "unit", "kdump-calls")
WORKLOAD = ["/bin/sh", "-c",
            "ls -la / >/dev/null; cat /etc/hostname /nonexistent "
            ">/dev/null 2>&1; sleep 0.2; exit 0"]


@pytest.fixture
def strace():
    path = shutil.which("strace")
    if not path:
        pytest.skip("strace is not installed (scripts/deps.sh test)")
    return path


def ktrace(out, cmd, *opts):
    p = run([SONDE, "ktrace", "-f", str(out)] + list(opts) + ["--"] + cmd,
            timeout=120)
    assert p.returncode == 0, p.stderr
    assert ", 0 dropped" in p.stderr, p.stderr
    return out


def kdump(out, *args, ok=(0,)):
    p = run([SONDE, "kdump", "-f", str(out)] + list(args), timeout=120)
    assert p.returncode in ok, p.stderr
    return p


SUMMARY_ROW = re.compile(r"^\s*([\d.]+)\s+(\d+\.\d+)\s+(\d+)\s+(?:(\d+)\s+)?"
                         r"(\d+)\s+(\d*)\s+(\S+)$")


def summary(text, max_col):
    """{syscall: (calls, errors, seconds)} from a -c table (strace's, or
    kdump's with its usecs/max column)."""
    rows = {}
    for line in text.splitlines():
        m = SUMMARY_ROW.match(line)
        if not m or m.group(7) == "total":
            continue
        assert (m.group(4) is not None) == max_col, line
        rows[m.group(7)] = (int(m.group(5)), int(m.group(6) or 0),
                            float(m.group(2)))
    return rows


def strace_summary(tmp_path, strace, cmd, *opts):
    out = tmp_path / "strace.txt"
    p = run([strace, "-f", "-c", "-w", "-o", str(out)] + list(opts) + cmd,
            timeout=120)
    assert p.returncode == 0, p.stderr
    return summary(out.read_text(), False)


def test_summary_matches_strace(root, sonde, tmp_path, strace):
    """-c: the same syscalls, calls and errors as strace -c -f on the same
    workload; the 0.2 s sleep's time within 50 ms in both (the times are
    wall-clock from entry to exit, as strace -w); sorted by time."""
    out = ktrace(tmp_path / "w.out", WORKLOAD)
    text = kdump(out, "-c").stdout
    mine = summary(text, True)
    theirs = strace_summary(tmp_path, strace, WORKLOAD)
    assert {k: v[:2] for k, v in mine.items()} == \
        {k: v[:2] for k, v in theirs.items()}
    sleep = [n for n in ("clock_nanosleep", "nanosleep") if n in mine]
    assert sleep
    assert abs(mine[sleep[0]][2] - 0.2) < 0.05, text
    assert abs(theirs[sleep[0]][2] - 0.2) < 0.05
    times = [v[2] for v in mine.values()]
    assert times == sorted(times, reverse=True)
    total = text.splitlines()[-1].split()
    assert total[-1] == "total" and int(total[-3]) == \
        sum(v[0] for v in mine.values())
    # -S calls and name; -p limits it to one process.
    calls = [v[0] for v in summary(kdump(out, "-c", "-S", "calls").stdout,
                                   True).values()]
    assert calls == sorted(calls, reverse=True)
    names = list(summary(kdump(out, "-c", "-S", "name").stdout, True))
    assert names == sorted(names)
    recs = [json.loads(l) for l in
            kdump(out, "--format", "json").stdout.splitlines()[1:]]
    ls = next(r["pid"] for r in recs if r["type"] == "EXEC" and
              r["path"].endswith("/ls"))
    only = summary(kdump(out, "-c", "-p", str(ls)).stdout, True)
    rets = {}
    for r in recs:
        if r["type"] == "RET" and r["pid"] == ls and "dur_ns" in r:
            rets[r["syscall"]] = rets.get(r["syscall"], 0) + 1
    assert {k: v[0] for k, v in only.items()} == rets


@pytest.mark.parametrize("expr", ["%file", "%network", "%process",
                                  "%signal", "%memory", "%desc",
                                  "openat,close", "!%file", "/^(open|stat)"])
def test_filters_match_strace(root, sonde, tmp_path, strace, expr):
    """-e trace=%CLASS (names, negation, regex) selects the calls strace
    selects on the same workload (compared through both tools' -c
    tables)."""
    out = ktrace(tmp_path / "w.out", WORKLOAD)
    mine = summary(kdump(out, "-c", "-e", "trace=" + expr).stdout, True)
    theirs = strace_summary(tmp_path, strace, WORKLOAD, "-e",
                            "trace=" + expr)
    assert mine, expr
    assert {k: v[:2] for k, v in mine.items()} == \
        {k: v[:2] for k, v in theirs.items()}


@pytest.mark.parametrize("opt,expr", [("-Z", "status=failed"),
                                      ("-z", "status=successful")])
def test_status_matches_strace(root, sonde, tmp_path, strace, opt, expr):
    """-Z/-z (-e status=) select the calls strace -Z/-z prints (strace -c
    counts every call whatever the status, so its lines are counted)."""
    out = ktrace(tmp_path / "w.out", WORKLOAD)
    st = tmp_path / "strace.txt"
    p = run([strace, "-f", opt, "-o", str(st)] + WORKLOAD, timeout=120)
    assert p.returncode == 0, p.stderr
    theirs = {}
    for line in st.read_text().splitlines():
        m = re.match(r"^\d+\s+(\w+)\(.* = (-?\d+|0x[0-9a-f]+|\?)", line)
        if m and m.group(2) != "?":
            theirs[m.group(1)] = theirs.get(m.group(1), 0) + 1
    for how in ([opt], ["-e", expr]):
        mine = summary(kdump(out, "-c", *how).stdout, True)
        assert {k: v[0] for k, v in mine.items()} == theirs, how
        assert all(v[1] == (v[0] if opt == "-Z" else 0)
                   for v in mine.values())


def test_failed_calls_keep_their_records(root, sonde, tmp_path):
    """-Z prints failed calls only, each with its NAMI between its CALL and
    RET; -z only the others; -Z's calls are those whose RET has an errno
    in the full output, and -z's the rest."""
    out = ktrace(tmp_path / "w.out", WORKLOAD)
    failed = kdump(out, "-Z", "-t", "cn").stdout.splitlines()
    assert failed
    for i, line in enumerate(failed):
        kind = line.split()[2]
        if kind == "RET":
            assert " errno " in line, line
        if kind == "NAMI":
            assert failed[i - 1].split()[2] in ("CALL", "NAMI")
            assert failed[i + 1].split()[2] in ("RET", "NAMI")
    assert any('"/nonexistent"' in l for l in failed)
    ok = kdump(out, "-z", "-t", "c").stdout.splitlines()
    assert not any(" errno " in l for l in ok)
    every = kdump(out, "-t", "c").stdout.splitlines()
    assert len([l for l in every if l.split()[2] == "RET"]) == \
        len([l for l in ok if l.split()[2] == "RET"]) + \
        len([l for l in failed if l.split()[2] == "RET"])


def test_fd_names_match_strace(root, sonde, tmp_path, strace):
    """-y: every fd argument of the test program's calls (after its first
    open) is named as strace -y names it: files opened, dup'ed with dup,
    dup2 and fcntl, reopened under a closed fd's number, opened relative to
    a directory fd, an eventfd and an epoll fd."""
    st = tmp_path / "strace.txt"
    p = run([strace, "-y", "-o", str(st), CALLS, "fds"])
    assert p.returncode == 0, p.stderr
    theirs = []
    for line in st.read_text().splitlines():
        m = re.match(r"^(\w+)\((\d+)<([^>]*)>", line)
        if m:
            theirs.append((m.group(1), int(m.group(2)), m.group(3)))
    out = ktrace(tmp_path / "fds.out", [CALLS, "fds"])
    mine = []
    for line in kdump(out, "-y", "-t", "c").stdout.splitlines():
        m = re.search(r" CALL  (\w+)\((0x[0-9a-f]+|\d+)<([^>]*)>", line)
        # (flags print as 0x80000<EPOLL_CLOEXEC> too)
        if m and not re.fullmatch(r"[A-Z0-9_|]+", m.group(3)):
            mine.append((m.group(1), int(m.group(2), 0), m.group(3)))
    first = theirs.index(("read", 4, "/etc/hostname"))
    assert mine[mine.index(("read", 4, "/etc/hostname")):] == theirs[first:]
    # Without -y nothing is named.
    assert "</etc/hostname>" not in kdump(out, "-t", "c").stdout


def test_time_order_across_threads(root, sonde, tmp_path):
    """Four threads on two CPUs calling getppid: kdump -E never steps back
    in time (the file can, by up to tens of microseconds: a CPU writes its
    batch of calls late), --file-order prints the same lines in the file's
    order, and every thread's own records keep their order either way."""
    out = ktrace(tmp_path / "t.out", [CALLS, "getppid", "4", "20000"],
                 "-t", "c", "-b", "64m")
    timed = kdump(out, "-E", "-H").stdout.splitlines()
    times = [float(l.split()[3]) for l in timed]
    assert all(b >= a for a, b in zip(times, times[1:]))
    raw = kdump(out, "-E", "-H", "--file-order").stdout.splitlines()
    assert sorted(raw) == sorted(timed)

    def per_thread(lines):
        d = {}
        for l in lines:
            d.setdefault(l.split()[1], []).append(l)
        return d
    assert per_thread(raw) == per_thread(timed)
    # -R: time since the thread's own previous record, never negative;
    # summed per thread it is the thread's span.
    rel = kdump(out, "-R", "-H").stdout.splitlines()
    spans = {}
    for l, t in zip(rel, timed):
        f, g = l.split(), t.split()
        assert f[:3] == g[:3] and f[4:] == g[4:]
        assert float(f[3]) >= 0
        spans.setdefault(f[1], []).append((float(f[3]), float(g[3])))
    for tid, v in spans.items():
        assert abs(sum(r for r, _ in v[1:]) - (v[-1][1] - v[0][1])) < \
            1e-6 * len(v) + 1e-5, tid


def test_call_durations(root, sonde, tmp_path):
    """-D puts each call's duration on its RET line, as strace -T: the
    0.2 s sleep's is 0.2 s; JSON has it as dur_ns, with the call id the
    CALL and its RET share."""
    out = ktrace(tmp_path / "w.out", WORKLOAD)
    lines = kdump(out, "-D").stdout.splitlines()
    sleep = [l for l in lines if re.search(r"RET   (clock_)?nanosleep 0 ",
                                           l)]
    assert len(sleep) == 1
    secs = float(re.search(r"<(\d+\.\d{6})>$", sleep[0]).group(1))
    assert 0.2 <= secs < 0.25
    # Every return has one, but a new process's return from its fork
    # (it made no call).
    rets = [l for l in lines if re.match(r"^\s*\d+ \S+\s+RET ", l)]
    assert rets and all(re.search(r" <\d+\.\d{6}>$", l) or
                        re.search(r"RET   (v?fork|clone3?) 0$", l)
                        for l in rets)
    recs = [json.loads(l) for l in
            kdump(out, "--format", "json").stdout.splitlines()[1:]]
    calls = {}
    for r in recs:
        if r["type"] == "CALL":
            calls[r["call"]] = r
        elif r["type"] == "RET" and r["syscall"] in ("clock_nanosleep",
                                                     "nanosleep"):
            c = calls[r["call"]]
            assert r["dur_ns"] == int(r["ts"]) - int(c["ts"])
            assert 0.2e9 <= r["dur_ns"] < 0.25e9


def test_json_schema_and_times(root, sonde, tmp_path):
    """--format json: a header with schema_version 3; 64-bit times as
    strings that survive a double-based parser exactly (jq 1.6 reads
    numbers as doubles: a number this size loses its last digits);
    time_ns = ts + clock_base_ns; EXEC has old_tid."""
    out = ktrace(tmp_path / "w.out", WORKLOAD)
    text = kdump(out, "--format", "json").stdout
    lines = text.splitlines()
    head = json.loads(lines[0], parse_int=float)
    assert head["schema_version"] == 3.0 and head["format_version"] == 2.0
    base = int(head["clock_base_ns"])
    recs = [json.loads(l, parse_int=float) for l in lines[1:]]
    assert recs
    for r in recs:
        assert isinstance(r["ts"], str) and isinstance(r["time_ns"], str)
        assert int(r["time_ns"]) == int(r["ts"]) + base
        assert int(r["time_ns"]) > 1.6e18
    assert any(r["type"] == "EXEC" and r["old_tid"] == r["tid"]
               for r in recs)
    jq = shutil.which("jq")
    if jq:
        p = run([jq, "-r", ".time_ns // empty"], input=text)
        assert p.stdout.split() == [r["time_ns"] for r in recs]
        p = run([jq, "-r", "(.time_ns | tonumber) // empty"],
                input=lines[1])
        # (jq 1.6 prints 17 significant digits: a 19-digit time that
        # ends in 00 may come back whole, one time in a hundred.)
        assert p.stdout.strip() != recs[0]["time_ns"] or \
            int(recs[0]["time_ns"]) % 100 == 0


def test_json_args_above_2_53(root, sonde, tmp_path):
    """Schema 3: an argument register above 2^53 (lseek's offset -1,
    2^64 - 1) is a string of its decimal digits, so a double-based reader
    (jq) prints it back exactly; the others stay numbers."""
    f = tmp_path / "f"
    f.write_bytes(b"0123456789")
    out = ktrace(tmp_path / "w.out", [
        "/usr/bin/python3", "-c",
        "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
        "os.lseek(fd, -1, os.SEEK_END)", str(f)])
    text = kdump(out, "--format", "json").stdout
    lines = text.splitlines()
    calls = [json.loads(l) for l in lines[1:]]
    calls = [r for r in calls if r["type"] == "CALL"]
    big = [a for r in calls for a in r["args"] if isinstance(a, str)]
    assert big and all(int(a) > 2 ** 53 for a in big)
    assert all(a <= 2 ** 53 for r in calls for a in r["args"]
               if not isinstance(a, str))
    seeks = [r for r in calls if r["syscall"] == "lseek" and
             r["args"][2] == os.SEEK_END]
    assert seeks and seeks[-1]["args"][1] == str(2 ** 64 - 1), seeks
    jq = shutil.which("jq")
    if not jq:
        pytest.skip("jq is not installed (scripts/deps.sh test)")
    p = run([jq, "-c", "select(.type == \"CALL\") | .args"], input=text)
    assert p.returncode == 0, p.stderr
    assert [json.loads(l) for l in p.stdout.splitlines()] == \
        [r["args"] for r in calls]


def test_json_merge(root, sonde, tmp_path):
    """--merge: one SYSCALL object per call with its paths, I/O, return
    and duration, the same calls as the CALL/RET records say."""
    out = ktrace(tmp_path / "w.out", WORKLOAD)
    recs = [json.loads(l) for l in
            kdump(out, "--format", "json").stdout.splitlines()[1:]]
    merged = [json.loads(l) for l in
              kdump(out, "--format", "json", "--merge").stdout.splitlines()]
    assert merged[0]["merged"] is True
    calls = [m for m in merged[1:] if m["type"] == "SYSCALL"]
    assert not any(m["type"] in ("CALL", "RET", "NAMI", "GIO")
                   for m in merged[1:])
    rets = {r["call"]: r for r in recs if r["type"] == "RET"}
    for c in calls:
        if c.get("unfinished"):
            assert c["call"] not in rets
            continue
        r = rets[c["call"]]
        assert (c["ret"], c["syscall"], c["ret_ts"]) == \
            (r["ret"], r["syscall"], r["ts"])
    paths = {r["call"]: [] for r in recs if r["type"] == "NAMI"}
    for r in recs:
        if r["type"] == "NAMI":
            paths[r["call"]].append(r["path"])
    for c in calls:
        assert [p["path"] for p in c.get("paths", [])] == \
            paths.get(c["call"], [])
    exits = [c for c in calls if c["syscall"] == "exit_group"]
    assert exits and all(c.get("unfinished") for c in exits)
    p = run([SONDE, "kdump", "-f", str(out), "--merge"])
    assert p.returncode == 2 and "--merge" in p.stderr


# ---- crafted files (docs/trace-format.md) ----

HDR = struct.pack("<8sIIBBHIq65s65s6s", b"SONDEKTR", 1, 168, 1, 0, 0, 0,
                  1_700_000_000_123_456_789, b"6.18.0", b"host", b"")


def rec(rtype, payload, ts, pid=77, tid=None, comm=b"dd", flags=0, cpu=0):
    payload += b"\0" * (-len(payload) % 8)
    return struct.pack("<IHHIIQHH16sI", 48 + len(payload), rtype, flags, pid,
                       tid or pid, ts, cpu, 0, comm, 0) + payload


def call(nr, args, ts, **kw):
    return rec(1, struct.pack("<II6Q", nr, 0, *args), ts, **kw)


def ret(nr, value, ts, **kw):
    return rec(2, struct.pack("<IIq", nr, 0, value), ts, **kw)


def gio(fd, nr, data, ts, write=False, total=None, **kw):
    return rec(4, struct.pack("<iIB3xIQ", fd, nr, 1 if write else 0,
                              len(data), total or len(data)) + data, ts, **kw)


def test_relative_times_per_thread(sonde, tmp_path):
    """-R is the time since the thread's own previous record: a read that
    blocks 100 ms while another thread runs shows 0.100000 on its RET."""
    f = tmp_path / "r.out"
    f.write_bytes(HDR +
                  call(0, (3, 0x1000, 10, 0, 0, 0), 5_000_000_000, tid=78) +
                  call(39, (0,) * 6, 5_000_010_000, tid=79) +
                  ret(39, 77, 5_000_020_000, tid=79) +
                  ret(0, 0, 5_100_000_000, tid=78))
    lines = kdump(f, "-R", "-H").stdout.splitlines()
    assert [l.split()[1:4] for l in lines] == [
        ["78", "dd", "0.000000"], ["79", "dd", "0.000000"],
        ["79", "dd", "0.000010"], ["78", "dd", "0.100000"]]
    assert lines[-1].endswith("RET   read 0 <0.100000>")


def test_comm_escaped(sonde, tmp_path):
    """A thread name's bytes >= 0x80 and control characters are escaped as
    a path's are (text), kept exactly in comm_hex (JSON)."""
    f = tmp_path / "c.out"
    f.write_bytes(HDR + call(39, (0,) * 6, 5_000_000_000,
                             comm=b"caf\xe9\n\x1b[1m"))
    line = kdump(f).stdout.splitlines()[0]
    assert line.split()[1] == r"caf\351\n\033[1m"
    r = json.loads(kdump(f, "--format", "json").stdout.splitlines()[1])
    assert bytes.fromhex(r["comm_hex"]) == b"caf\xe9\n\x1b[1m"


def test_hex_dumps(sonde, tmp_path):
    """-X dumps I/O data in hex with the printable bytes beside, -x only
    data that is not text; the bytes are od's."""
    data = bytes(range(0, 256, 7)) + b"tail"
    f = tmp_path / "x.out"
    f.write_bytes(HDR + gio(3, 0, data, 5_000_000_000) +
                  gio(3, 0, b"plain text\n", 5_000_000_100) +
                  gio(3, 0, b"cut", 5_000_000_200, total=10))
    od = subprocess.run(["od", "-An", "-v", "-tx1"], input=data,
                        capture_output=True).stdout.decode().split()
    for opt in ("-x", "-X"):
        lines = kdump(f, opt).stdout.splitlines()
        dump = [l for l in lines if re.match(r"^\s+[0-9a-f]{4} ", l)]
        got = []
        for l in dump[:3]:
            hexpart = l.split("|")[0].split()[1:]
            got += [h[i:i + 2] for h in hexpart for i in (0, 2) if h[i:]]
        assert got == od, opt
        if opt == "-X":
            assert dump[0].endswith("|" + "".join(
                chr(b) if 0x20 <= b < 0x7f else "." for b in data[:16]) +
                "|")
            assert any("70 6c" in l or "706c" in l for l in dump)
        else:
            assert '       "plain text\\n"' in lines
    # Data the recorder cut is marked.
    assert '       "cut"...' in kdump(f).stdout.splitlines()


def test_corrupt_length_is_skipped(root, sonde, tmp_path):
    """A flipped length byte in a real trace (at 12 records in turn, each
    of the bits that keep it a multiple of 8): kdump reports the skipped
    byte range on one line, exits 1, and prints every record before and
    after it as in the intact file; a length grown over whole records
    hides none of them."""
    out = ktrace(tmp_path / "w.out", WORKLOAD, "-t", "cnp")
    data = out.read_bytes()
    ends, off = [], 168
    while off < len(data):
        ends.append(off)
        off += int.from_bytes(data[off:off + 4], "little")
    bad = tmp_path / "bad.out"

    def records(f, ok):
        p = kdump(f, "--file-order", "--format", "json", ok=ok)
        recs = [json.loads(l) for l in p.stdout.splitlines()[1:]]
        for r in recs:
            r.pop("call", None)
            r.pop("dur_ns", None)
        return p, recs
    _, full = records(out, (0,))
    step = max(1, (len(ends) - 2) // 12)
    for victim in ends[1:-1:step]:
        size = int.from_bytes(data[victim:victim + 4], "little")
        for bit in (0x08, 0x40, 0x80):
            m = bytearray(data)
            m[victim] ^= bit
            bad.write_bytes(bytes(m))
            p, got = records(bad, (1,))
            err = p.stderr.splitlines()
            assert len(err) == 1 and "corrupt records: skipped bytes " in \
                err[0], (victim, bit, p.stderr)
            lo, hi = map(int, re.search(r"skipped bytes (\d+)-(\d+)",
                                        err[0]).groups())
            assert lo == victim and hi + 1 in ends, (victim, bit, err)
            assert [r for r in got if r["offset"] > hi] == \
                [r for r in full if r["offset"] > hi]
            assert [r for r in got if r["offset"] < victim] == \
                [r for r in full if r["offset"] < victim]
            assert hi + 1 == victim + size, (victim, bit, size, err)
    # The text view says the same.
    assert kdump(bad, ok=(1,)).stderr.splitlines() == err


def test_loss_summary(root, sonde, tmp_path):
    """A trace that lost records ends with one line saying how many, per
    process, equal to its DROP records' counts (text and -c)."""
    out = tmp_path / "drops.out"
    p = run([SONDE, "ktrace", "-b", "64k", "-f", str(out), "--", "dd",
             "if=/dev/zero", "of=/dev/null", "bs=1", "count=30000"],
            timeout=120)
    assert p.returncode == 0, p.stderr
    if ", 0 dropped" in p.stderr:
        pytest.skip("the writer kept up with a 64 KiB buffer: no drops")
    recs = [json.loads(l) for l in
            kdump(out, "--format", "json").stdout.splitlines()[1:]]
    lost = sum(r["lost"] for r in recs if r["type"] == "DROP")
    dd = next(r["pid"] for r in recs if r["type"] == "EXEC")
    want = f"# {lost} records lost (ring buffer full): {lost} of process {dd}"
    assert kdump(out).stdout.splitlines()[-1] == want
    assert kdump(out, "-c").stdout.splitlines()[-1] == want
    small = tmp_path / "w.out"
    ktrace(small, ["/bin/true"])
    assert not kdump(small).stdout.splitlines()[-1].startswith("#")


def split_args(s):
    """strace's arguments at the top level: commas inside quotes, braces
    and brackets do not split."""
    out, depth, cur, quote, esc = [], 0, "", False, False
    for c in s:
        if quote:
            cur += c
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                quote = False
            continue
        if c == '"':
            quote = True
        elif c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


# Names strace prints for what kdump prints otherwise, or for the value 0.
SYNONYMS = {"STATX_ALL": {"STATX_BASIC_STATS", "STATX_BTIME"},
            "AT_STATX_SYNC_AS_STAT": set()}


# strace leaves out arguments an operation does not use (futex's uaddr2
# for FUTEX_WAIT_BITSET): compare only the ones before.
ALIGNED = {"futex": 2}


def names(arg):
    """The symbolic names an argument is printed with: kdump's
    0x80<A|B> or A|B, strace's A|B; None for numbers, pointers, strings,
    structures."""
    m = re.fullmatch(r"(?:0x[0-9a-f]+|\d+)<([A-Z_][A-Z0-9_|]*)>", arg)
    if m:
        arg = m.group(1)
    if arg == "NULL" or \
            not re.fullmatch(r"[A-Z_][A-Z0-9_]*(\|[A-Z_][A-Z0-9_]*)*", arg):
        return None
    out = set()
    for n in arg.split("|"):
        out |= SYNONYMS.get(n, {n})
    return out


def test_decoders_match_strace(root, sonde, tmp_path, strace):
    """Every argument strace names in the test program's calls (sockets,
    socket options and levels, MSG_ flags, ioctl requests, fcntl commands,
    arguments and F_GETFL/F_GETFD results, futex ops, clocks, epoll_ctl,
    the flags of dup3, pipe2, accept4, eventfd2, epoll_create1, inotify,
    timerfd, signalfd, memfd_create, renameat2, getrandom, statx's mask,
    madvise, prctl, rlimits, wait4, flock) kdump names the same (the same
    set of names; fields, not lines), and signed arguments print signed."""
    d = tmp_path / "d"
    d.mkdir()
    st = tmp_path / "strace.txt"
    p = run([strace, "-o", str(st), CALLS, "decode", str(d)])
    assert p.returncode == 0, p.stderr
    theirs = []
    for line in st.read_text().splitlines():
        m = re.match(r"^(\w+)\((.*)\)\s+= (.*)$", line)
        if m:
            theirs.append((m.group(1), split_args(m.group(2)), m.group(3)))
    first = next(i for i, c in enumerate(theirs)
                 if c[0] == "openat" and c[1][1].endswith('/file"'))
    theirs = theirs[first:]
    d2 = tmp_path / "d2"
    d2.mkdir()
    out = ktrace(tmp_path / "dec.out", [CALLS, "decode", str(d)], "-t", "c")
    lines = kdump(out).stdout.splitlines()
    mine = []
    for line in lines:
        m = re.search(r" CALL  (\w+)\((.*)\)$", line)
        if m:
            mine.append([m.group(1), m.group(2).split(","), None])
        m = re.search(r" RET   (\w+) (.*)$", line)
        if m and mine and mine[-1][0] == m.group(1):
            mine[-1][2] = m.group(2)
    first = next(i for i, c in enumerate(mine) if c[0] == "openat" and
                 c[1][2].startswith("0x242<"))
    mine = mine[first:]
    assert [c[0] for c in mine[:len(theirs)]] == [c[0] for c in theirs]
    compared, bad = 0, []
    for (name, targs, tret), (_, margs, mret) in zip(theirs, mine):
        for i, a in enumerate(targs):
            want = names(a)
            if want is None or i >= len(margs) or i >= ALIGNED.get(name, 6):
                continue
            if names(margs[i]) != want:
                bad.append((name, i, a, margs[i]))
            compared += 1
        m = re.search(r"\(flags ([A-Z_|]+)\)$", tret)
        if m:
            assert names(mret.split()[0]) == names(m.group(1)), (name, tret,
                                                                mret)
            compared += 1
        # A negative fd or pid prints as strace prints it.
        for i, a in enumerate(targs):
            if a == "-1" and i < len(margs):
                assert margs[i] == "-1", (name, i, margs)
    assert not bad
    assert compared >= 50, compared


def norm(arg):
    """An argument as both tools print it, addresses left out (strace
    prints pointers kdump cannot follow, 0x7ffd..., and the reverse), and
    port numbers (two runs get two)."""
    arg = re.sub(r"0x[0-9a-f]{6,}", "PTR", arg)
    arg = arg.replace("STATX_ALL", "STATX_BASIC_STATS|STATX_BTIME")
    # getrandom's bytes, and the program's report of them.
    arg = re.sub(r'^"(\\x[0-9a-f]{2})+"$', '"RANDOM"', arg)
    arg = re.sub(r"random [0-9a-f]{8}", "random RANDOM", arg)
    return re.sub(r"htons\(\d+\)", "htons(PORT)", arg)


def strace_lines(path):
    calls = []
    for line in path.read_text().splitlines():
        m = re.match(r"^(?:\d+\s+)?(\w+)\((.*)\)\s+= (.*)$", line)
        if m:
            calls.append((m.group(1), split_args(m.group(2)), m.group(3)))
    return calls


def test_strace_view_matches_strace(root, sonde, tmp_path, strace):
    """--strace on the test program's 57 calls: every argument that strace
    prints as a string, a structure, an array or names (not a bare
    number or address) kdump prints the same, the path names, data,
    sockaddrs, stat, statx, fd pairs, epoll_event, itimerspec, sigset and
    rlimits coming from the trace's NAMI, GIO and STRU records; returns
    and errno names too."""
    d = tmp_path / "d"
    d.mkdir()
    st = tmp_path / "strace.txt"
    p = run([strace, "-o", str(st), CALLS, "decode", str(d)])
    assert p.returncode == 0, p.stderr
    theirs = strace_lines(st)
    first = next(i for i, c in enumerate(theirs)
                 if c[0] == "openat" and c[1][1].endswith('/file"'))
    theirs = theirs[first:]
    for f in d.iterdir():
        f.unlink()
    out = ktrace(tmp_path / "dec.out", [CALLS, "decode", str(d)])
    text = kdump(out, "--strace").stdout
    mine = [(n, a, r) for n, a, r in strace_lines_text(text)]
    first = next(i for i, c in enumerate(mine)
                 if c[0] == "openat" and c[1][1].endswith('/file"'))
    mine = mine[first:]
    assert [c[0] for c in mine[:len(theirs)]] == [c[0] for c in theirs]
    compared, bad, unrecorded = 0, [], []
    for (name, targs, tret), (_, margs, mret) in zip(theirs, mine):
        for i, a in enumerate(targs):
            if i >= ALIGNED.get(name, 6) or i >= len(margs):
                continue
            if re.fullmatch(r"-?\d+|0x[0-9a-f]+|NULL", a) or \
                    (name, i) == ("clock_gettime", 1):     # differs per run
                continue
            if a.startswith("[") and "=" not in a and name in ("ioctl",):
                continue        # FIONREAD's [1]: the int it points to
            t, m = norm(a), norm(margs[i])
            if names(a) is not None:
                t, m = names(a), names(margs[i])
            elif m == "PTR":
                # What the pointer points to is not in the file (a
                # setsockopt value, getrandom's bytes): counted apart.
                unrecorded.append((name, i))
                continue
            if t != m:
                bad.append((name, i, a, margs[i]))
            compared += 1
        # Returns: the number and the errno's name.
        tr, mr = tret.split(" (")[0], mret.split(" (")[0]
        if norm(tr) != norm(mr):
            bad.append((name, "ret", tret, mret))
        compared += 1
    assert not bad, bad
    assert compared >= 100 and len(unrecorded) <= 8, (compared, unrecorded)


def strace_lines_text(text):
    calls = []
    for line in text.splitlines():
        m = re.match(r"^\d+\s+(\w+)\((.*)\) = (.*)$", line)
        if m:
            calls.append((m.group(1), split_args(m.group(2)), m.group(3)))
    return calls


NET = r"""
import os, socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.socket(); c.connect(s.getsockname())
a, _ = s.accept()
c.send(b"hi"); a.recv(2)
r, w = os.pipe(); os.write(w, b"x"); os.read(r, 1)
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    u.connect(sys.argv[1])
except OSError:
    pass
st = os.stat(sys.argv[2])
"""


def test_structures_and_fds(root, sonde, tmp_path, strace):
    """A Python program's sockets, pipe and stat through --strace -y and
    the STRU lines: the addresses of bind, connect and accept, the pipe's
    fds, the AF_UNIX path and the stat fields are strace's (-yy's socket
    ends included), and -y names the sockets by their ends and the pipe's
    fds "pipe"."""
    prog = tmp_path / "net.py"
    prog.write_text(NET)
    f = tmp_path / "sized"
    f.write_bytes(b"x" * 1234)
    f.chmod(0o640)
    args = ["/usr/bin/python3", str(prog), str(tmp_path / "nosock"), str(f)]
    st = tmp_path / "strace.txt"
    p = run([strace, "-f", "-yy", "-o", str(st)] + args)
    assert p.returncode == 0, p.stderr
    out = ktrace(tmp_path / "net.out", args)
    text = kdump(out, "--strace", "-y").stdout

    def calls(lines, name):
        return [c for c in lines if c[0] == name]
    theirs, mine = strace_lines(st), strace_lines_text(text)
    for name, i in (("bind", 1), ("connect", 1), ("pipe2", 0)):
        t = [c[1][i] for c in calls(theirs, name)]
        m = [c[1][i] for c in calls(mine, name)]
        # strace -yy resolves the fds of the pipe: [3<pipe:[123]>, ...],
        # kdump -y [3<pipe:[]>, ...] (test_fd_pairs_named): the fds here.
        t = [re.sub(r"<[^>]*>", "", x) for x in t]
        m = [re.sub(r"<[^>]*>", "", x) for x in m]
        assert [norm(x) for x in m][-len(t):] == [norm(x) for x in t], name
    acc = calls(mine, "accept4") or calls(mine, "accept")
    tacc = calls(theirs, "accept4") or calls(theirs, "accept")
    assert acc and norm(acc[-1][1][1]).split("sin_port")[0] == \
        norm(tacc[-1][1][1]).split("sin_port")[0]
    peer = re.search(r"sin_port=htons\((\d+)\)", acc[-1][1][1]).group(1)
    # -y: the accepted socket is named by its ends, the pipe's fds.
    assert re.search(rf"= \d+<TCP:\[127\.0\.0\.1:\d+->127\.0\.0\.1:{peer}\]>",
                     text), text
    port = re.search(r"sin_port=htons\((\d+)\)",
                     calls(mine, "connect")[0][1][1]).group(1)
    assert re.search(rf"sendto\(\d+<TCP:\[(127\.0\.0\.1:\d+)?->127\.0\.0\.1:"
                     rf"{port}\]>, \"hi\"", text), text
    assert re.search(r"write\(\d+<pipe:\[\]>, \"x\", 1\) = 1", text)
    # stat's mode and size, in the text view's STRU line and --strace.
    want = [c for c in calls(theirs, "newfstatat") if str(f) in c[1][1]]
    got = [c for c in calls(mine, "newfstatat") if str(f) in c[1][1]]
    assert got and want and got[-1][1][2] == want[-1][1][2] == \
        "{st_mode=S_IFREG|0640, st_size=1234, ...}"
    lines = kdump(out, "-t", "t").stdout
    assert re.search(r"STRU  struct stat \{ dev=\d+, ino=\d+, mode=-rw-r-----, "
                     r"nlink=1, uid=\d+, gid=\d+, rdev=0, size=1234, ", lines)
    assert re.search(r"STRU  struct sockaddr \{ AF_INET, 127\.0\.0\.1:"
                     + port + " }", lines)
    assert f'STRU  struct sockaddr {{ AF_UNIX, {tmp_path}/nosock }}' in lines


BROWSER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser")


@pytest.fixture
def speedscope():
    """speedscope and playwright-core (tests/e2e/browser, npm install'ed
    by scripts/deps.sh test), node and Debian's chromium."""
    node, chromium = shutil.which("node"), shutil.which("chromium")
    release = os.path.join(BROWSER, "node_modules", "speedscope", "dist",
                           "release")
    if not node or not chromium:
        pytest.skip("node or chromium is not installed (scripts/deps.sh "
                    "test)")
    if not os.path.isdir(release) or not os.path.isdir(
            os.path.join(BROWSER, "node_modules", "playwright-core")):
        pytest.skip("speedscope and playwright-core are not installed in "
                    "tests/e2e/browser (scripts/deps.sh test)")
    return node, release


def check_trace_events(doc):
    """The Trace Event Format's fields (its documentation: "JSON Object
    Format", phases X, i and M): what viewers need, on every event; and
    each thread's complete events nest (a viewer's stack)."""
    assert set(doc) >= {"traceEvents", "displayTimeUnit"}
    assert doc["displayTimeUnit"] in ("ms", "ns")
    stacks = {}
    for e in doc["traceEvents"]:
        assert isinstance(e["name"], str) and e["name"]
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        assert e["ph"] in ("X", "i", "M"), e
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "thread_name")
            assert isinstance(e["args"]["name"], str)
            continue
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0
        if e["ph"] == "i":
            assert e["s"] in ("t", "p", "g")
            continue
        assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0
        stacks.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
    for tid, spans in stacks.items():
        spans.sort(key=lambda s: (s[0], -s[1]))
        open_ = []
        for b, end in spans:
            while open_ and open_[-1] <= b:
                open_.pop()
            assert not open_ or end <= open_[-1] + 1e-3, (tid, b, end)
            open_.append(end)
    return stacks


def test_chrome_timeline_in_speedscope(root, sonde, tmp_path, speedscope):
    """--format chrome on a four-thread program with context switches: the
    JSON has the format's fields and nests; speedscope, loaded in headless
    Chromium, shows a track per thread named from the trace, and the
    worker threads' calls (lseek, getppid, sched_yield: 200 of each) with
    the time the JSON gives them; the main thread's off-CPU time inside
    its futex wait."""
    import http.server
    import threading
    node, release = speedscope
    out = ktrace(tmp_path / "t.out", [FIXTURE, "--threads", "4", "200"],
                 "-t", "cpw")
    text = kdump(out, "--format", "chrome").stdout
    doc = json.loads(text)
    stacks = check_trace_events(doc)
    recs = [json.loads(l) for l in
            kdump(out, "--format", "json").stdout.splitlines()[1:]]
    workers = sorted({r["tid"] for r in recs if r["type"] == "CALL" and
                      r["syscall"] == "lseek"})
    assert len(workers) == 4 and set(workers) <= set(stacks)
    names = {(e["tid"], e["args"]["name"]) for e in doc["traceEvents"]
             if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {(t, "ktrace-fixture") for t in workers} <= names
    www = tmp_path / "www"
    shutil.copytree(release, www)
    (www / "trace.json").write_text(text)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=str(www), **kw)

        def log_message(self, *a):
            pass
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        port = srv.server_address[1]
        url = (f"http://127.0.0.1:{port}/index.html#profileURL="
               f"http://127.0.0.1:{port}/trace.json")
        p = run([node, os.path.join(BROWSER, "speedscope.mjs"), url,
                 str(tmp_path / "shot.png"), "2"], timeout=180)
    finally:
        srv.shutdown()
    assert p.returncode == 0, p.stderr[-3000:]
    page = json.loads(p.stdout)
    assert not page["errors"], page["errors"]
    # A profile (a track) per thread, named as the trace names it.
    tracks = [q["text"][1] for q in page["profiles"]]
    for t in workers:
        assert any(f"(tid {t})" in x and "ktrace-fixture" in x
                   for x in tracks), (t, tracks)
    # The sandwich view of a worker lists its calls with their total time.
    calls = {}
    for e in doc["traceEvents"]:
        if e["ph"] == "X" and e["tid"] == workers[0]:
            calls[e["name"]] = calls.get(e["name"], 0) + e["dur"]
    prof = next(q for q in page["profiles"]
                if f"(tid {workers[0]})" in q["text"][1])
    rows = " | ".join(prof["rows"])
    for name in ("lseek", "getppid", "sched_yield"):
        assert re.search(rf"\d[\d.]*(µs|ms|s) \([\d.<%]+\) .* {name}( |$)",
                         " | ".join(r for r in prof["rows"]
                                    if r.endswith(" " + name))), (name, rows)
        assert calls[name] > 0
    assert os.path.getsize(tmp_path / "shot.png") > 10000


def test_cut_short_without_end_record(root, sonde, tmp_path):
    """A recording ends with an END record; a file whose last recording
    has none (its recorder was killed) makes kdump say "cut short" with
    the wall-clock time of its last record, on one line of standard
    error, exit 0, every record printed; a whole file says nothing. Then
    the real thing: the recorder killed with SIGKILL mid-recording."""
    out = ktrace(tmp_path / "t.out", ["/bin/true"])
    data = out.read_bytes()
    # END, then the SUM record (72 bytes) that checksums it.
    assert int.from_bytes(data[-72 + 4:-72 + 6], "little") == 16   # SUM
    assert int.from_bytes(data[-160 + 4:-160 + 6], "little") == 14  # END
    whole = kdump(out)
    assert whole.stderr == ""
    cut = tmp_path / "cut.out"
    cut.write_bytes(data[:-160])
    p = kdump(cut)
    assert p.stdout == whole.stdout
    recs = [json.loads(l) for l in
            kdump(cut, "--format", "json").stdout.splitlines()[1:]]
    t = max(int(r["time_ns"]) for r in recs)
    assert p.stderr == (f"sonde kdump: warning: {cut}: cut short: the recording has "
                        "no end record (its recorder was killed or could "
                        "not finish); its last record is at "
                        f"{t // 10**9}.{t % 10**9 // 1000:06d}\n"), p.stderr
    # ktrace -a after it adds a recording that ends well: nothing to say.
    p = run([SONDE, "ktrace", "-a", "-f", str(cut), "--", "/bin/true"])
    assert p.returncode == 0, p.stderr
    assert kdump(cut).stderr == ""
    # SIGKILL to the recorder once records are in the file.
    k9 = tmp_path / "k9.out"
    rec = subprocess.Popen([SONDE, "ktrace", "-f", str(k9), "--", "/bin/sh",
                            "-c", "for i in 1 2 3 4 5 6 7 8; do sleep 0.5; "
                            "done"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if k9.exists() and k9.stat().st_size > 4096:
                break
            time.sleep(0.1)
        rec.kill()
        rec.wait(timeout=30)
        p = kdump(k9, "--format", "json", ok=(0, 1))
        assert "cut short" in p.stderr, p.stderr
    finally:
        # The traced loop ends on its own within 4 s.
        if rec.poll() is None:
            rec.kill()
            rec.wait(timeout=30)


def test_strace_argument_counts(root, sonde, tmp_path, strace):
    """--strace prints futex and prctl with as many arguments as strace
    does on the same program (FUTEX_WAKE_PRIVATE: 3, PR_GET_DUMPABLE: 1),
    not all six."""
    d = tmp_path / "d"
    d.mkdir()
    st = tmp_path / "strace.txt"
    p = run([strace, "-o", str(st), CALLS, "decode", str(d)])
    assert p.returncode == 0, p.stderr
    for f in d.iterdir():
        f.unlink()
    out = ktrace(tmp_path / "dec.out", [CALLS, "decode", str(d)])

    def counts(calls):
        return {(n, a[1] if n == "futex" else a[0]): len(a)
                for n, a, _ in calls if n in ("futex", "prctl")}
    theirs = counts(strace_lines(st))
    mine = counts(strace_lines_text(kdump(out, "--strace").stdout))
    assert ("prctl", "PR_GET_DUMPABLE") in theirs
    assert any(k[0] == "futex" for k in theirs)
    # The futex operations whose count kdump knows (FUTEX_WAIT_BITSET's
    # five, skipping uaddr2, it does not).
    known = re.compile(r"FUTEX_(WAKE|WAIT|FD|UNLOCK_PI|TRYLOCK_PI)"
                       r"(_PRIVATE)?$|PR_")
    common = {k for k in set(theirs) & set(mine) if known.match(k[1])}
    assert ("prctl", "PR_GET_DUMPABLE") in common
    assert {k: mine[k] for k in common} == {k: theirs[k] for k in common}


# The calls of the test program whose strace text kdump cannot give (none
# left: the ints of FIONREAD, FIONBIO and FS_IOC_GETFLAGS are recorded).
UNRECORDED = set()


def same_text(line):
    """A call line with what differs between two runs left out: addresses,
    port numbers, clock readings, random bytes, strace's padding before
    " = "."""
    line = re.sub(r"0x[0-9a-f]{6,}", "PTR", line)
    line = re.sub(r"htons\(\d+\)", "htons(PORT)", line)
    line = re.sub(r"\{tv_sec=\d+, tv_nsec=\d+\}", "{TIME}", line)
    line = re.sub(r'"(\\x[0-9a-f]{2})+"', '"RANDOM"', line)
    line = re.sub(r"random [0-9a-f]{8}", "random RANDOM", line)
    return re.sub(r"\)\s+= ", ") = ", line)


def test_strace_text_equals_strace(root, sonde, tmp_path, strace):
    """--strace prints every call of the test program as strace prints it,
    whole lines (addresses, ports, clock readings and random bytes aside):
    flags in strace's table order (EFD_CLOEXEC|EFD_NONBLOCK, TFD_, SFD_),
    statx's AT_STATX_SYNC_AS_STAT and STATX_ALL, prctl's named return
    (1 (SUID_DUMP_USER)), setsockopt's value ([1]), getrandom's bytes (the
    ones the program got), memfd_create's name, fcntl's and futex's
    arguments as strace picks them (F_GETFL alone, FUTEX_WAIT_BITSET's
    timeout and FUTEX_BITSET_MATCH_ANY), EPOLL_CTL_DEL's ignored event as
    a pointer, errno messages as the C library words them, the ints ioctl
    requests point to ([1], [FS_EXTENT_FL]), wait4's options and
    sigaction's sa_flags in strace's table order (WNOHANG|WSTOPPED|
    WCONTINUED|__WALL|__WNOTHREAD, SA_RESTORER|SA_ONSTACK|...|SA_NOCLDSTOP).
    No line differs."""
    d = tmp_path / "d"
    d.mkdir()
    st = tmp_path / "strace.txt"
    p = run([strace, "-o", str(st), CALLS, "decode", str(d)])
    assert p.returncode == 0, p.stderr
    for f in d.iterdir():
        f.unlink()
    out = tmp_path / "dec.out"
    p = run([SONDE, "ktrace", "-f", str(out), "--", CALLS, "decode", str(d)],
            timeout=120)
    assert p.returncode == 0 and ", 0 dropped" in p.stderr, p.stderr
    rnd = re.search(r"random ([0-9a-f]{8})", p.stdout).group(1)
    text = kdump(out, "--strace").stdout

    def calls(lines, pre):
        got = []
        for line in lines:
            m = re.match(pre + r"((\w+)\((.*)\)\s+= .*)$", line)
            if m:
                got.append((m.group(2), split_args(m.group(3)),
                            m.group(1)))
        first = next(i for i, c in enumerate(got)
                     if c[0] == "openat" and c[1][1].endswith('/file"'))
        return got[first:]
    theirs = calls(st.read_text().splitlines(), r"^")
    mine = calls(text.splitlines(), r"^\d+\s+")
    assert [c[0] for c in mine] == [c[0] for c in theirs]
    # getrandom's bytes are the program's.
    g = next(c for c in mine if c[0] == "getrandom")
    assert g[1][0] == '"' + "".join("\\x" + rnd[i:i + 2]
                                    for i in range(0, 8, 2)) + '"', g
    equal, bad = 0, []
    for (name, targs, tline), (_, _, mline) in zip(theirs, mine):
        if same_text(tline) == same_text(mline):
            equal += 1
        elif (name, targs[1] if len(targs) > 1 else "") not in UNRECORDED:
            bad.append((tline, mline))
    assert not bad, bad
    assert equal == len(theirs) - len(UNRECORDED), (equal, len(theirs))
    assert any(re.search(r"^ioctl\(\d+, FIONREAD, \[\d+\]\)", line)
               for _, _, line in mine)
    assert any(re.search(r"^ioctl\(\d+, FS_IOC_GETFLAGS, \[", line)
               for _, _, line in mine)


HELD = r"""
import os, sys
f = os.open(sys.argv[1], os.O_RDONLY)
r, w = os.pipe()
os.dup2(f, 7)
os.chdir(os.path.dirname(sys.argv[1]))
print("ready", flush=True)
sys.stdin.readline()
os.pread(f, 3, 0)
os.write(w, b"x")
os.read(7, 2)
os.open(os.path.basename(sys.argv[1]), os.O_RDONLY)
os.chdir("/")
os.open("etc/hostname", os.O_RDONLY)
"""


def held_target(tmp_path):
    """A Python program holding a file (fd 3, dup'ed to 7) and a pipe
    (4, 5) it opened before any tracer came; it uses them once told."""
    prog = tmp_path / "held.py"
    prog.write_text(HELD)
    data = tmp_path / "data"
    data.write_bytes(b"hello world\n")
    t = subprocess.Popen(["/usr/bin/python3", str(prog), str(data)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    assert t.stdout.readline() == "ready\n"
    return t, data


def held_fds(calls):
    """The fd arguments, as annotated, of the calls that use the fds
    opened before the attach: pread64, the write to the pipe, the read of
    fd 7 (pipe inodes differ between two runs); the relative openat's
    AT_FDCWD and the fd it returns, before and after a chdir."""
    got = []
    for name, args, ret in calls:
        if name in ("pread64", "write") or (name == "read" and
                                            args[0].startswith("7")):
            got.append((name, re.sub(r"\[\d+\]", "[INO]", args[0])))
        elif name == "openat":
            got.append((name, args[0], re.sub(r"^\d+<", "FD<",
                                              ret.split()[0])))
    return got


def test_fd_names_at_attach(root, sonde, tmp_path, strace):
    """ktrace -p records the fds its target held when it attached (FD
    records, from /proc/PID/fd and fdinfo), and kdump -y names them as
    strace -y -p names them on the same program: the file by its path,
    its dup by the same path, the pipe as pipe:[INODE], AT_FDCWD by the
    working directory (an FD record of AT_FDCWD), before and after a chdir,
    and a relative open by its whole path; the FD records
    print in the text view and in JSON with the fd's status flags. (The
    recorder writes them out as soon as it is attached: a file longer
    than its header says so.)"""
    t, data = held_target(tmp_path)
    st = tmp_path / "strace.txt"
    tr = subprocess.Popen([strace, "-y", "-o", str(st), "-p", str(t.pid)],
                          stderr=subprocess.PIPE, text=True)
    end = time.time() + 20
    while time.time() < end and not re.search(
            r"TracerPid:\s+[1-9]", open(f"/proc/{t.pid}/status").read()):
        time.sleep(0.05)
    t.stdin.write("go\n")
    t.stdin.flush()
    assert t.wait(timeout=60) == 0
    tr.wait(timeout=60)
    theirs = held_fds(strace_lines(st))
    assert theirs[:3] == [("pread64", f"3<{data}>"),
                          ("write", "5<pipe:[INO]>"),
                          ("read", f"7<{data}>")], theirs
    assert theirs[3:] == [("openat", f"AT_FDCWD<{tmp_path}>", f"FD<{data}>"),
                          ("openat", "AT_FDCWD</>", "FD</etc/hostname>")], \
        theirs

    t, data = held_target(tmp_path)
    out = tmp_path / "held.out"
    tr = subprocess.Popen([SONDE, "ktrace", "-f", str(out), "-p",
                           str(t.pid)], stderr=subprocess.PIPE, text=True)
    end = time.time() + 30
    while time.time() < end and tr.poll() is None and \
            (not out.exists() or out.stat().st_size <= 168):
        time.sleep(0.05)
    t.stdin.write("go\n")
    t.stdin.flush()
    assert t.wait(timeout=60) == 0
    _, err = tr.communicate(timeout=60)
    assert tr.returncode == 0 and ", 0 dropped" in err, err
    mine = held_fds(strace_lines_text(kdump(out, "--strace", "-y").stdout))
    assert mine == theirs
    # Without the FD records nothing names them: -y has only the trace.
    text = kdump(out, "-y").stdout
    fd = [m.group(1) for m in re.finditer(r"^\s*\d+ \S+\s+FD\s+(.*)$",
                                          text, re.M)]
    assert f'3 "{data}" O_RDONLY|O_LARGEFILE|O_CLOEXEC' in fd, fd
    assert f'7 "{data}" O_RDONLY|O_LARGEFILE' in fd, fd
    assert f'AT_FDCWD "{tmp_path}"' in fd, fd
    recs = [json.loads(l) for l in
            kdump(out, "--format", "json").stdout.splitlines()[1:]]
    fds = {r["fd"]: r for r in recs if r["type"] == "FD"}
    assert fds[3]["path"] == str(data) and fds[3]["pid"] == t.pid
    assert fds[4]["path"].startswith("pipe:[")
    assert fds[5]["flags"] & os.O_ACCMODE == os.O_WRONLY
    first = min(i for i, r in enumerate(recs) if r["type"] != "FD")
    assert all(r["type"] == "FD" for r in recs[:first]) and \
        not any(r["type"] == "FD" for r in recs[first:])


INHERITS = r"""
import os, sys
os.read(int(sys.argv[1]), 5)
os.open("data", os.O_RDONLY)
os.chdir("/")
os.open("etc/hostname", os.O_RDONLY)
"""


def test_fd_names_of_a_command(root, sonde, tmp_path, strace):
    """ktrace -- COMMAND records what the command inherits before its exec
    (FD records flagged start: the fds without FD_CLOEXEC, the working
    directory), and kdump -y names them as strace -y does on the same
    command: an inherited fd by its path, AT_FDCWD by the working
    directory before and after a chdir. The records only name: the
    default text and JSON still begin with the execve, and print one
    line or object per record sonde counted."""
    prog = tmp_path / "inherits.py"
    prog.write_text(INHERITS)
    data = tmp_path / "data"
    data.write_bytes(b"hello world\n")

    def with_fd(argv):
        """argv, with the fd of data it inherits as its last argument."""
        fd = os.open(data, os.O_RDONLY)
        try:
            return fd, subprocess.run(argv + [str(fd)], cwd=tmp_path,
                                      pass_fds=(fd,),
                                      stdin=subprocess.DEVNULL,
                                      capture_output=True, text=True,
                                      timeout=120)
        finally:
            os.close(fd)

    def named(calls, fd):
        got = []
        for name, args, ret in calls:
            if name == "read" and re.match(rf"{fd}(<|$)", args[0]):
                got.append((name, re.sub(r"^\d+", "FD", args[0])))
            elif name == "openat" and args[1] in ('"data"',
                                                  '"etc/hostname"'):
                got.append((name, args[0], re.sub(r"^\d+<", "FD<",
                                                  ret.split()[0])))
        return got
    st = tmp_path / "strace.txt"
    fd, p = with_fd([strace, "-y", "-o", str(st), "/usr/bin/python3",
                     str(prog)])
    assert p.returncode == 0, p.stderr
    theirs = named(strace_lines(st), fd)
    assert theirs == [("read", f"FD<{data}>"),
                      ("openat", f"AT_FDCWD<{tmp_path}>", f"FD<{data}>"),
                      ("openat", "AT_FDCWD</>", "FD</etc/hostname>")], theirs
    out = tmp_path / "cmd.out"
    fd_num, p = with_fd([SONDE, "ktrace", "-f", str(out), "--",
                         "/usr/bin/python3", str(prog)])
    assert p.returncode == 0 and ", 0 dropped" in p.stderr, p.stderr
    assert named(strace_lines_text(kdump(out, "--strace", "-y").stdout),
                 fd_num) == theirs
    # Not shown as records of their own, nor counted.
    text = kdump(out).stdout
    assert re.match(r"^\s*\d+ \S+\s+CALL\s+execve\(", text), text[:200]
    assert not re.search(r"^\s*\d+ \S+\s+FD\s", text, re.M)
    recs = [json.loads(l) for l in kdump(out, "--format", "json").stdout
            .splitlines()[1:]]
    assert recs[0]["type"] == "CALL" and recs[0]["syscall"] == "execve"
    assert not any(r["type"] == "FD" for r in recs)
    # (sonde's count has the END record, which kdump prints no line for.)
    counted = int(re.search(r": (\d+) records", p.stderr).group(1))
    assert counted == len({r["offset"] for r in recs}) + 1


def test_fd_pairs_named(root, sonde, tmp_path, strace):
    """--strace -y names the fds pipe2 and socketpair write, as strace -y
    does: pipe2's as strace (the inode number aside: the trace has none,
    kdump prints pipe:[]), socketpair's as the calls on them name them."""
    d = tmp_path / "d"
    d.mkdir()
    st = tmp_path / "strace.txt"
    p = run([strace, "-y", "-o", str(st), CALLS, "decode", str(d)])
    assert p.returncode == 0, p.stderr
    for f in d.iterdir():
        f.unlink()
    out = tmp_path / "dec.out"
    p = run([SONDE, "ktrace", "-f", str(out), "--", CALLS, "decode", str(d)],
            timeout=120)
    assert p.returncode == 0, p.stderr
    mine = strace_lines_text(kdump(out, "--strace", "-y").stdout)
    theirs = strace_lines(st)

    def pipe2(calls):
        return [re.sub(r"pipe:\[\d+\]", "pipe:[]", a[0]) for n, a, _ in calls
                if n == "pipe2"]
    assert pipe2(mine) == pipe2(theirs)
    assert re.fullmatch(r"\[(\d+)<pipe:\[\]>, (\d+)<pipe:\[\]>\]",
                        pipe2(mine)[0]), pipe2(mine)
    pair = next(a[3] for n, a, _ in mine if n == "socketpair")
    send = next(a[0] for n, a, _ in mine if n == "sendto")
    assert pair.startswith("[" + send + ", "), (pair, send)


# Calls of the test program whose -y names kdump gives as strace -y does
# (sockets aside: kdump names them by protocol and ends, as strace -yy).
SAME_FD_NAMES = {"close", "fcntl", "flock", "epoll_create1", "eventfd2",
                 "inotify_init1", "inotify_add_watch", "timerfd_create",
                 "timerfd_settime", "signalfd4", "memfd_create"}


def test_fd_names_in_strace_view(root, sonde, tmp_path, strace):
    """--strace -y prints the fd-making calls of the test program and the
    calls on their fds as strace -y does, whole lines: a closed fd with
    the name it had (close(4</path>): the call prints at its return, after
    which the fd has none), anonymous inodes, and memfd_create's fd as
    </memfd:kdump>(deleted), the name /proc/PID/fd gives it."""
    d = tmp_path / "d"
    d.mkdir()
    st = tmp_path / "strace.txt"
    p = run([strace, "-y", "-o", str(st), CALLS, "decode", str(d)])
    assert p.returncode == 0, p.stderr
    for f in d.iterdir():
        f.unlink()
    out = ktrace(tmp_path / "dec.out", [CALLS, "decode", str(d)])
    text = kdump(out, "--strace", "-y").stdout

    def calls(lines, pre):
        got = [m.groups() for m in
               (re.match(pre + r"((\w+)\(.*\)\s+= .*)$", l) for l in lines)
               if m]
        first = next(i for i, (line, name) in enumerate(got)
                     if name == "openat" and '/file"' in line)
        return got[first:]
    theirs = calls(st.read_text().splitlines(), r"^")
    mine = calls(text.splitlines(), r"^\d+\s+")
    assert [n for _, n in mine] == [n for _, n in theirs]
    compared, bad = 0, []
    for (tline, name), (mline, _) in zip(theirs, mine):
        if name not in SAME_FD_NAMES or "socket:[" in tline:
            continue
        compared += 1
        if same_text(tline) != same_text(mline):
            bad.append((tline, mline))
    assert not bad, bad
    assert compared >= 14, compared
    assert any(re.search(r"^memfd_create\(.*= \d+</memfd:kdump>\(deleted\)$",
                         line) for line, _ in mine)
    assert any(re.search(r"^close\(4<.*/other>\) = 0", line)
               for line, _ in mine)


def test_fd_returns_match_strace(root, sonde, tmp_path, strace):
    """--strace -y names every fd the fds test program's calls return as
    strace -y does: opens, dup, and the copies dup2 and fcntl F_DUPFD make
    (named after the fd copied: the fd table takes the copy only after
    the line is printed), an eventfd and an epoll fd; nothing on returns
    that are not fds."""
    st = tmp_path / "strace.txt"
    p = run([strace, "-y", "-o", str(st), CALLS, "fds"])
    assert p.returncode == 0, p.stderr
    out = ktrace(tmp_path / "fds.out", [CALLS, "fds"])

    def rets(lines, pre):
        got = [m.groups() for m in
               (re.match(pre + r"(\w+)\(.*\)\s+= (-?\d+)(<.*>)?$", l)
                for l in lines) if m]
        return got[next(i for i, r in enumerate(got)
                        if r[2] == "</etc/hostname>"):]
    theirs = rets(st.read_text().splitlines(), r"^")
    mine = rets(kdump(out, "--strace", "-y").stdout.splitlines(),
                r"^\d+\s+")
    assert mine == theirs
    assert {n for n, _, fd in theirs if fd} >= {"dup", "dup2", "fcntl"}


def test_ioctl_int_only_where_the_request_takes_one(root, sonde, tmp_path):
    """The recorder reads 4 bytes at every successful ioctl's address
    argument; the default view shows them as an int only for requests
    whose argument is one (a pty's TIOCGPTN: its number, as strace's
    [N]), not after TCGETS, whose argument is a struct termios."""
    if not shutil.which("script"):
        pytest.skip("script (util-linux) is not installed")
    out = ktrace(tmp_path / "pty.out",
                 ["script", "-qc", "stty size", "/dev/null"])
    lines = kdump(out).stdout.splitlines()
    after = {}
    for a, b in zip(lines, lines[1:]):
        m = re.search(r" CALL  ioctl\(\w+,(\w+),", a)
        if m:
            after.setdefault(m.group(1), []).append(b.split()[2:4])
    assert ["STRU", "int"] in after["TIOCGPTN"], after
    assert after["TCGETS"] and all(x[0] != "STRU" for x in after["TCGETS"]), \
        after
    # JSON keeps every record.
    recs = [json.loads(l) for l in kdump(out, "--format", "json")
            .stdout.splitlines()[1:]]
    assert sum(r["type"] == "STRU" and r.get("struct") == "int"
               for r in recs) > len(after["TIOCGPTN"])
