# SPDX-License-Identifier: GPL-2.0-only
"""sonde kptrace on macOS panic reports against a Kernel Debug Kit, with
Mach-O fixtures built at test time by Debian's LLVM (macos_fixture.py):
every frame of classic x86_64, arm64 (with pointer-authentication bits)
and .ips reports must name the function and file:line that
`llvm-symbolizer --obj=... --dsym-hint=...` names for the un-slid return
address minus one — the address sonde looks up, since a return address
after a call to a noreturn function lies past its function — inlined
calls included, as the real binary prints them in its default output and
in JSON. The KDK is chosen by the report's build and checked against its
Kernel UUID; a mismatch is reported and never used."""
import json
import os
import re
import shutil

import pytest

import macos_fixture as mf
from conftest import run

SLIDE = 0xffffff7f0c0e0000
ARM_SLIDE = 0xfffffdff1625c000
KEXT_AT = 0xffffff7fa1100000


@pytest.fixture(scope="module")
def fx(tmp_path_factory):
    t, missing = mf.tools()
    if missing:
        pytest.skip(f"LLVM tools missing: {', '.join(missing)} "
                    "(clang, lld, llvm: scripts/deps.sh test)")
    return mf.Fixture(str(tmp_path_factory.mktemp("macos")), t)


def kptrace(sonde, tmp_path, text, *args, fmt="text", name="report.panic"):
    path = tmp_path / name
    path.write_text(text)
    p = run([sonde, "kptrace", "--format", fmt, *args, str(path)])
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout) if fmt == "json" else p.stdout


def text_chains(text):
    """[(function, file, line)] chains per frame from the default text
    output: a frame line, then its (inlined) lines."""
    frames = []
    for line in text.splitlines():
        m = re.match(r"^  [-?] ([^`]+)`(.+?)(?: \+ (\d+))?(?: at (\S+):(\d+))?$", line)
        if m:
            frames.append({"object": m.group(1), "off": m.group(3),
                           "chain": [(m.group(2), m.group(4), int(m.group(5) or 0))]})
            continue
        m = re.match(r"^      \(inlined\) (.+?)(?: at (\S+):(\d+))?$", line)
        if m:
            frames[-1]["chain"].append((m.group(1), m.group(2), int(m.group(3) or 0)))
    for f in frames:
        # printed outermost-last per frame: the frame line holds the
        # out-of-line function, inlines follow innermost last
        c = f["chain"]
        f["chain"] = list(reversed(c[1:])) + [c[0]]
    return frames


def intel_text(fx, kernel=None, build=mf.BUILD_A, uuid=None, kext=True,
               kext_uuid=None):
    """An Intel report whose frames are every kernel call site and, with
    kext, every call site of the Example kext loaded at KEXT_AT."""
    kernel = kernel or fx.kernel_a
    krets = [a for a, _ in fx.rets(kernel)]
    frames = [a + SLIDE for a in krets[:4]]
    kexts = []
    if kext:
        xrets = [a for a, _ in fx.rets(fx.kext_exe)]
        frames += [KEXT_AT + a - mf.text_vmaddr(fx.t, fx.kext_exe) for a in xrets]
        kexts = [(mf.KEXT_ID, kext_uuid or fx.uuid[fx.kext_exe], KEXT_AT,
                  KEXT_AT + 0x3fff)]
    frames += [a + SLIDE for a in krets[4:]]
    return mf.intel_report(build, uuid or fx.uuid[kernel], SLIDE, frames, kexts), \
        krets, kext and [a for a, _ in fx.rets(fx.kext_exe)]


def oracle_frames(fx, kernel, krets, kext_exe, xrets):
    """The oracle's chain for each frame, in report order."""
    k = fx.oracle(kernel, [a - 1 for a in krets])
    order = k[:4]
    if xrets:
        order += fx.oracle(kext_exe, [a - 1 for a in xrets])
    return order + k[4:]


def check(frames, want):
    assert len(frames) == len(want)
    for got, w in zip(frames, want):
        assert got["chain"] == w, (got, w)


def test_intel_report_agrees_with_llvm_symbolizer(sonde, fx, tmp_path):
    text, krets, xrets = intel_text(fx)
    out = kptrace(sonde, tmp_path, text, "--kdk", fx.kdks, "--kext", fx.kext)
    assert out.startswith('panic: "sonde test panic"')
    assert "note:" not in out, out
    assert f"symbols from {fx.kernel_a}" in out
    frames = text_chains(out)
    assert [f["object"] for f in frames] == \
        ["kernel"] * 4 + [mf.KEXT_ID] * len(xrets) + ["kernel"] * (len(krets) - 4)
    check(frames, oracle_frames(fx, fx.kernel_a, krets, fx.kext_exe, xrets))
    # C++ names read as the oracle prints them, with their parameters
    assert any(f["chain"][-1][0] ==
               "IORegistryEntry::attachToChild(IORegistryEntry*, IORegistryPlane const*)"
               for f in frames)
    assert any(len(f["chain"]) >= 2 for f in frames), "no inlined call"
    # the kext's last call (to noreturn panic) returns past stop(): the
    # oracle knows nothing at the return address itself, sonde names stop()
    last = xrets[-1]
    assert fx.oracle(fx.kext_exe, [last])[0][0][0] == "??"
    assert frames[4 + len(xrets) - 1]["chain"][-1][0] == "example::Driver::stop()"
    # offsets: decimal, from the function's symbol to the return address
    assert all(f["off"] and f["off"].isdigit() for f in frames)


def test_json_frames(sonde, fx, tmp_path):
    text, krets, xrets = intel_text(fx)
    doc = kptrace(sonde, tmp_path, text, "--kdk", fx.kdks, "--kext", fx.kext,
                  fmt="json")
    rep = doc["reports"][0]
    assert rep["os_build"] == mf.BUILD_A
    assert rep["kernel_uuid"] == fx.uuid[fx.kernel_a]
    assert rep["symbols"] == fx.kernel_a and rep["dwarf"] is True
    fr = rep["frames"]
    want = oracle_frames(fx, fx.kernel_a, krets, fx.kext_exe, xrets)
    for f, w in zip(fr, want):
        # function is the symbol (no Mach-O underscore), demangled beside
        assert (f["demangled"] or f["function"]) == w[-1][0]
        assert os.path.basename(f["file"]) == w[-1][1] and f["line"] == w[-1][2]
        assert len(f["inlines"]) == len(w) - 1
        assert int(f["pc_lookup"], 16) in (a for a in krets + xrets)
    assert fr[0]["function"].startswith("_ZN15IORegistryEntry")


def test_arm64_with_pac(sonde, fx, tmp_path):
    """Apple silicon: lr lines with pointer-authentication bits, the text
    exec slide, a kext that is an MH_BUNDLE with its dSYM inside."""
    krets = [a for a, _ in fx.rets(fx.kernel_arm, "arm64")]
    xrets = [a for a, _ in fx.rets(fx.kext_arm_exe, "arm64")]
    at = 0xfffffe0030000000
    frames = [a + ARM_SLIDE for a in krets[:3]] + [at + a for a in xrets] + \
        [a + ARM_SLIDE for a in krets[3:]]
    text = mf.arm_report(mf.BUILD_A, fx.uuid[fx.kernel_arm], ARM_SLIDE, frames,
                         [(mf.KEXT_ID, fx.uuid[fx.kext_arm_exe], at, at + 0x3fff)],
                         pac=True)
    assert "lr: 0xfffffe" not in text    # signed
    out = kptrace(sonde, tmp_path, text, "--kdk", fx.kdk_a, "--kext", fx.kext_arm)
    assert "note:" not in out, out
    assert f"symbols from {fx.kernel_arm}" in out
    assert "Kernel text exec slide" in out
    k = fx.oracle(fx.kernel_arm, [a - 1 for a in krets])
    want = k[:3] + fx.oracle(fx.kext_arm_exe, [a - 1 for a in xrets]) + k[3:]
    check(text_chains(out), want)


def test_ips_report(sonde, fx, tmp_path):
    text, krets, xrets = intel_text(fx)
    ips = mf.ips_report(mf.BUILD_A, text.replace("Mac OS version:\n23C71\n", ""))
    out = kptrace(sonde, tmp_path, ips, "--kdk", fx.kdks, "--kext", fx.kext,
                  name="report.ips")
    assert "build 23C71" in out and "note:" not in out, out
    check(text_chains(out), oracle_frames(fx, fx.kernel_a, krets, fx.kext_exe, xrets))


def test_other_build_picks_other_kdk(sonde, fx, tmp_path):
    text, krets, _ = intel_text(fx, kernel=fx.kernel_b, build=mf.BUILD_B, kext=False)
    out = kptrace(sonde, tmp_path, text, "--kdk", fx.kdks)
    assert f"symbols from {fx.kernel_b}" in out and "note:" not in out, out
    check(text_chains(out), fx.oracle(fx.kernel_b, [a - 1 for a in krets]))


def test_uuid_mismatch_is_reported_not_used(sonde, fx, tmp_path):
    """Build A's report naming build B's kernel UUID: no kernel of KDK A
    is used, and the note says what was looked for and what is there."""
    text, krets, _ = intel_text(fx, uuid=fx.uuid[fx.kernel_b], kext=False)
    out = kptrace(sonde, tmp_path, text, "--kdk", fx.kdks)
    assert "symbols from" not in out
    note = next(l for l in out.splitlines() if l.startswith("  note:"))
    assert f"{mf.KDK_A}: no kernel with UUID {fx.uuid[fx.kernel_b]}" in note
    assert f"kernel UUID {fx.uuid[fx.kernel_a]}" in note
    frames = [l for l in out.splitlines() if l.startswith("  - ")]
    assert frames == [f"  - kernel`0x{a:x}" for a in krets]


def test_no_kdk(sonde, fx, tmp_path):
    text, krets, _ = intel_text(fx, kext=False)
    out = kptrace(sonde, tmp_path, text, "--kdk", str(tmp_path / "none"))
    assert f"note: no KDK: {tmp_path / 'none'} does not exist" in out
    out = kptrace(sonde, tmp_path, text.replace(mf.BUILD_A, "22A380"), "--kdk", fx.kdks)
    note = next(l for l in out.splitlines() if l.startswith("  note:"))
    assert f"no KDK for build 22A380 (Kernel UUID {fx.uuid[fx.kernel_a]}) in {fx.kdks}" in note
    assert mf.KDK_A in note and mf.KDK_B in note
    assert [l for l in out.splitlines() if l.startswith("  - ")] == \
        [f"  - kernel`0x{a:x}" for a in krets]


def test_kexts_by_bundle_id_and_uuid(sonde, fx, tmp_path):
    """A kext of the KDK is found by its bundle id; a --kext whose UUID is
    not the report's is not used, and said so."""
    wrets = [a for a, _ in fx.rets(fx.kdk_kext_exe)]
    krets = [a for a, _ in fx.rets(fx.kernel_a)]
    frames = [a + SLIDE for a in krets[:2]] + [KEXT_AT + a for a in wrets]
    text = mf.intel_report(mf.BUILD_A, fx.uuid[fx.kernel_a], SLIDE, frames,
                           [(mf.KDK_KEXT_ID, fx.uuid[fx.kdk_kext_exe], KEXT_AT,
                             KEXT_AT + 0x3fff)])
    out = kptrace(sonde, tmp_path, text, "--kdk", fx.kdks)
    assert "note:" not in out, out
    want = fx.oracle(fx.kernel_a, [a - 1 for a in krets[:2]]) + \
        fx.oracle(fx.kdk_kext_exe, [a - 1 for a in wrets])
    check(text_chains(out), want)
    text, _, xrets = intel_text(fx, kext_uuid=fx.uuid[fx.kdk_kext_exe])
    out = kptrace(sonde, tmp_path, text, "--kdk", fx.kdks, "--kext", fx.kext)
    assert (f"note: {fx.kext}: UUID {fx.uuid[fx.kext_exe]}, the report's "
            f"{mf.KEXT_ID} {fx.uuid[fx.kdk_kext_exe]}; not used") in out
    off = mf.text_vmaddr(fx.t, fx.kext_exe)
    assert [l for l in out.splitlines() if l.startswith(f"  - {mf.KEXT_ID}")] == \
        [f"  - {mf.KEXT_ID}`0x{a - off:x}" for a in xrets]


def test_kernel_collection(sonde, fx, tmp_path):
    """An MH_FILESET kernel collection as the KDK's kernel: its kernel
    entry is used with kernel.dSYM; given with --kext, its kext entry
    names that kext's frames from its symbols."""
    kdk = tmp_path / mf.KDK_A
    kern = kdk / "System" / "Library" / "Kernels"
    kern.mkdir(parents=True)
    kc = mf.make_fileset(str(kern / "kernel"), [("com.apple.kernel", fx.kernel_a),
                                                 (mf.KEXT_ID, fx.kext_exe)])
    os.symlink(fx.kernel_a + ".dSYM", str(kern / "kernel.dSYM"))
    text, krets, xrets = intel_text(fx)
    out = kptrace(sonde, tmp_path, text, "--kdk", str(kdk), "--kext", kc)
    assert f"symbols from {kc}" in out
    frames = text_chains(out)
    k = fx.oracle(fx.kernel_a, [a - 1 for a in krets])
    x = fx.oracle(fx.kext_exe, [a - 1 for a in xrets])
    got_k = frames[:4] + frames[4 + len(xrets):]
    check(got_k, k)
    # the kext entry's symbols: the function, no file:line without a dSYM
    for f, w in zip(frames[4:4 + len(xrets)], x):
        assert f["chain"][-1][0] == w[-1][0]


@pytest.fixture(params=["SONDE", "SONDE_ASAN"])
def any_sonde(request, sonde):
    path = os.environ.get(request.param, sonde if request.param == "SONDE" else "")
    if not path or not os.access(path, os.X_OK):
        pytest.skip(f"no {request.param} binary")
    return path


def test_damaged_machos(any_sonde, fx, tmp_path):
    """A kext and a dSYM cut short at every 61st byte, with load commands
    of absurd sizes, or not Mach-O at all: kptrace still prints every
    frame (as offsets where the file is unusable), exit 0, no sanitizer
    report."""
    text, _, xrets = intel_text(fx)
    exe = open(fx.kext_exe, "rb").read()
    ds = os.path.join(fx.kext_dsym, "Contents", "Resources", "DWARF", "Example")
    dsd = open(ds, "rb").read()
    cases = [exe[:n] for n in range(0, min(len(exe), 4096), 61)]
    bad = bytearray(exe)
    bad[20:24] = (0xfffffff0).to_bytes(4, "little")    # sizeofcmds
    cases.append(bytes(bad))
    bad = bytearray(exe)
    bad[36:40] = (0x7fffffff).to_bytes(4, "little")    # first cmdsize
    cases.append(bytes(bad))
    cases.append(b"\xca\xfe\xba\xbe" + b"\x00\x00\x00\x03" + b"\xff" * 60)
    report = tmp_path / "r.panic"
    report.write_text(text)
    for i, data in enumerate(cases + [None] * 3):
        kext = tmp_path / f"k{i}" / "Example.kext"
        shutil.copytree(fx.kext, kext)
        shutil.copytree(fx.kext_dsym, str(kext) + ".dSYM")
        if data is not None:
            (kext / "Contents" / "MacOS" / "Example").write_bytes(data)
        else:   # the dSYM damaged instead
            n = (len(dsd) // 4) * (i - len(cases))
            (kext.parent / "Example.kext.dSYM" / "Contents" / "Resources" /
             "DWARF" / "Example").write_bytes(dsd[:n])
        p = run([any_sonde, "kptrace", "--kdk", fx.kdks, "--kext", str(kext),
                 str(report)])
        assert p.returncode == 0, (i, p.stderr)
        assert "Sanitizer" not in p.stderr and "runtime error" not in p.stderr, p.stderr
        lines = [l for l in p.stdout.splitlines() if l.startswith(f"  - {mf.KEXT_ID}`")]
        assert len(lines) == len(xrets), (i, p.stdout)
