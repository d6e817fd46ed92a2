# SPDX-License-Identifier: GPL-2.0-only
"""`sonde dtrace`'s pid provider names as dtrace(1) names them: the
descriptions it refuses (with dtrace-utils' tags and words), module names
by prefix (libc, libc.so for libc.so.6), one name for aliased functions
(readelf shows the aliases), and a -c script's interpreter as a.out."""
import os
import shutil
import subprocess

import pytest

from conftest import run


def dtrace(sonde, *args, timeout=60, **kw):
    return run([sonde, "dtrace"] + list(args), timeout=timeout, **kw)


def need_uprobes():
    if not os.path.exists("/sys/bus/event_source/devices/uprobe"):
        pytest.skip("this kernel has no uprobe PMU (CONFIG_UPROBE_EVENTS)")


@pytest.mark.parametrize("desc,tag,words", [
    ("pid0:::entry", "D_PROC_BADPID", "pid0 does not contain a valid pid"),
    ("pid$target:a.out:no_such_fn:entry", "D_PROC_FUNC",
     "failed to lookup 'no_such_fn' in module 'a.out'"),
    ("pid$target:libc:-:800", "D_PROC_LIB",
     "only the a.out module is valid with the '-' function"),
    ("pid$target::-:", "D_PROC_NAME",
     "only individual addresses may be specified with the '-' function"),
    ("pid$target::-:10*", "D_PROC_NAME",
     "only individual addresses may be specified with the '-' function"),
    ("pid$target:a.out:main:beginning", "D_PROC_NAME",
     "'beginning' is an invalid probe name"),
    ("pid$target::_exit:100", "D_PROC_OFF",
     "offset 0x100 outside of function '_exit'"),
])
def test_refused_descriptions(sonde, root, desc, tag, words):
    need_uprobes()
    p = dtrace(sonde, "-xerrtags", "-c", "/bin/sleep 10", "-n", desc + " {}")
    assert p.returncode == 1
    assert p.stderr.splitlines()[0] == (
        f"dtrace: invalid probe specifier {desc} {{}}: [{tag}] {words}"), \
        p.stderr


def test_module_prefixes_name_libc(sonde, root):
    need_uprobes()
    rows = {}
    for mod in ("libc", "libc.so", "libc.so.6"):
        p = dtrace(sonde, "-l", "-c", "/bin/sleep 10", "-n",
                   f"pid$target:{mod}:malloc:entry")
        assert p.returncode == 0, p.stderr
        rows[mod] = [l.split()[2:] for l in p.stdout.splitlines()[1:]]
    assert rows["libc"] == rows["libc.so"] == rows["libc.so.6"]
    assert rows["libc"] == [["libc.so.6", "malloc", "entry"]]
    # a prefix ends at a dot: libc does not name libcap
    p = dtrace(sonde, "-l", "-c", "/bin/sleep 10", "-n",
               "pid$target:lib:malloc:entry")
    assert p.stdout.splitlines()[1:] == []
    assert "No probe matches description" in p.stderr


def test_aliases_take_one_name(sonde, root, tmp_path):
    """go and its weak alias _go are one probe, named go; malloc is malloc
    (libc's __libc_malloc is the same address)."""
    need_uprobes()
    if not shutil.which("gcc"):
        pytest.skip("no gcc")
    src = tmp_path / "w.c"
    src.write_text("#include <unistd.h>\n#pragma weak _go = go\n"
                   "int _go(int a);\nint go(int a) { return a + 1; }\n"
                   "int main(void) { sleep(30); return _go(1); }\n")
    subprocess.run(["gcc", "-O0", "-o", str(tmp_path / "w"), str(src)],
                   check=True)
    syms = run(["readelf", "-sW", str(tmp_path / "w")]).stdout
    addrs = {l.split()[7]: l.split()[1] for l in syms.splitlines()
             if len(l.split()) >= 8 and l.split()[7] in ("go", "_go")}
    assert addrs["go"] == addrs["_go"]          # the oracle: aliases
    p = dtrace(sonde, "-l", "-c", str(tmp_path / "w"), "-n",
               "pid$target:a.out:_go:entry", "-n",
               "pid$target:a.out:go:entry", "-n",
               "pid$target:libc:malloc:entry")
    assert p.returncode == 0, p.stderr
    rows = [l.split()[2:] for l in p.stdout.splitlines()[1:]]
    assert rows == [["w", "go", "entry"], ["libc.so.6", "malloc", "entry"]]


def test_script_command_is_its_interpreter(sonde, root, tmp_path):
    """-c of a #! script: its interpreter's libraries are there before it
    runs (dtrace-utils' tests run their shell-script triggers so)."""
    need_uprobes()
    script = tmp_path / "s.sh"
    script.write_text("#!/bin/sh\nexec sleep 10\n")
    script.chmod(0o755)
    p = dtrace(sonde, "-l", "-c", str(script), "-n",
               "pid$target::_exit:entry")
    assert p.returncode == 0, p.stderr
    assert ["libc.so.6", "_exit", "entry"] in [
        l.split()[2:] for l in p.stdout.splitlines()[1:]], p.stdout


SUITE = "/work/shared/dtrace-suite/test/unittest/sched"


def test_list_verbose_as_dtrace_utils(sonde):
    """-lv prints dtrace(1)'s stability report and argument types: the
    text of dtrace-utils' own expected output (its test tst.lv-wakeup)."""
    r = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared",
                     "dtrace-suite", "test", "unittest", "sched",
                     "tst.lv-wakeup.r")
    if not os.path.exists(r):
        r = os.path.join(SUITE, "tst.lv-wakeup.r")
    if not os.path.exists(r):
        pytest.skip("DTrace's suite is not here")
    want = open(r).read().splitlines()[1:]      # after "PROBE ..."
    p = dtrace(sonde, "-lv", "-n", "sched:::wakeup")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[1].split()[1:] == ["sched", "vmlinux", "wakeup"]
    assert lines[2:] == want
    p = dtrace(sonde, "-lv", "-n", "proc:::start")
    assert "\tArgument Types\n\t\tNone\n" in p.stdout


def test_switchrate_wakes_the_consumer(sonde, root):
    """-x switchrate=100hz: the consumer runs about 100 times a second
    (dtrace-utils' sched/tst.oncpu counts its on-cpu events); the default
    1hz, a few."""
    prog = ("sched:::on-cpu /pid == $pid/ { @ = count(); }"
            " tick-1s { exit(0); }")
    p = dtrace(sonde, "-q", "-x", "switchrate=100hz", "-n", prog)
    assert p.returncode == 0, p.stderr
    fast = int(p.stdout.split()[0])
    p = dtrace(sonde, "-q", "-n", prog)
    assert p.returncode == 0, p.stderr
    slow = int((p.stdout.split() or ["0"])[0])   # none: no line
    assert fast >= 40 and slow < fast / 3, (fast, slow)


def test_proc_start_and_exit_fire_their_lwp_probes(sonde, root):
    """A new process fires start then lwp-start, and at its end lwp-exit
    then exit, as dtrace-utils fires them (its proc/tst.startexit)."""
    prog = ('proc:::start, proc:::lwp-start, proc:::lwp-exit, proc:::exit'
            ' /ppid == $target/ { printf("%d %s\\n", pid, probename); }')
    p = dtrace(sonde, "-q", "-c", "/bin/sh -c '/bin/sleep 0.2; true'",
               "-n", prog)
    assert p.returncode == 0, p.stderr
    rows = [l.split() for l in p.stdout.splitlines() if l.strip()]
    assert rows, p.stdout
    pid = rows[0][0]
    assert [r[1] for r in rows if r[0] == pid] == [
        "start", "lwp-start", "lwp-exit", "exit"], p.stdout


def test_provider_glob_names_the_process(sonde, root):
    """p*d$target is pid$target (dtrace(1): the trailing digits are the
    process); a glob that does not fit pidN matches nothing."""
    need_uprobes()
    p = dtrace(sonde, "-l", "-c", "/bin/sleep 10", "-n",
               "p*d$target:libc:malloc:entry")
    assert p.returncode == 0, p.stderr
    rows = [l.split() for l in p.stdout.splitlines()[1:]]
    assert len(rows) == 1 and rows[0][1].startswith("pid"), p.stdout
    assert rows[0][2:] == ["libc.so.6", "malloc", "entry"]
    p = dtrace(sonde, "-l", "-c", "/bin/sleep 10", "-n",
               "q*d$target:libc:malloc:entry")
    assert p.stdout.splitlines()[1:] == []


def test_symbol_functions_as_statements(sonde, root, tmp_path):
    """ufunc(pc); usym(pc); umod(pc); alone are actions that print the
    name as dtrace-utils prints it ("  %-50s", quiet or not)."""
    need_uprobes()
    if not shutil.which("gcc"):
        pytest.skip("no gcc")
    src = tmp_path / "x.c"
    src.write_text("__attribute__((noinline)) int marker(int a)"
                   " { return a + 1; }\n"
                   "int main(void) { return marker(1) - 2; }\n")
    subprocess.run(["gcc", "-O0", "-fno-omit-frame-pointer", "-o",
                    str(tmp_path / "x"), str(src)], check=True)
    p = dtrace(sonde, "-q", "-c", str(tmp_path / "x"), "-n",
               'pid$target:a.out:marker:entry { ufunc(ucaller);'
               ' printf("|\\n"); umod(ucaller); printf("|\\n"); }')
    assert p.returncode == 0, p.stderr
    assert [l for l in p.stdout.splitlines() if l] == [
        "  " + "x`main".ljust(50) + "|",
        "  " + "x".ljust(50) + "|"], p.stdout
