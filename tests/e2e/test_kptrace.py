# SPDX-License-Identifier: GPL-2.0-only
"""sonde kptrace end to end: crash reports written around small fixtures
with DWARF — a relocatable object standing in for a kernel module
(tests/unit/fixtures/kpmod.c: .text with inlining, .text.unlikely,
.init.text) and an executable standing in for vmlinux — symbolized by the
real binary and checked frame by frame against eu-addr2line (function,
file, line, inline chain); raw runtime addresses through a KASLR offset
and a /proc/modules base; and bad input of every kind. The real Debian
kernel reports are the kernel tier's (tests/kernel)."""
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, run

BUILD = os.environ.get("SONDE_BUILD", os.path.join(ROOT, "build"))
KPMOD = os.path.join(BUILD, "tests", "unit", "fixture-kpmod.o")
EXE = os.path.join(BUILD, "tests", "unit", "fixture-inline")
MOD = "fixture_kpmod"


@pytest.fixture(scope="module")
def fixtures():
    if not shutil.which("eu-addr2line"):
        pytest.skip("eu-addr2line (elfutils) is not installed")
    for f in (KPMOD, EXE):
        if not os.path.exists(f):
            pytest.fail(f"fixture {f} missing: build first")


def symbols(path):
    """name -> (section, value, size) of defined functions, from readelf."""
    out = run(["readelf", "-sW", "--section-headers", path]).stdout
    secs = {}
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", out, re.M):
        secs[m.group(1)] = m.group(2)
    syms = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) >= 8 and p[3] == "FUNC" and p[6].isdigit():
            syms[p[7]] = (secs.get(p[6]), int(p[1], 16), int(p[2], 0))
    return syms


def addr2line(path, addr, section=None):
    """eu-addr2line -f -i: [(function, basename, line)], innermost first."""
    cmd = ["eu-addr2line", "-f", "-i", "-e", path]
    if section:
        cmd += ["-j", section]
    out = run(cmd + [hex(addr)]).stdout.splitlines()
    chain = []
    for i in range(0, len(out) - 1, 2):
        func = out[i].split(" inlined at ")[0].strip()
        loc = out[i + 1].rsplit(":", 2)
        if len(loc) == 3 and not loc[2].isdigit():
            loc = out[i + 1].rsplit(":", 1)
        file, line = loc[0], loc[1]
        chain.append((func, os.path.basename(file), int(line)))
    return chain


def sonde_chain(frame):
    """The same from one JSON frame: inlines reversed, then the frame."""
    chain = [(i["function"], os.path.basename(i["file"]), i["line"])
             for i in reversed(frame["inlines"])]
    chain.append((frame["function"], os.path.basename(frame["file"]),
                  frame["line"]))
    return chain


def kptrace(sonde, text, *args, tmp_path=None, fmt="json"):
    path = tmp_path / "report.log"
    path.write_text(text)
    p = run([sonde, "kptrace", "--format", fmt, str(path), *args])
    return p


HEAD = ("[   12.000100] BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
        "[   12.000101] #PF: supervisor read access in kernel mode\n"
        "[   12.000102] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
        "[   12.000103] CPU: 0 PID: 74 Comm: sh Tainted: G           OE      6.1.0-kptest #1\n")


def module_report(syms, picks):
    """A report whose RIP and frames are `func+off/size [fixture_kpmod]`."""
    lines = [HEAD]
    for i, (func, off, reliable) in enumerate(picks):
        size = syms[func][2]
        if i == 0:
            lines.append(f"[   12.000104] RIP: 0010:{func}+{off:#x}/{size:#x} [{MOD}]\n")
            lines.append("[   12.000105] Call Trace:\n[   12.000106]  <TASK>\n")
        else:
            q = "" if reliable else "? "
            lines.append(f"[   12.000107]  {q}{func}+{off:#x}/{size:#x} [{MOD}]\n")
    lines.append("[   12.000108]  </TASK>\n[   12.000109] Modules linked in: "
                 f"{MOD}(OE)\n[   12.000110] ---[ end trace 0000000000000000 ]---\n")
    return "".join(lines)


def check_frames(frames, expect, path, sectioned):
    """expect: [(section, address in section / file)] per frame."""
    assert len(frames) == len(expect)
    for fr, (sec, addr) in zip(frames, expect):
        want = addr2line(path, addr, sec if sectioned else None)
        assert want, f"eu-addr2line knows nothing at {sec}+{addr:#x}"
        got = sonde_chain(fr)
        assert got == want, f"{fr['symbol']}+{fr['offset']}: {got} != {want}"


def test_module_frames_match_addr2line(sonde, fixtures, tmp_path):
    syms = symbols(KPMOD)
    assert syms["kp_cold"][0] == ".text.unlikely"
    assert syms["kp_init"][0] == ".init.text"
    # every instruction offset of kp_level2 as the faulting pc, then
    # return addresses in every section
    size = syms["kp_level2"][2]
    for off in range(1, size):
        picks = [("kp_level2", off, True), ("kp_level1", 5, True),
                 ("kp_cold", 8, False), ("kp_init", 6, True)]
        p = kptrace(sonde, module_report(syms, picks), "-M", KPMOD,
                    "-r", "6.1.0-kptest", tmp_path=tmp_path)
        assert p.returncode == 0, p.stderr
        rep = json.loads(p.stdout)["reports"][0]
        assert rep["kind"] == "BUG: kernel NULL pointer dereference"
        assert rep["culprit"] == "kp_level2"
        fr = rep["frames"]
        assert [f["reliable"] for f in fr] == [True, True, False, True]
        assert fr[0]["pc"] and not any(f["pc"] for f in fr[1:])
        assert all(f["module"] == MOD and f["section"] == "task" for f in fr)
        # the pc is looked up at pc, return addresses at pc - 1
        expect = [(syms[f][0], syms[f][1] + o - (0 if i == 0 else 1))
                  for i, (f, o, _) in enumerate(picks)]
        check_frames(fr, expect, KPMOD, True)
        assert [f["offset"] for f in fr] == [hex(o) for _, o, _ in picks]


def test_inline_chain_is_printed(sonde, fixtures, tmp_path):
    syms = symbols(KPMOD)
    # find an offset of kp_level2 inside two levels of inlining
    off = next(o for o in range(syms["kp_level2"][2])
               if len(addr2line(KPMOD, o, ".text")) == 3)
    p = kptrace(sonde, module_report(syms, [("kp_level2", off, True)]),
                "-M", KPMOD, tmp_path=tmp_path, fmt="text")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "BUG: kernel NULL pointer dereference in kp_level2"
    i = next(i for i, l in enumerate(lines) if l.startswith(f"  - {MOD}`kp_level2+{off:#x} at "))
    assert lines[i + 1].startswith("      (inlined) kp_middle at ")
    assert lines[i + 2].startswith("      (inlined) kp_leaf at ")


def test_raw_module_addresses_through_proc_modules(sonde, fixtures, tmp_path):
    """Frames that are bare runtime addresses: the module's base from a
    /proc/modules line and the kernel's layout of its text sections."""
    syms = symbols(KPMOD)
    out = run(["readelf", "-SW", KPMOD]).stdout
    # core text layout: .text, then .text.unlikely (alignment 1 here)
    text_size = int(re.search(r"\] \.text\s+PROGBITS\s+\S+\s+\S+\s+(\S+)", out).group(1), 16)
    unlikely = (text_size + 0) // 1 * 1
    base = 0xffffffffc0a00000
    where = {".text": 0, ".text.unlikely": unlikely}
    picks = [("kp_level2", 9), ("kp_level1", 5), ("kp_cold", 8)]
    addrs = [base + where[syms[f][0]] + syms[f][1] + o for f, o in picks]
    text = (f"{MOD} 16384 0 - Live {base:#x} (OE)\n" + HEAD +
            f"[   12.000104] RIP: 0010:[<{addrs[0]:016x}>]  [<{addrs[0]:016x}>] 0x{addrs[0]:x}\n"
            "[   12.000105] Call Trace:\n" +
            "".join(f"[   12.000106]  [<{a:016x}>] 0x{a:x}\n" for a in addrs[1:]))
    p = kptrace(sonde, text, "-M", KPMOD, tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    fr = json.loads(p.stdout)["reports"][0]["frames"]
    expect = [(syms[f][0], syms[f][1] + o - (0 if i == 0 else 1))
              for i, (f, o) in enumerate(picks)]
    check_frames(fr, expect, KPMOD, True)
    assert [f["function"] for f in fr] == [f for f, _ in picks]
    assert [f["offset"] for f in fr] == [hex(o) for _, o in picks]


def exe_report(syms, kaslr_line, frames):
    return (HEAD + (kaslr_line or "") +
            "".join(f"[   12.000106]  {fr}\n" for fr in frames) +
            "[   12.000110] ---[ end trace 0000000000000000 ]---\n")


@pytest.mark.parametrize("how", ["kernel-offset", "derived", "option"])
def test_raw_core_addresses_through_kaslr(sonde, fixtures, tmp_path, how):
    """The executable stands in for vmlinux: raw addresses shifted by a
    KASLR offset come back to eu-addr2line's answers, whether the offset
    is printed, derived from a frame carrying both address and symbol, or
    given."""
    syms = symbols(EXE)
    kaslr = 0x1e000000
    picks = [("outer", 0x7), ("plain", 0x3), ("main", 0x10)]
    raw = [syms[f][1] + o + kaslr for f, o in picks]
    frames = ["Call Trace:"] + [f"[<{a:016x}>] 0x{a:x}" for a in raw]
    args = ["-k", EXE]
    line = None
    if how == "kernel-offset":
        line = f"[   12.000111] Kernel Offset: {kaslr:#x} from 0xffffffff81000000\n"
    elif how == "derived":
        f, o = picks[0]
        frames[1] = f"[<{raw[0]:016x}>] {f}+{o:#x}/{syms[f][2]:#x}"
    else:
        args += ["--kaslr", hex(kaslr)]
    p = kptrace(sonde, exe_report(syms, line, frames), *args, tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)["reports"][0]
    assert rep["kaslr_offset"] == hex(kaslr)
    assert rep["kaslr_source"] == {"kernel-offset": "Kernel Offset line",
                                   "derived": "derived from a frame",
                                   "option": "--kaslr"}[how]
    check_frames(rep["frames"], [(None, syms[f][1] + o - 1) for f, o in picks],
                 EXE, False)


def test_mismatched_files_are_refused(sonde, fixtures, tmp_path):
    """Sizes that disagree with the report, or another build-id: the file
    is not used and a note says why; frames keep the report's names."""
    syms = symbols(KPMOD)
    text = module_report(syms, [("kp_level2", 4, True)]).replace(
        f"/{syms['kp_level2'][2]:#x} [", "/0x10 [")
    p = kptrace(sonde, text, "-M", KPMOD, tmp_path=tmp_path)
    rep = json.loads(p.stdout)["reports"][0]
    assert p.returncode == 0
    assert any("does not match the report" in n and "0x10 bytes in the report" in n for n in rep["notes"])
    assert rep["frames"][0]["file"] is None
    assert rep["frames"][0]["function"] == "kp_level2"
    bid = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", KPMOD]).stdout).group(1)
    text = module_report(syms, [("kp_level2", 4, True)]).replace(
        f"[{MOD}]", f"[{MOD} {bid}]")
    p = kptrace(sonde, text, "-M", KPMOD, tmp_path=tmp_path)
    rep = json.loads(p.stdout)["reports"][0]
    assert rep["frames"][0]["buildid"] == bid
    assert rep["frames"][0]["file"] is not None
    other = "00112233445566778899aabbccddeeff00112233"
    p = kptrace(sonde, text.replace(bid, other), "-M", KPMOD, tmp_path=tmp_path)
    rep = json.loads(p.stdout)["reports"][0]
    assert any(f"build-id {bid}, the report {other}; not used" in n
               for n in rep["notes"]), rep["notes"]
    assert rep["frames"][0]["file"] is None
    # a vmlinux that is not the report's
    p = kptrace(sonde, exe_report(symbols(EXE), None,
                                  ["Call Trace:", " vfs_write+0xc7/0x1c0"]),
                "-k", EXE, tmp_path=tmp_path)
    rep = json.loads(p.stdout)["reports"][0]
    assert any("does not match" in n for n in rep["notes"]), rep["notes"]
    assert rep["symbols"] is None and rep["frames"][0]["file"] is None


def test_sections_contexts_and_all(sonde, tmp_path):
    """<IRQ>/<TASK> sections, [T..] contexts of other tasks interleaved,
    two reports with -a, the last one without."""
    text = (
        "[    1.000000][    T1] Linux version 6.1.0-x (gcc) #1 SMP\n"
        "[    5.000000][   T42] WARNING: CPU: 1 PID: 42 at drivers/x/y.c:12 my_warn+0x1a/0x30 [mymod]\n"
        "[    5.000001][   T42] Modules linked in: mymod(O)\n"
        "[    5.000002][   T42] RIP: 0010:my_warn+0x1a/0x30 [mymod]\n"
        "[    5.000003][   T42] Call Trace:\n"
        "[    5.000004][   T42]  <IRQ>\n"
        "[    5.000005][   T42]  my_irq+0x10/0x20 [mymod 0123456789abcdef0123456789abcdef01234567]\n"
        "[    5.000006][   T77]  other_task_frame+0x1/0x2\n"
        "[    5.000007][   T42]  </IRQ>\n"
        "[    5.000008][   T42]  <TASK>\n"
        "[    5.000009][   T42]  ? stale+0x5/0x10\n"
        "[    5.000010][   T42]  do_syscall_64+0x3b/0x90\n"
        "[    5.000011][   T42]  </TASK>\n"
        "[    5.000012][   T42] ---[ end trace 0000000000000000 ]---\n"
        "[    9.000000][    T9] BUG: soft lockup - CPU#0 stuck for 22s! [sh:9]\n"
        "[    9.000001][    T9] RIP: 0010:spin_here+0x4/0x8\n")
    p = kptrace(sonde, text, "-a", tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["reports_found"] == 2 and len(doc["reports"]) == 2
    w = doc["reports"][0]
    assert w["title"] == "WARNING in my_warn" and w["release"] == "6.1.0-x"
    assert w["modules"] == ["mymod"]
    fr = w["frames"]
    assert [f["symbol"] for f in fr] == ["my_warn", "my_irq", "stale", "do_syscall_64"]
    assert [f["section"] for f in fr] == ["task", "irq", "task", "task"]
    assert [f["reliable"] for f in fr] == [True, True, False, True]
    assert fr[1]["buildid"] == "0123456789abcdef0123456789abcdef01234567"
    assert any("no vmlinux" in n for n in w["notes"])
    p = kptrace(sonde, text, tmp_path=tmp_path, fmt="text")
    assert p.stdout.startswith("BUG: soft lockup in spin_here\n")
    assert "the last of 2 reports" in p.stdout


def test_discovery_newest_crash_dump(sonde, tmp_path):
    """No argument: the newest dmesg file with a report under /var/crash
    (here under a test root), older ones and report-less ones skipped."""
    crash = tmp_path / "var" / "crash"
    for name, body, t in (("202401010000", HEAD + "[ 1.0] RIP: 0010:old_one+0x1/0x2\n", 1000),
                          ("202402010000", HEAD + "[ 1.0] RIP: 0010:new_one+0x1/0x2\n", 2000),
                          ("202403010000", "nothing to see\n", 3000)):
        d = crash / name
        d.mkdir(parents=True)
        f = d / f"dmesg.{name}"
        f.write_text(body)
        os.utime(f, (t, t))
    p = run([sonde, "kptrace"], env=dict(os.environ, SONDE_KPTRACE_ROOT=str(tmp_path)))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("BUG: kernel NULL pointer dereference in new_one\n")
    p = run([sonde, "kptrace"], env=dict(os.environ, SONDE_KPTRACE_ROOT=str(tmp_path / "none")))
    assert p.returncode == 1
    assert p.stderr.startswith("sonde kptrace: no crash report found")


def one_error_line(p, code, pattern):
    assert p.returncode == code, (p.returncode, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and re.match(pattern, lines[0]), p.stderr
    assert "Sanitizer" not in p.stderr and "runtime error" not in p.stderr


@pytest.fixture(params=["SONDE", "SONDE_ASAN"])
def any_sonde(request, sonde):
    path = os.environ.get(request.param, sonde if request.param == "SONDE" else "")
    if not path or not os.access(path, os.X_OK):
        pytest.skip(f"no {request.param} binary")
    return path


def test_bad_input(any_sonde, tmp_path):
    s = any_sonde
    one_error_line(run([s, "kptrace", str(tmp_path / "missing")]), 1,
                   r"sonde kptrace: .*missing: No such file or directory$")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    one_error_line(run([s, "kptrace", str(empty)]), 1,
                   r"sonde kptrace: .*empty: no kernel crash report found \(0 lines read\)$")
    garbage = tmp_path / "garbage"
    garbage.write_bytes(os.urandom(1 << 20))
    one_error_line(run([s, "kptrace", str(garbage)]), 1,
                   r"sonde kptrace: .*garbage: binary data, not a kernel log$")
    one_error_line(run([s, "kptrace", "--format", "xml", str(empty)]), 2,
                   r"sonde kptrace: --format: 'xml' is not text or json "
                   r"\(see sonde kptrace --help\)$")
    one_error_line(run([s, "kptrace", "--kaslr", "0xzz", str(empty)]), 2,
                   r"sonde kptrace: --kaslr: '0xzz' is not auto or a hex offset")
    one_error_line(run([s, "kptrace", "a", "b"]), 2,
                   r"sonde kptrace: one report at a time")
    one_error_line(run([s, "kptrace", "--bogus"]), 2, r"sonde kptrace: unknown option")
    # a 1 MB line inside a report: cut, counted, the report still read
    long = tmp_path / "long"
    long.write_text(HEAD + "[ 1.0] " + "x" * (1 << 20) + "\n"
                    "[ 1.0] RIP: 0010:after_long+0x1/0x2\n")
    p = run([s, "kptrace", str(long)])
    assert p.returncode == 0
    assert p.stdout.startswith("BUG: kernel NULL pointer dereference in after_long")
    assert "1 lines longer than 4096 bytes were cut" in p.stderr
    # NUL bytes and garbage inside a text log
    mixed = tmp_path / "mixed"
    mixed.write_bytes(HEAD.encode() + b"\x00\xff\xfe junk \x00\n"
                      b"[ 1.0] RIP: 0010:after_junk+0x1/0x2\n")
    p = run([s, "kptrace", "--format", "json", str(mixed)])
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["reports"][0]["culprit"] == "after_junk"
    # a -k that is not ELF: one line, exit 1
    one_error_line(run([s, "kptrace", "-k", str(mixed), str(mixed)]), 1,
                   r"sonde kptrace: .*mixed: ")


MACOS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "macos-panics")


def test_macos_panic_unslid_with_kexts_and_symbol_map(sonde, tmp_path):
    """An Intel macOS 14 panic: frames unslid by the Kernel slide, kext
    frames as offsets into the kext they fall in, kernel frames named from
    an nm-style symbol map."""
    src = os.path.join(MACOS, "text-x86_64-14.2-23C71-watchdog-unsymbolicated.panic.txt")
    if not os.path.exists(src):
        pytest.skip(f"corpus absent: {src}")
    text = open(src).read()
    slide = 0xc0e0000
    rets = [int(m, 16) for m in re.findall(r"^0x[0-9a-f]+ : (0x[0-9a-f]+)", text, re.M)]
    smap = tmp_path / "kernel.map"
    # a symbol 0x41 below the first unslid return address
    smap.write_text(f"{rets[0] - slide - 0x41:016x} T _first_function\n"
                    f"{rets[0] - slide + 0x1000:016x} T _next_function\n")
    p = run([sonde, "kptrace", "--format", "json", "-S", str(smap), src])
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)["reports"][0]
    assert rep["os_build"] == "23C71"
    assert rep["kaslr_offset"] == hex(slide) and rep["kaslr_source"] == "Kernel slide"
    fr = rep["frames"]
    assert [int(f["addr"], 16) for f in fr] == rets
    assert fr[0]["function"] == "_first_function" and fr[0]["offset"] == "0x41"
    kext = rep["kexts"][0]
    start, end = int(kext["start"], 16), int(kext["end"], 16)
    for f, a in zip(fr, rets):
        if start <= a <= end:
            assert f["object"] == "com.apple.driver.watchdog"
            assert int(f["pc_lookup"], 16) == a - start
        else:
            assert f["object"] == "kernel"
            assert int(f["pc_lookup"], 16) == a - slide
    assert any(f["object"] == "com.apple.driver.watchdog" for f in fr)
    p = run([sonde, "kptrace", src])
    assert p.stdout.startswith("panic: userspace watchdog timeout")
    assert "  - com.apple.driver.watchdog`0x289b\n" in p.stdout


GPF_PANIC = (
    "[  100.000000][ T1234] general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] PREEMPT SMP KASAN\n"
    "[  100.000002][ T1234] CPU: 0 PID: 1234 Comm: syz-executor Not tainted 6.8.0-syzkaller #0\n"
    "[  100.000003][ T1234] RIP: 0010:foo_ioctl+0x42/0x100\n"
    "[  100.000004][ T1234] Call Trace:\n"
    "[  100.000005][ T1234]  <TASK>\n"
    "[  100.000006][ T1234]  __x64_sys_ioctl+0x1a/0x20\n"
    "[  100.000008][ T1234]  entry_SYSCALL_64_after_hwframe+0x63/0xcd\n"
    "[  100.000009][ T1234] RIP: 0033:0x7f2ffb48c0d9\n"
    "[  100.000011][ T1234]  </TASK>\n"
    "[  100.000013][ T1234] ---[ end trace 0000000000000000 ]---\n"
    "[  100.000014][ T1234] RIP: 0010:foo_ioctl+0x42/0x100\n"
    "[  100.300000][ T1234] Kernel panic - not syncing: Fatal exception\n"
    "[  100.400000][ T1234] Kernel Offset: 0x1e000000 from 0xffffffff81000000\n"
    "[  100.500000][ T1234] Rebooting in 86400 seconds..\n")


def test_one_crash_one_report(sonde, tmp_path):
    """An oops and the panic it caused: the default output is the oops,
    the panic one line of it; the user RIP is labelled user space."""
    p = kptrace(sonde, GPF_PANIC, tmp_path=tmp_path, fmt="text")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "general protection fault in foo_ioctl"
    assert lines[1] == "  panic: Fatal exception"
    assert "  user space: pc 0x7f2ffb48c0d9" in lines
    assert not any("vmlinux`0x7f2ffb48c0d9" in l for l in lines)
    assert "# the last of" not in p.stdout
    doc = json.loads(kptrace(sonde, GPF_PANIC, "-a", tmp_path=tmp_path).stdout)
    assert doc["reports_found"] == 1 and doc["events_found"] == 1
    rep = doc["reports"][0]
    assert rep["panic"] == "Fatal exception" and rep["user_pc"] == "0x7f2ffb48c0d9"
    assert rep["kaslr_offset"] == "0x1e000000"
    assert doc["events"] == [{"title": rep["title"], "panicked": True,
                              "reports": [0]}]


INTERLEAVED = (
    "[    5.000000][   T10] BUG: KASAN: use-after-free in a_func+0x1/0x2\n"
    "[    5.000001][   T11] WARNING: CPU: 1 PID: 11 at kernel/x.c:1 b_func+0x1/0x2\n"
    "[    5.000002][   T10] Read of size 8 at addr ffff888000000000 by task a/10\n"
    "[    5.000003][   T11] Call Trace:\n"
    "[    5.000004][   T10] Call Trace:\n"
    "[    5.000005][   T11]  b_caller+0x1/0x2\n"
    "[    5.000007][   T10]  a_caller+0x1/0x2\n"
    "[    5.000009][   T11] ---[ end trace 0 ]---\n"
    "[    5.000010][   T10]  a_syscall+0x1/0x2\n"
    "[    5.000011][   T10] Kernel panic - not syncing: panic_on_warn set ...\n")


def test_event_titled_by_its_first_report(sonde, tmp_path):
    """Two tasks' reports printed at once are one crash event, titled by
    the one that started first; each keeps its own task's frames."""
    p = kptrace(sonde, INTERLEAVED, tmp_path=tmp_path, fmt="text")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "KASAN: use-after-free Read in a_func"
    assert "  then: WARNING in b_func (line 2; -a shows it)" in lines
    assert [l.split("`")[1] for l in lines if l.startswith("  - ")] == \
        ["a_caller+0x1", "a_syscall+0x1"]
    doc = json.loads(kptrace(sonde, INTERLEAVED, tmp_path=tmp_path).stdout)
    assert [r["title"] for r in doc["reports"]] == [
        "KASAN: use-after-free Read in a_func", "WARNING in b_func"]
    assert [f["symbol"] for f in doc["reports"][1]["frames"]] == ["b_caller"]
    assert doc["events"] == [{"title": "KASAN: use-after-free Read in a_func",
                              "panicked": True, "reports": [0, 1]}]
    # two such events a minute apart: the last one by default
    later = INTERLEAVED.replace("[    5.", "[   95.").replace("a_func", "c_func")
    p = kptrace(sonde, INTERLEAVED.replace(" ...\n", "\n[    5.1] Rebooting in 1 seconds..\n") +
                "[    0.000000] Linux version 6.8.0 (gcc) #1 SMP\n" + later,
                tmp_path=tmp_path, fmt="text")
    assert p.stdout.startswith("KASAN: use-after-free Read in c_func\n")
    assert "# the last of 2 crash events (4 reports) in " in p.stdout


def test_json_without_a_report(sonde, tmp_path):
    """No report: text and JSON fail alike, JSON with an empty list."""
    text = kptrace(sonde, "just a line\n", tmp_path=tmp_path, fmt="text")
    p = kptrace(sonde, "just a line\n", tmp_path=tmp_path)
    assert p.returncode == text.returncode == 1
    doc = json.loads(p.stdout)
    assert doc["reports"] == [] and doc["reports_found"] == 0
    assert p.stderr == text.stderr


def oops(func, ts=12):
    return (f"[ {ts:5d}.000100] BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
            f"[ {ts:5d}.000101] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
            f"[ {ts:5d}.000102] CPU: 0 PID: 74 Comm: sh Not tainted 6.1.0-kptest #1\n"
            f"[ {ts:5d}.000103] RIP: 0010:{func}+0x1/0x20\n"
            f"[ {ts:5d}.000104] Call Trace:\n"
            f"[ {ts:5d}.000105]  <TASK>\n"
            f"[ {ts:5d}.000106]  {func}_caller+0x10/0x40\n"
            f"[ {ts:5d}.000107]  </TASK>\n"
            f"[ {ts:5d}.000108] ---[ end trace 0000000000000000 ]---\n")


def test_endless_device_in_bounded_memory(sonde):
    """Issue 20: kptrace /dev/zero grew to 20 GB in 60 s. Now a device
    is read up to --max-input (64 MB) and NUL bytes are known for what
    they are: one line, exit 1, under a 500 MB address-space limit."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (500 << 20, 500 << 20))
    p = subprocess.run([sonde, "kptrace", "/dev/zero"], capture_output=True,
                       text=True, timeout=60, preexec_fn=limit)
    one_error_line(p, 1, r"sonde kptrace: /dev/zero: binary data, not a kernel log$")


def test_large_file_read_from_its_end(sonde, tmp_path):
    """A log larger than --max-input is read from its last N bytes (the
    default output is its last crash), from a line's start, and a
    warning says so."""
    f = tmp_path / "big.log"
    filler = "".join(f"[   20.{i:06d}] eth0: link up, noise line {i}\n"
                     for i in range(40000))
    f.write_text(oops("first_crash", 10) + filler + oops("last_crash", 30))
    p = run([sonde, "kptrace", "--max-input", "64k", str(f)])
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("BUG: kernel NULL pointer dereference in last_crash\n"), p.stdout
    assert p.stderr == f"sonde kptrace: warning: {f}: read its last 65536 bytes only (--max-input)\n"
    p = run([sonde, "kptrace", "-a", str(f)])
    assert p.returncode == 0 and "first_crash" in p.stdout and p.stderr == ""


def test_pipe_reports_printed_as_they_complete(sonde):
    """journalctl -f | sonde kptrace -: a crash is printed once the next
    one starts, while the pipe is still open (not at its end), and the
    last at the end; memory holds reports, not the input."""
    p = subprocess.Popen([sonde, "kptrace", "-"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        p.stdin.write(oops("one_crash", 10) + "[   11.0] quiet again\n" +
                      oops("two_crash", 20))
        p.stdin.flush()
        import select
        # before the pipe is closed (a hang fails after 30 s)
        assert select.select([p.stdout], [], [], 30)[0], "nothing printed"
        first = p.stdout.readline()
        assert first == "BUG: kernel NULL pointer dereference in one_crash\n", first
        p.stdin.write("[   21.0] quiet again\n")
        p.stdin.close()
        rest = p.stdout.read()
        assert p.wait(30) == 0, p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert "BUG: kernel NULL pointer dereference in two_crash\n" in rest
    assert "one_crash" not in rest.split("\n\n", 1)[-1]


@pytest.mark.parametrize("args,pattern", [
    (["REPORTDIR"], r"sonde kptrace: \S+: a directory, not a log file$"),
    (["-k", "DIR", "LOG"], r"sonde kptrace: -k \S+: a directory; -k takes the vmlinux file"),
    (["-S", "MISSING", "LOG"], r"sonde kptrace: -S \S+: No such file or directory$"),
    (["-S", "DIR", "LOG"], r"sonde kptrace: -S \S+: not a file"),
    (["-M", "MISSING", "LOG"], r"sonde kptrace: -M \S+: No such file or directory$"),
    (["--kext", "MISSING", "LOG"], r"sonde kptrace: --kext \S+: No such file or directory$"),
])
def test_arguments_named_for_what_they_are(sonde, tmp_path, args, pattern):
    """Issue 20: a directory as REPORT said 'Input/output error', -k DIR
    'invalid file descriptor', and -S/-M naming nothing were ignored."""
    log = tmp_path / "log"
    log.write_text(oops("some_crash"))
    d = tmp_path / "dir"
    d.mkdir()
    sub = {"REPORTDIR": str(d), "DIR": str(d), "LOG": str(log),
           "MISSING": str(tmp_path / "missing")}
    one_error_line(run([sonde, "kptrace"] + [sub.get(a, a) for a in args]), 1, pattern)
