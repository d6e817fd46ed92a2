# SPDX-License-Identifier: GPL-2.0-only
"""One symbolizer behind every tool: code that `sonde hot --user`,
`sonde prof` and `sonde dtrace` see must be named the same way by all
three, as independent tools name it — the vDSO's functions as nm lists
them in its own image, JIT code by the perf map its process wrote.
tests/e2e/prof/names.cc is built at test time and spins in each."""
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, run


@pytest.fixture(scope="module")
def names_bin(tmp_path_factory):
    if not any(os.access(os.path.join(d, "g++"), os.X_OK)
               for d in os.environ.get("PATH", "/usr/bin").split(":")):
        pytest.skip("g++ is not installed (scripts/deps.sh installs it)")
    out = tmp_path_factory.mktemp("names") / "names"
    p = run(["g++", "-O1", "-g", "-fno-omit-frame-pointer", "-o", str(out),
             os.path.join(ROOT, "tests", "e2e", "prof", "names.cc")])
    assert p.returncode == 0, p.stderr
    return str(out)


class Spinner:
    """names SCENARIO running for `secs`, started and waited for."""

    def __init__(self, exe, scenario, secs, *extra):
        self.p = subprocess.Popen([exe, scenario, str(secs)] + list(extra),
                                  stdout=subprocess.PIPE, text=True)
        assert self.p.stdout.readline().strip() == "ready"
        self.pid = self.p.pid

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.p.kill()
        self.p.wait()
        try:
            os.unlink(f"/tmp/perf-{self.pid}.map")
        except FileNotFoundError:
            pass
        return False


def vdso_names(image):
    """{weak name: the global name at its address} of a vDSO image, as
    nm lists it (clock_gettime -> __vdso_clock_gettime)."""
    by_addr = {}
    for line in run(["nm", "-D", "--defined-only", image]).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TW":
            by_addr.setdefault(f[0], {})[f[1]] = f[2].split("@")[0]
    return {v["W"]: v["T"] for v in by_addr.values() if "T" in v and "W" in v}


def hot_rows(sonde, pid, secs="1500ms"):
    p = run([sonde, "hot", "-d", secs, "--user", "-p", str(pid), "-f",
             "--format", "json"])
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["rows"]


def top_user_row(rows, module):
    mine = [r for r in rows if r["module"] == module]
    assert mine, rows
    return mine[0]


def test_hot_names_the_vdso(sonde, root, names_bin, tmp_path):
    """A program spinning in clock_gettime: hot's hottest [vdso] function
    is the global name nm lists in the vDSO's image at clock_gettime's
    address (__vdso_clock_gettime), not the weak alias."""
    image = str(tmp_path / "vdso.so")
    with Spinner(names_bin, "vdso", 10, image) as s:
        rows = hot_rows(sonde, s.pid)
    want = vdso_names(image)["clock_gettime"]
    row = top_user_row(rows, "[vdso]")
    assert row["method"] == want, rows


def test_hot_names_jit_code_by_its_perf_map(sonde, root, names_bin):
    """Code in anonymous memory that /tmp/perf-PID.map names: hot's row is
    the map's name, in the module perf-PID.map, and holds most samples."""
    with Spinner(names_bin, "jit", 10) as s:
        rows = hot_rows(sonde, s.pid)
        module = f"perf-{s.pid}.map"
    row = top_user_row(rows, module)
    assert row["method"] == "sonde_jit_spin", rows
    assert row["calls"] >= 0.5 * sum(r["calls"] for r in rows), rows


def prof_folded(sonde, *cmd):
    p = run([sonde, "prof", "--format", "folded", "--"] + list(cmd),
            timeout=120)
    assert p.returncode == 0, p.stderr
    leaves = {}
    for line in p.stdout.splitlines():
        if line == "ready":
            continue
        stack, count = line.rsplit(" ", 1)
        leaf = stack.split(";")[-1]
        leaves[leaf] = leaves.get(leaf, 0) + int(count)
    return leaves


def test_prof_names_the_vdso(sonde, names_bin, tmp_path):
    """prof names the vDSO's code as hot does: nm's global name."""
    image = str(tmp_path / "vdso.so")
    leaves = prof_folded(sonde, names_bin, "vdso", "1.5", image)
    want = vdso_names(image)["clock_gettime"]
    assert leaves.get(want, 0) >= 0.2 * sum(leaves.values()), leaves


def test_prof_names_jit_code_by_its_perf_map(sonde, names_bin):
    """prof names code in anonymous memory by the perf map its process
    wrote (and leaves the map where the program left it)."""
    before = set(os.listdir("/tmp"))
    try:
        leaves = prof_folded(sonde, names_bin, "jit", "1.5")
    finally:
        for f in set(os.listdir("/tmp")) - before:
            if f.startswith("perf-") and f.endswith(".map"):
                os.unlink(os.path.join("/tmp", f))
    assert leaves.get("sonde_jit_spin", 0) >= 0.5 * sum(leaves.values()), \
        leaves


def dtrace_rows(sonde, pid, func="ufunc"):
    """@u[FUNC(arg1)] and @s[ustack()] of pid's user samples for 1.5 s:
    ({key: count}, [each ustack's leaf frame]) ."""
    script = ("profile-497 /pid == $target && arg1/ "
              f"{{ @u[{func}(arg1)] = count(); @s[ustack()] = count(); }} "
              "tick-1500ms { exit(0); }")
    p = run([sonde, "dtrace", "-q", "-p", str(pid), "-n", script])
    assert p.returncode == 0, p.stderr
    rows = {m.group(1): int(m.group(2)) for m in
            re.finditer(r"^  (\S.*?)\s+(\d+)$", p.stdout, re.M)
            if not m.group(1).startswith(" ")}
    leaves, first = [], True
    for line in p.stdout.splitlines():
        if re.match(r"^ {14}\S", line):
            if first:
                leaves.append(line.strip())
            first = False
        elif not line.strip() or re.match(r"^ +\d+$", line):
            first = True
    return rows, leaves


def test_dtrace_names_the_vdso(sonde, root, names_bin, tmp_path):
    """ufunc() and ustack() name the vDSO's code as hot and prof do."""
    image = str(tmp_path / "vdso.so")
    with Spinner(names_bin, "vdso", 10, image) as s:
        rows, leaves = dtrace_rows(sonde, s.pid)
    want = "[vdso]`" + vdso_names(image)["clock_gettime"]
    assert rows.get(want, 0) >= 0.2 * sum(rows.values()), rows
    assert any(re.fullmatch(re.escape(want) + r"(\+0x[0-9a-f]+)?", l)
               for l in leaves), leaves


def test_dtrace_names_jit_code_by_its_perf_map(sonde, root, names_bin):
    """ufunc() and ustack() name JIT code by its process's perf map."""
    with Spinner(names_bin, "jit", 10) as s:
        rows, leaves = dtrace_rows(sonde, s.pid)
        want = f"perf-{s.pid}.map`sonde_jit_spin"
    assert rows.get(want, 0) >= 0.5 * sum(rows.values()), rows
    assert any(re.fullmatch(re.escape(want) + r"(\+0x[0-9a-f]+)?", l)
               for l in leaves), leaves


@pytest.fixture(scope="module")
def cxx_spin(names_bin):
    """The symbol nm lists for ns::S<long>::spin and its name as c++filt
    prints it."""
    syms = [l.split()[2] for l in run(["nm", names_bin]).stdout.splitlines()
            if "1SIlE4spin" in l]
    assert len(syms) == 1, syms
    want = run(["c++filt", syms[0]]).stdout.strip()
    assert want == "ns::S<long>::spin(long)", want
    return syms[0], want


def test_prof_names_cxx_as_cxxfilt(sonde, names_bin, cxx_spin):
    """prof's folded leaves and table name the C++ template's member as
    c++filt prints its symbol; --no-demangle shows the symbol."""
    sym, want = cxx_spin
    leaves = prof_folded(sonde, names_bin, "cxx", "1.5")
    assert leaves.get(want, 0) >= 0.8 * sum(leaves.values()), leaves
    p = run([sonde, "prof", "--format", "table", "-n", "3", "--", names_bin,
             "cxx", "1"], timeout=120)
    assert p.returncode == 0, p.stderr
    rows = [l.split(" | ")[0].strip() for l in p.stdout.splitlines()
            if " | " in l]
    assert rows[1] == want, p.stdout        # the hottest row
    p = run([sonde, "prof", "--format", "folded", "--no-demangle", "--",
             names_bin, "cxx", "1"], timeout=120)
    assert p.returncode == 0, p.stderr
    assert sym in p.stdout and want not in p.stdout, p.stdout


def test_hot_names_cxx_as_cxxfilt(sonde, root, names_bin, cxx_spin):
    """hot --user: the row's method is nm's symbol, shown as c++filt prints
    it (and as the symbol with --no-demangle)."""
    sym, want = cxx_spin
    with Spinner(names_bin, "cxx", 10) as s:
        rows = hot_rows(sonde, s.pid)
        p = run([sonde, "hot", "-d", "1s", "--user", "-p", str(s.pid), "-f",
                 "--no-demangle"])
    row = top_user_row(rows, "names")
    assert row["method"] == sym and row["demangled"] == want, rows
    assert row["calls"] >= 0.5 * sum(r["calls"] for r in rows), rows
    assert p.returncode == 0, p.stderr
    assert sym in p.stdout and want not in p.stdout, p.stdout


def test_dtrace_names_cxx_as_cxxfilt(sonde, root, names_bin, cxx_spin):
    """ufunc() and ustack() name the C++ function as c++filt prints it."""
    sym, want = cxx_spin
    with Spinner(names_bin, "cxx", 10) as s:
        rows, leaves = dtrace_rows(sonde, s.pid)
    want = "names`" + want
    assert rows.get(want, 0) >= 0.5 * sum(rows.values()), rows
    assert any(re.fullmatch(re.escape(want) + r"(\+0x[0-9a-f]+)?", l)
               for l in leaves), leaves


SPIN_LIB = """
void sonde_lib_spin(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}
"""


def nm_size(binary, symbol):
    """The size nm -S gives symbol in binary."""
    for line in run(["nm", "-S", "--defined-only", binary]).stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == symbol:
            return int(f[1], 16)
    raise AssertionError(f"{symbol} not in nm -S {binary}")


def test_dtrace_names_the_target_after_it_exits(sonde, root, names_bin,
                                                 cxx_spin, tmp_path):
    """dtrace -c: the aggregation is printed after the command has exited
    (its /proc/PID/maps gone), and ufunc() and ustack() still name its
    functions — in the binary it exec'd and in a library it dlopen'ed
    later — as dtrace(1) does: the target's mappings are followed from
    its exec. Names are nm's (c++filt's for C++), ustack's offsets lie
    within nm -S's size of the function."""
    lib = str(tmp_path / "libspin.so")
    src = tmp_path / "spin.c"
    src.write_text(SPIN_LIB)
    assert run(["cc", "-O1", "-shared", "-fPIC", "-o", lib,
                str(src)]).returncode == 0
    script = ("profile-497 /pid == $target && arg1/ "
              "{ @[ufunc(arg1)] = count(); @s[ustack(1)] = count(); }")
    for cmd, want, binary, sym in (
            (f"{names_bin} cxx 1.5", "names`" + cxx_spin[1], names_bin,
             cxx_spin[0]),
            (f"{names_bin} dlopen 1.5 {lib}", "libspin.so`sonde_lib_spin",
             lib, "sonde_lib_spin")):
        p = run([sonde, "dtrace", "-q", "-c", cmd, "-n", script],
                timeout=120)
        assert p.returncode == 0, p.stderr
        rows = {m.group(1): int(m.group(2)) for m in
                re.finditer(r"^  (\S.*?)\s+(\d+)$", p.stdout, re.M)}
        assert rows.get(want, 0) >= 0.5 * sum(rows.values()) > 0, rows
        assert not any(k.startswith("0x") for k in rows
                       if rows[k] > 0.1 * sum(rows.values())), rows
        # ustack(1): one frame line then the count, per stack
        frames = re.findall(r"^\s+(\S+)\n\s+(\d+)$", p.stdout, re.M)
        size = nm_size(binary, sym)
        named = 0
        for frame, n in frames:
            m = re.fullmatch(re.escape(want) + r"\+0x([0-9a-f]+)", frame)
            if m:
                assert int(m.group(1), 16) < size, (frame, size)
                named += int(n)
        assert named >= 0.5 * sum(int(n) for _, n in frames) > 0, p.stdout


class NsSpinner:
    """names cxx SECS run as pid 1 of new mount and pid namespaces, from a
    private copy under a tmpfs mounted only there: its path does not
    exist on the host. The whole group is killed on exit."""

    def __init__(self, exe, tmp_path, secs, scenario="cxx"):
        self.dir = str(tmp_path / "private")
        os.mkdir(self.dir)
        self.path = self.dir + "/names-ns"
        sh = (f"mount -t tmpfs none {self.dir} && cp {exe} {self.path} && "
              f"exec {self.path} {scenario} {secs}")
        if scenario == "jit":
            # a /tmp of its own too, for its perf map: the binary goes
            # under /mnt (overmounted only there)
            self.dir, self.path = "/mnt", "/mnt/names-ns"
            sh = (f"mount -t tmpfs none /mnt && cp {exe} {self.path} && "
                  f"mount -t tmpfs none /tmp && cd / && "
                  f"exec {self.path} jit {secs}")
        self.p = subprocess.Popen(["unshare", "-m", "-p", "-f",
                                   "--mount-proc", "sh", "-c", sh],
                                  stdout=subprocess.PIPE, text=True,
                                  start_new_session=True)
        try:
            assert self.p.stdout.readline().strip() == "ready"
            with open(f"/proc/{self.p.pid}/task/{self.p.pid}/children") as f:
                self.pid = int(f.read().split()[0])
        except BaseException:
            self.__exit__()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            os.killpg(self.p.pid, 9)
        except ProcessLookupError:
            pass
        self.p.wait()
        return False


def test_container_process_is_symbolized(sonde, root, names_bin, cxx_spin,
                                         tmp_path):
    """A process in other mount and pid namespaces (unshare -m -p), running
    a binary whose path exists only there: hot --user and dtrace's
    ustack() name its functions (through /proc/PID/root) as nm and
    c++filt name them in the same file, and hot's pprof carries the pid
    it knows itself by (NStgid, 1) beside the host's, as go tool pprof
    reads the labels."""
    sym, want = cxx_spin
    with NsSpinner(names_bin, tmp_path, 60) as s:
        assert not os.path.exists(s.path)       # only inside
        assert os.path.exists(f"/proc/{s.pid}/root{s.path}")
        top = top_user_row(hot_rows(sonde, s.pid), "names-ns")
        assert (top["method"], top["demangled"]) == (sym, want), top

        p = run([sonde, "dtrace", "-q", "-p", str(s.pid), "-n",
                 "profile-497 /pid == $target && arg1/ "
                 "{ @[ustack(1)] = count(); } tick-1500ms { exit(0); }"],
                timeout=120)
        assert p.returncode == 0, p.stderr
        frames = re.findall(r"^\s+(\S+)\n\s+(\d+)$", p.stdout, re.M)
        size = nm_size(names_bin, sym)
        named = 0
        for frame, n in frames:
            m = re.fullmatch(re.escape("names-ns`" + want) +
                             r"\+0x([0-9a-f]+)", frame)
            if m:
                assert int(m.group(1), 16) < size, (frame, size)
                named += int(n)
        assert named >= 0.5 * sum(int(n) for _, n in frames) > 0, p.stdout

        out = str(tmp_path / "ns.pb.gz")
        p = run([sonde, "hot", "-d", "1500ms", "--user", "-p", str(s.pid),
                 "--format", "pprof", "-o", out])
        assert p.returncode == 0, p.stderr
        if shutil.which("go"):
            p = run(["go", "tool", "pprof", "-tags", out], timeout=120)
            assert p.returncode == 0, p.stderr
            tags = dict(re.findall(r"^\s*(\w+): Total .*\n((?:\s+\S+ \(.*\n)+)",
                                   p.stdout, re.M))
            assert re.search(r"\): 1$", tags["nspid"], re.M), p.stdout
            assert re.search(rf"\): {s.pid}$", tags["pid"], re.M), p.stdout


def test_hot_names_jit_code_in_a_container(sonde, root, names_bin,
                                           tmp_path):
    """A JIT in a container writes its perf map into its own /tmp, named
    by the pid it knows itself by (/tmp/perf-1.map): hot reads it through
    /proc/PID/root, as perf does."""
    with NsSpinner(names_bin, tmp_path, 60, "jit") as s:
        assert not os.path.exists("/tmp/perf-1.map")
        assert os.path.exists(f"/proc/{s.pid}/root/tmp/perf-1.map")
        rows = hot_rows(sonde, s.pid)
    row = top_user_row(rows, "perf-1.map")
    assert row["method"] == "sonde_jit_spin", rows
    assert row["calls"] >= 0.5 * sum(r["calls"] for r in rows), rows


def test_prof_in_a_container(sonde, root, names_bin, cxx_spin, tmp_path):
    """sonde prof on a program started in a new mount namespace from a
    path that exists only there: its table names the C++ function as
    c++filt does."""
    d = tmp_path / "private"
    d.mkdir()
    sh = (f"mount -t tmpfs none {d} && cp {names_bin} {d}/names-ns && "
          f"exec {d}/names-ns cxx 1.5")
    p = subprocess.run([sonde, "prof", "--format", "table", "-n", "3", "--",
                        "unshare", "-m", "sh", "-c", sh],
                       capture_output=True, text=True, timeout=120,
                       start_new_session=True)
    assert p.returncode == 0, p.stderr
    rows = [l.split(" | ")[0].strip() for l in p.stdout.splitlines()
            if " | " in l]
    assert rows[1] == cxx_spin[1], p.stdout
