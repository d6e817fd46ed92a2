# SPDX-License-Identifier: GPL-2.0-only
"""Shared fixtures for sonde's end-to-end tests: the binary, root checks,
a kernel-heavy load, parsers for sonde's own output formats, and the Rust
fixture built at test time with independent demanglers as the oracle."""
import os
import re
import shutil
import signal
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Tests send Ctrl-C (SIGINT) to the programs they start. A runner started
# in the background of a non-interactive shell inherits SIGINT and SIGQUIT
# ignored, and every program it starts would inherit that too: give this
# process a handler, so that its children start with the default action.
for _sig in (signal.SIGINT, signal.SIGQUIT):
    if signal.getsignal(_sig) == signal.SIG_IGN:
        signal.signal(_sig, signal.default_int_handler
                      if _sig == signal.SIGINT else signal.SIG_DFL)

SONDE = os.environ.get("SONDE", os.path.join(ROOT, "build", "sonde"))


@pytest.fixture(scope="session")
def sonde():
    if not os.access(SONDE, os.X_OK):
        pytest.fail(f"no sonde binary at {SONDE}; build first (make)")
    return SONDE


@pytest.fixture
def root():
    if os.geteuid() != 0:
        pytest.skip("needs root: these tests sample the real kernel")


def run(args, timeout=60, **kw):
    """Run a command, returning CompletedProcess with text output."""
    return subprocess.run(args, capture_output=True, text=True,
                          timeout=timeout, **kw)


@pytest.fixture(scope="session")
def ufixture_bin(tmp_path_factory):
    """tests/dtrace/ufixture.c (functions with known arguments, USDT
    probes when <sys/sdt.h> is there), built once, with frame pointers."""
    out = tmp_path_factory.mktemp("ufixture") / "ufixture"
    p = run(["cc", "-O1", "-g", "-pthread", "-fno-omit-frame-pointer",
             "-o", str(out),
             os.path.join(ROOT, "tests", "dtrace", "ufixture.c")])
    assert p.returncode == 0, p.stderr
    return str(out)


def last_cpu():
    return max(os.sched_getaffinity(0))


LOAD_COMM = "sonde-ddload"


@pytest.fixture
def dd_load(tmp_path_factory):
    """`dd if=/dev/zero of=/dev/null bs=1`: one CPU busy in read/write.

    dd is pinned to the last CPU so that CPU 0 is the idle one: on these
    VMs a timer on an idle CPU other than 0 barely fires, so which CPU
    idles decides whether idle time is seen at all. It runs through a
    symlink so its comm is LOAD_COMM, unique on the machine (its maps
    still name /usr/bin/dd)."""
    link = tmp_path_factory.mktemp("load") / LOAD_COMM
    link.symlink_to(shutil.which("dd"))
    p = subprocess.Popen(["taskset", "-c", str(last_cpu()), str(link),
                          "if=/dev/zero", "of=/dev/null", "bs=1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.2)
    yield p
    p.send_signal(signal.SIGKILL)
    p.wait()


TABLE_SEP = re.compile(r"^-+(\+-+)+$")
FOOTER = re.compile(r"^# (\d+) samples in (\S+ \S+) on (\d+) CPUs? "
                    r"\((\S+), (\d+) Hz\)(.*)$")


def parse_table(text):
    """Parse `sonde hot`'s table: (header, rows as lists, footer dict)."""
    lines = text.rstrip("\n").split("\n")
    assert TABLE_SEP.match(lines[1]), f"no rule under the header: {lines[:2]}"
    header = [c.strip() for c in lines[0].split(" | ")]
    rows, i = [], 2
    while i < len(lines) and lines[i]:
        rows.append([c.strip() for c in lines[i].split(" | ")])
        i += 1
    footer_lines = [l for l in lines[i:] if l]
    assert len(footer_lines) == 1, f"footer: {footer_lines}"
    m = FOOTER.match(footer_lines[0])
    assert m, f"bad footer: {footer_lines[0]}"
    foot = {"samples": int(m.group(1)), "cpus": int(m.group(3)),
            "event": m.group(4), "hz": int(m.group(5))}
    for key, pat in [("idle", r"dropped (\d+) idle"),
                     ("other", r"dropped (\d+) of other processes"),
                     ("lost", r"lost (\d+)"), ("throttled", r"throttled (\d+)"),
                     ("unknown", r"unknown (\d+)")]:
        mm = re.search(pat, m.group(6))
        foot[key] = int(mm.group(1)) if mm else 0
    return header, rows, foot


def share(cell):
    assert cell.endswith(" %"), cell
    return float(cell[:-2])


def _cpu_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[3] + v[4], sum(v)          # idle + iowait, all


class Busy:
    """Measures how much of the machine was idle while a block ran. Tests
    that compare profiles need the only load to be their own: with the
    dd load on one CPU, about half the machine stays idle."""

    def __enter__(self):
        self.i0, self.t0 = _cpu_ticks()
        return self

    def __exit__(self, *exc):
        i1, t1 = _cpu_ticks()
        self.idle = (i1 - self.i0) / max(t1 - self.t0, 1)
        return False

    def skip_if_busy(self, least=0.3):
        if self.idle < least:
            pytest.skip(f"the machine was busy with other work (idle "
                        f"{100 * self.idle:.0f} %, need {100 * least:.0f} %): "
                        f"a profile comparison needs a steady load")


def rustc_or_skip():
    """Debian's rustc (scripts/deps.sh) first: 1.63 mangles the legacy way
    by default and takes -C symbol-mangling-version=v0."""
    for rustc in ("/usr/bin/rustc", shutil.which("rustc")):
        if rustc and os.access(rustc, os.X_OK):
            return rustc
    pytest.skip("rustc is not installed (scripts/deps.sh installs Debian's)")


def rust_build(tmp_path, scheme):
    """tests/e2e/prof/spin.rs built with -O -g in the scheme ("legacy",
    rustc 1.63's default, or "v0"): the executable, the symbol of
    Spinner::spin as nm lists it and its name as rust_oracle reads it."""
    rustc = rustc_or_skip()
    exe = str(tmp_path / "spin")
    args = [rustc, "-O", "-g", "-o", exe,
            os.path.join(ROOT, "tests", "e2e", "prof", "spin.rs")]
    if scheme == "v0":
        args[1:1] = ["-C", "symbol-mangling-version=v0"]
    p = run(args, timeout=300)
    assert p.returncode == 0, p.stderr
    syms = [l.split()[2] for l in run(["nm", exe]).stdout.splitlines()
            if re.search(r"\b[tT] \S*Spinner\S*4spin", l)]
    assert len(syms) == 1, syms
    sym = syms[0]
    assert sym.startswith("_R" if scheme == "v0" else "_ZN"), sym
    want = rust_oracle([sym])[sym]
    assert "Spinner<" in want and want.endswith("spin"), want
    return exe, sym, want


def rust_oracle(symbols):
    """{symbol: readable name} as independent demanglers print them: LLVM's
    llvm-cxxfilt for v0 (it leaves crate disambiguators out, as sonde
    does), binutils' c++filt for legacy with its "::h<hash>" dropped."""
    out = {}
    for tool, prefix in (("llvm-cxxfilt", "_R"), ("c++filt", "_ZN")):
        mine = sorted(s for s in symbols if s.startswith(prefix))
        if not mine:
            continue
        if not shutil.which(tool):
            pytest.skip(f"{tool} is not installed")
        names = run([tool], input="\n".join(mine) + "\n").stdout.splitlines()
        assert len(names) == len(mine), (tool, mine, names)
        for s, n in zip(mine, names):
            assert n != s, (tool, s)
            out[s] = re.sub(r"::h[0-9a-f]{16}$", "", n) if tool == "c++filt" \
                else n
    return out
