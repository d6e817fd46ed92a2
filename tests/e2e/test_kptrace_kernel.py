# SPDX-License-Identifier: GPL-2.0-only
"""sonde kptrace on real crash reports of a Debian 6.1 kernel booted under
qemu (tests/kernel): every frame it prints is checked against the guest's
ground truth (/proc/kallsyms, /proc/modules, /sys/module/*/sections) and
against eu-addr2line on the DWARF vmlinux and kptest.ko (function, file,
line, inline chain), for core-kernel and module frames; then the same
reports with every frame turned into a raw runtime address, so that sonde
has to do the KASLR and module-base arithmetic itself."""
import bisect
import json
import os
import re
import sys

import pytest

from conftest import run

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "kernel"))
import guest  # noqa: E402
import oracle  # noqa: E402

SCENARIOS = list(guest.SCENARIOS)

# The function each report is about, and its kind.
CULPRIT = {
    "oops": ("BUG: kernel NULL pointer dereference", "kp_level2"),
    "bug": (None, "kp_bug"),
    "warn": ("WARNING", "kp_warn"),
    "panic": (None, "sysrq_handle_crash"),
    "panic-module": (None, "kp_panic"),
    "init": ("BUG: kernel NULL pointer dereference", "kp_init_level"),
}


def kptrace(sonde, r, log, *extra):
    p = run([sonde, "kptrace", "-k", r.vmlinux, "-M", r.ko, log,
             "--format", "json", "-a", *extra], timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stderr == "", p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def ko_syms():
    return oracle.elf_symbols(guest.module())


def runtime_addr(r, f, ko_syms):
    """The runtime address of a printed frame, from the ground truth: the
    kallsyms address of its symbol plus the offset. Same-named local
    symbols are told apart through the module's sections or, for the core
    kernel, through System.map-at-(address - KASLR offset)."""
    cands = r.ksyms[f.func]
    if f.module:
        sym = ko_syms[f.func][0]
        want = r.sections[f.module][sym.section] + sym.value
        assert want in cands, f.line
        return want + f.off
    if len(cands) > 1:
        link = system_map(r)
        cands = [a for a in cands if (a - r.kernel_offset) in link.get(f.func, ())]
    if len(cands) > 1:
        # Namesakes (put_page five times): the size the kernel printed is
        # the distance to the next kallsyms symbol.
        cands = [a for a in cands if kallsyms_span(r, a) == f.size]
    assert len(cands) == 1, (f.line, cands)
    return cands[0] + f.off


_starts = {}


def kallsyms_span(r, addr):
    if id(r) not in _starts:
        _starts[id(r)] = (r, sorted({a for v in r.ksyms.values() for a in v}))
    starts = _starts[id(r)][1]
    i = bisect.bisect_right(starts, addr)
    return starts[i] - addr if i < len(starts) else None


_maps = {}


def system_map(r):
    if r.system_map not in _maps:
        m = {}
        with open(r.system_map) as fh:
            for line in fh:
                a, _, name = line.split()[:3]
                m.setdefault(name, set()).add(int(a, 16))
        _maps[r.system_map] = m
    return _maps[r.system_map]


def module_lookup(r, mod, addr):
    """(section, offset) of a runtime module address, from the section
    addresses the guest printed."""
    secs = sorted((a, s) for s, a in r.sections[mod].items() if a <= addr)
    assert secs, f"{addr:#x} below every section of {mod}"
    a, s = secs[-1]
    return s, addr - a


def oracle_chains(r, frames):
    """eu-addr2line's chain for every frame: {index: [(func, file, line)]}
    innermost first. Return addresses are looked up at pc-1."""
    core, mods = {}, {}
    for i, (f, addr) in enumerate(frames):
        look = addr - (0 if f.is_pc else 1)
        if f.module:
            sec, off = module_lookup(r, f.module, look)
            mods.setdefault(sec, {})[i] = off
        else:
            core[i] = look - r.kernel_offset
    out = {}
    res = oracle.addr2line(r.vmlinux, core.values())
    out.update({i: res[a] for i, a in core.items()})
    for sec, idx in mods.items():
        res = oracle.addr2line(r.ko, idx.values(), sec)
        out.update({i: res[a] for i, a in idx.items()})
    return out


def same_file(oracle_file, sonde_file, strip):
    """eu-addr2line prints the DWARF names as they are (Debian's kernel:
    `debian/build/build_amd64_none_cloud-amd64/fs/proc/inode.c`, comp_dir
    joined to a source-relative name); sonde removes a prefix. The same
    file when equal after the prefix or a whole-component suffix."""
    if oracle_file in (sonde_file, (strip or "") + sonde_file):
        return True
    return not sonde_file.startswith("/") and oracle_file.endswith("/" + sonde_file)


def base_name(func):
    """A symbol without its compiler suffix: __handle_sysrq.cold ->
    __handle_sysrq (DWARF names the function, the symbol table the part)."""
    return re.sub(r"\.(cold|isra|constprop|part|lto_priv)(\.\d+)?.*$", "", func)


def check_location(fr, chain, strip, what):
    """sonde's file/line/inlines against eu-addr2line's chain (innermost
    first): the frame's own file:line is the outermost level, its inlines
    the others, outermost first."""
    outer_func, outer_file, outer_line = chain[-1]
    assert fr["line"] == outer_line, (what, fr, chain)
    assert same_file(outer_file, fr["file"], strip), (what, fr, chain)
    got = [(i["function"], i["line"]) for i in fr["inlines"]]
    want = [(c[0], c[2]) for c in reversed(chain[:-1])]
    assert got == want, (what, fr, chain)
    for i, c in zip(fr["inlines"], reversed(chain[:-1])):
        assert same_file(c[1], i["file"], strip), (what, i, c)
    # Assembly has no DWARF functions: eu-addr2line names the enclosing
    # ELF symbol there (entry_SYSCALL_64 for entry_SYSCALL_64_after_hwframe).
    if outer_func != "??" and not outer_file.endswith(".S"):
        assert base_name(fr["function"]) == base_name(outer_func), (what, fr, chain)


_symbolized = {}


def symbolized(sonde, scenario, ko_syms):
    """Run kptrace on a scenario's console log and check every frame;
    returns (report, json, [(frame json, oracle Frame, runtime address)])."""
    if (sonde, scenario) not in _symbolized:
        _symbolized[sonde, scenario] = check_symbolized(sonde, scenario, ko_syms)
    return _symbolized[sonde, scenario]


def check_symbolized(sonde, scenario, ko_syms):
    r = guest.report(scenario)
    doc = kptrace(sonde, r, r.log)
    lines = r.text.split("\n")
    assert doc["reports"], doc
    pairs = []
    for rep in doc["reports"]:
        assert rep["release"] == r.release
        assert rep["dwarf"] is True and rep["symbols"] == r.vmlinux
        assert rep["notes"] == [], rep["notes"]
        seen = set()
        for fr in rep["frames"]:
            line = lines[fr["input_line"] - 1]
            got = oracle.frames(line)
            assert len(got) == 1, f"sonde made a frame of {line!r}"
            f = got[0]
            seen.add(fr["input_line"])
            assert fr["symbol"] == f.func and fr["function"] == f.func, line
            assert int(fr["symbol_offset"], 16) == f.off, line
            assert int(fr["symbol_size"], 16) == f.size, line
            assert int(fr["offset"], 16) == f.off, line
            assert fr["module"] == f.module, line
            assert fr["object"] == (f.module or "vmlinux"), line
            assert fr["reliable"] == f.reliable, line
            assert fr["pc"] == f.is_pc, line
            pairs.append((fr, f, runtime_addr(r, f, ko_syms)))
        # Nothing lost: every frame line inside the report is a frame.
        for n in range(rep["first_line"], rep["last_line"] + 1):
            if oracle.frames(lines[n - 1]):
                assert n in seen, f"frame line {n} dropped: {lines[n - 1]!r}"
    chains = oracle_chains(r, [(f, a) for _, f, a in pairs])
    for i, (fr, f, addr) in enumerate(pairs):
        if not f.module:
            want = addr - r.kernel_offset - (0 if f.is_pc else 1)
            assert int(fr["pc_lookup"], 16) == want, (f.line, fr["pc_lookup"])
        check_location(fr, chains[i], doc["strip"], f.line)
    return r, doc, pairs


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_frames_match_ground_truth_and_addr2line(sonde, scenario, ko_syms):
    r, doc, pairs = symbolized(sonde, scenario, ko_syms)
    assert any(f.module is None for _, f, _ in pairs)
    if scenario != "panic":
        assert any(f.module == "kptest" for _, f, _ in pairs)
    if scenario == "oops":
        # The faulting pc is inside the inlined kp_deref.
        fr = next(fr for fr, f, _ in pairs if f.is_pc)
        assert [i["function"] for i in fr["inlines"]] == ["kp_deref"]
    if scenario == "panic-module":
        # kp_panic+0x13/0x13: a return address one past a noreturn call.
        fr = next(fr for fr, f, _ in pairs if f.func == "kp_panic")
        assert fr["line"] == next(
            n + 1 for n, l in enumerate(open(os.path.join(
                os.path.dirname(r.ko), "kptest.c"))) if "panic(\"kptest" in l)


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if s in CULPRIT])
def test_title(sonde, scenario, ko_syms):
    r = guest.report(scenario)
    rep = kptrace(sonde, r, r.log)["reports"][-1]
    kind, culprit = CULPRIT[scenario]
    assert rep["culprit"] == culprit, rep["title"]
    if kind:
        assert rep["kind"] == kind
    if scenario.startswith("panic"):
        m = re.search(r"Kernel panic - not syncing: (.*)", r.text)
        assert rep["kind"] == "kernel panic: " + m.group(1).strip()
        assert int(rep["kaslr_offset"], 16) == r.kernel_offset
        assert rep["kaslr_source"] == "Kernel Offset line"


def raw_log(r, pairs_by_line, fmt, keep_offset_line):
    """The console log with every frame of the reports replaced by its
    runtime address (from the ground truth): fmt "bare" prints `0xaddr`
    (and `RIP: 0010:0xaddr`) as kernels without kallsyms do (%pB falls
    back to the hex number), "old" `[<addr>] 0xaddr` as kernels before 4.x
    without kallsyms did, "mixed" the old
    `[<addr>] func+off/size [mod]` for core frames (both address and
    symbol: a KASLR source) and raw module frames. The kallsyms lines are
    dropped (sonde must not find the answer in the log); /proc/modules
    lines stay."""
    out = []
    for n, line in enumerate(r.text.split("\n"), 1):
        if line.startswith("ksym "):
            continue
        if "Kernel Offset:" in line and not keep_offset_line:
            continue
        if n in pairs_by_line:
            fr, f, addr = pairs_by_line[n]
            ts = re.match(r"^(\[\s*[0-9.]+\])", line).group(1)
            q = "" if f.reliable else "? "
            if fmt == "mixed" and not f.module:
                sym = f"{f.func}+{f.off:#x}/{f.size:#x}"
            else:
                sym = f"0x{addr:016x}"
            if fmt == "bare" and f.is_pc:
                line = f"{ts} RIP: 0010:0x{addr:016x}"
            elif fmt == "bare":
                line = f"{ts}  {q}0x{addr:016x}"
            elif f.is_pc:
                line = f"{ts} RIP: 0010:[<{addr:016x}>]  [<{addr:016x}>] {sym}"
            else:
                line = f"{ts}  {q}[<{addr:016x}>] {sym}"
        out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("fmt", ["bare", "old", "mixed"])
def test_raw_addresses(sonde, scenario, fmt, ko_syms, tmp_path):
    """Frames as raw runtime addresses: sonde finds the KASLR offset (the
    Kernel Offset: line, --kaslr, or a frame carrying address and symbol)
    and the module's base (its /proc/modules line) and symbolizes them to
    the same function, file, line and inlines as the printed symbols."""
    r, doc, pairs = symbolized(sonde, scenario, ko_syms)
    by_line = {fr["input_line"]: (fr, f, a) for fr, f, a in pairs}
    has_offset_line = "Kernel Offset:" in r.text
    log = tmp_path / f"{scenario}-{fmt}.log"
    log.write_text(raw_log(r, by_line, fmt, keep_offset_line=(fmt != "mixed")))
    extra = []
    if fmt != "mixed" and not has_offset_line:
        extra = ["--kaslr", f"{r.kernel_offset:#x}"]
    raw = kptrace(sonde, r, str(log), *extra)
    want = [p for rep in doc["reports"] for p in rep["frames"]]
    got = [p for rep in raw["reports"] for p in rep["frames"]]
    assert len(got) == len(want), (len(got), len(want))
    for rep in raw["reports"]:
        assert int(rep["kaslr_offset"], 16) == r.kernel_offset
        if fmt == "mixed":
            assert rep["kaslr_source"] == "derived from a frame"
        elif has_offset_line:
            assert rep["kaslr_source"] == "Kernel Offset line"
        else:
            assert rep["kaslr_source"] == "--kaslr"
    for g, w, (_, f, addr) in zip(got, want, pairs):
        what = (f.line, g)
        assert int(g["addr"], 16) == addr, what
        assert g["module"] == w["module"] and g["object"] == w["object"], what
        assert g["pc"] == w["pc"] and g["reliable"] == w["reliable"], what
        for k in ("file", "line", "inlines"):
            assert g[k] == w[k], (what, k)
        if not f.module:
            assert g["pc_lookup"] == w["pc_lookup"], what
        # The function and offset name the address as the guest's kallsyms
        # does, or by the ELF function that holds an assembly label.
        assert g["function"] in r.ksyms, what
        assert addr - int(g["offset"], 16) in r.ksyms[g["function"]], what
        if g["function"] == f.func:
            assert int(g["offset"], 16) == f.off, what
        else:
            assert f.func.startswith(g["function"]), what


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_sanitizers_clean(sonde, scenario, ko_syms, tmp_path):
    """The ASan/UBSan build on the real logs and their raw variants: the
    same JSON, nothing on stderr."""
    asan = os.environ.get("SONDE_ASAN")
    if not asan:
        pytest.skip("no sanitizer build (SONDE_ASAN); make test provides one")
    r = guest.report(scenario)
    want = kptrace(sonde, r, r.log)
    assert kptrace(asan, r, r.log) == want
    _, _, pairs = symbolized(sonde, scenario, ko_syms)
    by_line = {fr["input_line"]: (fr, f, a) for fr, f, a in pairs}
    log = tmp_path / "raw.log"
    log.write_text(raw_log(r, by_line, "mixed", keep_offset_line=False))
    kptrace(asan, r, str(log))


def test_same_named_functions_told_apart_by_size(sonde, tmp_path):
    """Local functions share names (static inlines put out of line in
    several files: put_page five times in the Debian vmlinux). A frame
    names one as NAME+OFF/SIZE with the size running to the next symbol,
    as the kernel prints it: sonde must pick the candidate of that size,
    for the location and for its check that the vmlinux fits the report
    (no 'symbols differ' note), as eu-addr2line at that candidate says."""
    p = guest.paths()
    vmlinux = p["vmlinux"]
    syms = oracle.elf_symbols(vmlinux)
    starts = sorted({s.value for v in syms.values() for s in v})
    nxt = dict(zip(starts, starts[1:]))
    # Candidates of a shared name whose kernel size no namesake has.
    cases = []
    for name in ["put_page"] + sorted(syms):
        cands = [s for s in syms[name] if s.size > 8 and s.value in nxt]
        spans = [nxt[s.value] - s.value for s in cands]
        if len(cands) > 1 and len(cases) < 40:
            cases += [(s, sp) for s, sp in zip(cands, spans) if spans.count(sp) == 1]
    if len(cases) < 2:
        pytest.skip("this vmlinux has no same-named functions of distinct sizes")
    lines = ["[    1.000000] BUG: kernel NULL pointer dereference, address: 0000000000000000",
             "[    1.000001] CPU: 0 PID: 1 Comm: init Not tainted %s #1 Debian" % p["release"],
             "[    1.000002] Call Trace:", "[    1.000003]  <TASK>"]
    for s, span in cases:
        lines.append("[    1.000004]  %s+0x%x/0x%x" % (s.name, 6, span))
    lines.append("[    1.000005]  </TASK>")
    log = tmp_path / "dups.log"
    log.write_text("\n".join(lines) + "\n")
    r = run([sonde, "kptrace", "-k", vmlinux, str(log), "--format", "json"], timeout=120)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)["reports"][0]
    assert rep["notes"] == [], rep["notes"]
    want = oracle.addr2line(vmlinux, [s.value + 6 - 1 for s, _ in cases])
    got = [f for f in rep["frames"] if f["function"] in {s.name for s, _ in cases}]
    assert len(got) == len(cases), rep["frames"]
    for (s, span), fr in zip(cases, got):
        check_location(fr, want[s.value + 5], None, (s, span))
