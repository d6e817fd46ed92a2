# SPDX-License-Identifier: GPL-2.0-only
"""The qemu kernel tier's own material (tests/kernel), checked against
independent sources before other tests trust it: the ground truth the guest
printed agrees with the symbol files from the Debian packages, with the
report's own frames and with the kernel's `Kernel Offset:` line; the module
has the inline chain the kptrace tests rely on; run_in_guest() runs a host
binary inside the guest."""
import os
import re
import shutil
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "kernel"))
import guest  # noqa: E402
import oracle  # noqa: E402

SCENARIOS = list(guest.SCENARIOS)


@pytest.fixture(scope="module")
def vmlinux_syms():
    return oracle.elf_symbols(guest.paths()["vmlinux"])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_ground_truth(scenario):
    r = guest.report(scenario)
    assert r.release == guest.paths()["release"]
    assert f"{r.release} #1" in r.crash(), "the crash is not from the fetched kernel"
    # kptest is loaded, its text first in its core layout.
    base = r.modules["kptest"]
    assert r.sections["kptest"][".text"] == base
    assert r.sections["kptest"][".text.unlikely"] > base
    mod_syms = [(a, n) for a, n, m in r.ksyms_by_addr if m == "kptest"]
    assert {"kp_level2", "kp_level1", "kp_write", "kp_spin", "kp_panic"} <= \
        {n for _, n in mod_syms}
    size = int(re.search(r"^module kptest (\d+) ", r.text, re.M).group(1))
    init = r.sections["kptest"][".init.text"]
    for a, n in mod_syms:
        if a < init:
            assert base <= a < base + size, f"{n} at {a:#x} outside kptest"
    if scenario == "init":
        # Still loading: its init code is in kallsyms until it is freed.
        assert re.search(r"^module kptest \d+ \d+ - Loading ", r.text, re.M)
        assert r.symbol_at(init)[:2] == ("kp_init_level.constprop.0", 0)
    # KASLR moves the kernel by a multiple of CONFIG_PHYSICAL_ALIGN (2 MiB).
    assert r.kernel_offset % 0x200000 == 0
    m = re.search(r"Kernel Offset: 0x([0-9a-f]+) from 0xffffffff81000000", r.text)
    if m:
        assert int(m.group(1), 16) == r.kernel_offset
    elif scenario in ("panic", "panic-module"):
        pytest.fail("a panic prints Kernel Offset:")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_frames_agree_with_symbol_files(scenario, vmlinux_syms):
    """Every func+off/size the kernel printed is where the ground truth and
    the ELF symbol tables (vmlinux from -dbg, kptest.ko) put it."""
    r = guest.report(scenario)
    ko_syms = oracle.elf_symbols(r.ko)
    fr = oracle.frames(r.crash())
    assert len([f for f in fr if f.reliable]) >= 4, fr
    if scenario not in ("panic",):
        assert any(f.module == "kptest" for f in fr), "no module frame"
    for f in fr:
        assert f.func in r.ksyms, f"{f.line}: not in the guest's kallsyms"
        assert f.off <= f.size, f.line
        addr = None
        if f.module is None:
            # Among same-named locals, the one the ELF file has at
            # kallsyms address - KASLR offset.
            elf = {s.value: s for s in vmlinux_syms.get(f.func, [])}
            hits = [a for a in r.ksyms[f.func] if a - r.kernel_offset in elf]
            assert hits, f"{f.line}: no vmlinux symbol at a kallsyms address"
            addr = hits[0]
            sym = elf[addr - r.kernel_offset]
        else:
            assert f.module == "kptest", f.line
            syms = ko_syms[f.func]
            assert len(syms) == 1
            sym = syms[0]
            addr = r.sections["kptest"][sym.section] + sym.value
            assert addr in r.ksyms[f.func], \
                f"{f.line}: section base + st_value is not the kallsyms address"
        # The kernel's size runs to the next symbol: at least the ELF size
        # (0 for assembly labels); the last function of a module's init
        # text runs to the end of its pages.
        last = f.module and sym.section == ".init.text" and not any(
            s.section == sym.section and s.value > sym.value
            for ss in ko_syms.values() for s in ss)
        if sym.size and not last:
            assert sym.size <= f.size < sym.size + 64, (f.line, sym)
        elif sym.size:
            assert sym.size <= f.size, (f.line, sym)
        if not last:
            nxt = r.symbol_at(addr + f.size)
            assert nxt and nxt[1] == 0 and nxt[0] != f.func, (f.line, nxt)


def test_oops_has_inline_chain():
    """The oops's RIP is inside kp_deref inlined into kp_level2: what the
    kptrace tests check inline chains on."""
    r = guest.report("oops")
    rip = next(f for f in oracle.frames(r.crash()) if f.is_pc)
    assert (rip.func, rip.module) == ("kp_level2", "kptest")
    sym = oracle.elf_symbols(r.ko)["kp_level2"][0]
    chain = oracle.addr2line(r.ko, [sym.value + rip.off], sym.section)
    chain = list(chain.values())[0]
    src = open(os.path.join(os.path.dirname(r.ko), "kptest.c")).read().split("\n")
    assert [c[0] for c in chain] == ["kp_deref", "kp_level2"]
    assert "READ_ONCE(*p)" in src[chain[0][2] - 1]
    assert "kp_deref(READ_ONCE(kp_ptr))" in src[chain[1][2] - 1]
    assert all(c[1] == os.path.join(os.path.dirname(r.ko), "kptest.c") for c in chain)


def test_nmi_backtrace_of_spinning_cpu():
    r = guest.report("nmi")
    text = r.crash()
    cpu1 = text[text.index("NMI backtrace for cpu 1"):]
    rip = re.search(r"RIP: 0010:(\w+)\+0x[0-9a-f]+/0x[0-9a-f]+ \[kptest\]", cpu1)
    assert rip and rip.group(1) == "kp_spin", cpu1[:2000]


def test_run_in_guest_host_binary():
    """A dynamically linked host program runs in the guest through its
    copied loader and libraries; the guest kernel has kprobes."""
    uname = shutil.which("uname")
    files = guest.with_libraries(uname)
    loader = [k for k in files if k.startswith("lib/ld-linux")]
    assert loader, files
    out = guest.run_in_guest(files, f"""
./{loader[0]} --library-path ./lib ./uname -r
grep -c . /sys/kernel/tracing/available_filter_functions >/dev/null && echo filter-functions
[ -e /sys/kernel/tracing/kprobe_events ] && echo kprobe-events
""")
    lines = out.split("\n")
    assert guest.paths()["release"] in lines, out
    assert "kprobe-events" in lines, out


def test_run_sonde_in_guest(sonde):
    """sonde itself runs in the guest (BPF, BTF of the 6.1 kernel): what the
    dtrace tests use for providers the development VM's kernel lacks."""
    out = guest.run_sonde(sonde, """
$SONDE dtrace -q -n 'BEGIN { printf("hello from %s\\n", "the guest"); exit(0); }'
echo "rc=$?"
""")
    lines = out.split("\n")
    assert "hello from the guest" in lines and "rc=0" in lines, out
