# SPDX-License-Identifier: GPL-2.0-only
"""sonde dtrace's fbt provider on a kernel that has kprobes: the Debian 6.1
cloud kernel under qemu (tests/kernel). One boot runs sonde and, at the
same time, the guest's own kprobe_events tracer on the same function, so
the counts, arguments and return values sonde reports are checked against
what ftrace saw of the same process (busybox's wc: its cat
uses sendfile); -l is checked against the
guest's available_filter_functions (the kernel's and kptest.ko's)."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "kernel"))
import guest  # noqa: E402

D = ('fbt::vfs_read:entry /execname == "busybox"/ '
     '{ @c = count(); printf("E %d\\n", arg2); } '
     'fbt::vfs_read:return /execname == "busybox"/ '
     '{ @r = count(); printf("R %d %d\\n", arg1, arg0); } '
     'END { printa("entries %@d\\n", @c); printa("returns %@d\\n", @r); }')

SCRIPT = f"""
T=/sys/kernel/tracing
echo 'p:sondet/vr vfs_read count=%dx:u64' >> $T/kprobe_events
echo 'r:sondet/vrr vfs_read ret=$retval:s64' >> $T/kprobe_events
echo 'comm == "busybox"' > $T/events/sondet/vr/filter
echo 'comm == "busybox"' > $T/events/sondet/vrr/filter
echo 0 > $T/trace
echo 1 > $T/events/sondet/enable
echo "== run"
$SONDE dtrace -q -n '{D}' -c '/bin/busybox wc -c /proc/version'
echo "rc=$?"
echo 0 > $T/events/sondet/enable
echo "== oracle"
cat $T/trace
echo "== list"
$SONDE dtrace -l -n 'fbt::vfs_rea*:entry'
echo "rc=$?"
echo "== filter"
grep '^vfs_rea' $T/available_filter_functions
echo "== kptest"
$SONDE dtrace -l -n 'fbt:kptest::return'
echo "rc=$?"
echo "== kptest-filter"
grep '\\[kptest\\]' $T/available_filter_functions
echo "== end"
"""


@pytest.fixture(scope="module")
def out(sonde):
    try:
        text = guest.run_sonde(sonde, SCRIPT)
    except guest.Unavailable as e:
        pytest.skip(f"the qemu kernel tier is unavailable: {e}")
    parts = dict(re.findall(r"^== (\S+)\n(.*?)(?=^== )", text, re.S | re.M))
    assert set(parts) >= {"run", "oracle", "list", "filter", "kptest",
                          "kptest-filter"}, text
    return parts


def test_fbt_entry_return_against_kprobe_events(out):
    run = out["run"]
    assert "rc=0" in run.split("\n"), run
    entries = [int(x) for x in re.findall(r"^E (-?\d+)$", run, re.M)]
    returns = [(int(a), int(b)) for a, b in
               re.findall(r"^R (-?\d+) (-?\d+)$", run, re.M)]
    # The guest's own tracer on the same function and process.
    want_e = [int(x) for x in re.findall(
        r"^\s*busybox-\d+ .* vr: \(vfs_read\+0x0/\S+\) count=(\d+)$",
        out["oracle"], re.M)]
    want_r = [int(x) for x in re.findall(
        r"^\s*busybox-\d+ .* vrr: \(\S+ <- vfs_read\) ret=(-?\d+)$",
        out["oracle"], re.M)]
    assert want_e and want_r, out["oracle"]
    assert entries == want_e, (run, out["oracle"])
    assert [r for r, _ in returns] == want_r, (run, out["oracle"])
    # arg0 of a return probe: -1, the offset being unknown (dtrace-utils)
    assert all(off == -1 for _, off in returns), run
    # wc read /proc/version's text, then 0 at its end
    version_len = int(re.search(r"^(\d+) /proc/version$", run, re.M).group(1))
    assert version_len in want_r and want_r[-1] == 0, run
    assert re.search(rf"^entries {len(want_e)}$", run, re.M), run
    assert re.search(rf"^returns {len(want_r)}$", run, re.M), run


def listed(text):
    rows = [line.split() for line in text.split("\n")[1:]]
    return [r[1:] for r in rows if len(r) == 5]


def test_fbt_list_against_available_filter_functions(out):
    assert "rc=0" in out["list"].split("\n"), out["list"]
    got = listed(out["list"])
    want = sorted(set(out["filter"].split()))
    assert want, out["filter"]
    assert sorted(f for _, _, f, _ in got) == want
    assert all(p == "fbt" and m == "vmlinux" and n == "entry"
               for p, m, _, n in got), got


def test_fbt_list_module_functions(out):
    assert "rc=0" in out["kptest"].split("\n"), out["kptest"]
    got = listed(out["kptest"])
    want = sorted({line.split()[0] for line in
                   out["kptest-filter"].split("\n") if line.strip()})
    assert {"kp_level2", "kp_write"} <= set(want), want
    assert sorted(f for _, _, f, _ in got) == want
    assert all(m == "kptest" and n == "return" for _, m, _, n in got), got
