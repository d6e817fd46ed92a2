# SPDX-License-Identifier: GPL-2.0-only
"""Mach-O fixtures for sonde kptrace's macOS tests and benchmark, built at
run time with Debian's LLVM (clang -target ...-apple-macos11 -mkernel -g,
ld64.lld, dsymutil): a Kernel Debug Kit-shaped directory with kernels of
two builds (x86_64, and an arm64 kernel.release.t6020 beside the first), a
C++ kext bundle with its dSYM, a kext in the KDK's Extensions, a kernel
collection (MH_FILESET) made of the kernel and the kext; panic reports in
the classic x86_64 text, arm64 text and .ips JSON forms whose frames are
slid return addresses of real calls in them; and the oracle,
`llvm-symbolizer --obj=... --dsym-hint=...` on the un-slid addresses.

Nothing here reads sonde's output: addresses come from llvm-objdump's
disassembly (the instruction after each call), names and lines from
llvm-symbolizer."""
import os
import re
import shutil
import struct
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "macos")

TOOLS = {
    "clang++": ["clang++", "clang++-14"],
    "ld64.lld": ["ld64.lld", "ld64.lld-14"],
    "dsymutil": ["dsymutil", "dsymutil-14"],
    "llvm-symbolizer": ["llvm-symbolizer", "llvm-symbolizer-14"],
    "llvm-objdump": ["llvm-objdump", "llvm-objdump-14"],
}

ARCH = {"x86_64": ("x86_64-apple-macos11", "x86_64"),
        "arm64": ("arm64-apple-macos11", "arm64")}

BUILD_A, BUILD_B = "23C71", "23D56"
KDK_A, KDK_B = "KDK_14.2_23C71.kdk", "KDK_14.3_23D56.kdk"
KEXT_ID, KDK_KEXT_ID = "com.example.driver", "com.apple.driver.AppleWidget"


def tools():
    """{name: path} of the LLVM tools, or the names of those missing."""
    found, missing = {}, []
    for name, cands in TOOLS.items():
        path = next((shutil.which(c) for c in cands if shutil.which(c)), None)
        if path:
            found[name] = path
        else:
            missing.append(name)
    return found, missing


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: {p.stderr[-2000:]}")
    return p.stdout


def build_macho(t, arch, sources, out, kind, defines=(), extra_src=None):
    """Compile C++ sources with -mkernel -g and link a Mach-O (kind:
    "kernel" an MH_EXECUTE, "bundle" an MH_BUNDLE); its dSYM beside it as
    out.dSYM (or out.kext.dSYM for kexts, see callers)."""
    target, larch = ARCH[arch]
    objs = []
    work = os.path.dirname(out)
    srcs = [os.path.join(SRC, s) for s in sources] + (extra_src or [])
    for src in srcs:
        obj = os.path.join(work, f"{os.path.basename(out)}-{os.path.basename(src)}.o")
        run([t["clang++"], "-target", target, "-mkernel", "-g", "-O2",
             "-fno-exceptions", "-fno-rtti", "-Wno-stdlibcxx-not-found",
             *[f"-D{d}" for d in defines], "-c", src, "-o", obj])
        objs.append(obj)
    link = [t["ld64.lld"], "-arch", larch, "-platform_version", "macos",
            "11.0", "11.0", "-o", out, *objs]
    if kind == "kernel":
        link += ["-e", "__start"]
    else:
        link += ["-bundle", "-undefined", "dynamic_lookup"]
    run(link)
    return out


def dsym(t, binary, path):
    run([t["dsymutil"], binary, "-o", path])
    return path


def set_filetype(path, filetype):
    """MH_KEXT_BUNDLE (0xb) is what Xcode links kexts as; ld64.lld makes
    MH_BUNDLE, the same layout: the header's filetype field is the only
    difference."""
    with open(path, "r+b") as f:
        f.seek(12)
        f.write(struct.pack("<I", filetype))


def uuid_of(path):
    out = run(["llvm-objdump-14" if shutil.which("llvm-objdump-14") else "llvm-objdump",
               "--macho", "--private-headers", path])
    return re.search(r"uuid ([0-9A-F-]{36})", out).group(1)


def text_vmaddr(t, path):
    out = run([t["llvm-objdump"], "--macho", "--private-headers", path])
    for m in re.finditer(r"segname (\S+)\n\s+vmaddr (0x[0-9a-f]+)", out):
        if m.group(1) == "__TEXT":
            return int(m.group(2), 16)
    raise RuntimeError(f"no __TEXT in {path}")


def return_addresses(t, path, arch):
    """(return address, calling function) of every call instruction: the
    address right after it (past the function's end when the call is its
    last instruction, to a noreturn function)."""
    out = run([t["llvm-objdump"], "-d", path])
    rets, func = [], None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.*)>:$", line)
        if m:
            func = m.group(2)
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(\S+)", line)
        if not m:
            continue
        addr, size, op = int(m.group(1), 16), len(m.group(2).split()), m.group(3)
        if arch == "x86_64" and op.startswith("call"):
            rets.append((addr + size, func))
        elif arch == "arm64" and op in ("bl", "blr"):
            rets.append((addr + 4, func))
    return rets


def write_plist(path, bundle_id, executable):
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
                '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
                '<plist version="1.0">\n<dict>\n'
                '\t<key>CFBundleExecutable</key>\n'
                f'\t<string>{executable}</string>\n'
                '\t<key>CFBundleIdentifier</key>\n'
                f'\t<string>{bundle_id}</string>\n'
                '\t<key>CFBundleVersion</key>\n\t<string>1.0</string>\n'
                '</dict>\n</plist>\n')


def kext_bundle(t, arch, where, name, bundle_id, sources, filetype=0xb,
                dsym_inside=False):
    """NAME.kext/Contents/{Info.plist,MacOS/NAME}, its dSYM beside it
    (NAME.kext.dSYM) or inside (Contents/Resources/NAME.dSYM)."""
    kext = os.path.join(where, f"{name}.kext")
    os.makedirs(os.path.join(kext, "Contents", "MacOS"), exist_ok=True)
    write_plist(os.path.join(kext, "Contents", "Info.plist"), bundle_id, name)
    exe = build_macho(t, arch, sources, os.path.join(kext, "Contents", "MacOS", name),
                      "bundle")
    if dsym_inside:
        os.makedirs(os.path.join(kext, "Contents", "Resources"), exist_ok=True)
        ds = dsym(t, exe, os.path.join(kext, "Contents", "Resources", f"{name}.dSYM"))
    else:
        ds = dsym(t, exe, os.path.join(where, f"{name}.kext.dSYM"))
    for o in os.listdir(os.path.dirname(exe)):
        if o.endswith(".o"):
            os.unlink(os.path.join(os.path.dirname(exe), o))
    set_filetype(exe, filetype)
    return kext, exe, ds


def make_fileset(out, entries):
    """An MH_FILESET kernel collection: a header with one
    LC_FILESET_ENTRY per (entry id, Mach-O path), each Mach-O copied in at
    a page boundary with its file offsets made absolute, as in a real
    collection."""
    blobs, off = [], 0x4000
    for eid, path in entries:
        data = bytearray(open(path, "rb").read())
        fix_offsets(data, off)
        blobs.append((eid, off, data))
        off = (off + len(data) + 0x3fff) & ~0x3fff
    cmds = b""
    for eid, foff, data in blobs:
        name = eid.encode() + b"\0"
        size = (32 + len(name) + 7) & ~7
        vmaddr = entry_vmaddr(data)
        cmds += struct.pack("<IIQQII", 0x80000035, size, vmaddr, foff, 32, 0)
        cmds += name.ljust(size - 32, b"\0")
    cpu = struct.unpack_from("<I", blobs[0][2], 4)[0]
    hdr = struct.pack("<IIIIIIII", 0xfeedfacf, cpu, 0, 0xc, len(blobs),
                      len(cmds), 0, 0)
    image = bytearray(off)
    image[:len(hdr) + len(cmds)] = hdr + cmds
    for _, foff, data in blobs:
        image[foff:foff + len(data)] = data
    with open(out, "wb") as f:
        f.write(image)
    return out


def entry_vmaddr(data):
    ncmds = struct.unpack_from("<I", data, 16)[0]
    off = 32
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, off)
        if cmd == 0x19 and data[off + 8:off + 14] == b"__TEXT":
            return struct.unpack_from("<Q", data, off + 24)[0]
        off += size
    return 0


def fix_offsets(data, base):
    """Add base to every file offset of a Mach-O's load commands that
    sonde or llvm read: segments and sections, LC_SYMTAB, LC_DYSYMTAB,
    LC_DYLD_INFO, linkedit data commands."""
    ncmds = struct.unpack_from("<I", data, 16)[0]
    off = 32
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, off)
        if cmd == 0x19:
            fileoff, filesize = struct.unpack_from("<QQ", data, off + 40)
            if filesize:
                struct.pack_into("<Q", data, off + 40, fileoff + base)
            nsects = struct.unpack_from("<I", data, off + 64)[0]
            for k in range(nsects):
                s = off + 72 + 80 * k
                soff = struct.unpack_from("<I", data, s + 48)[0]
                if soff:
                    struct.pack_into("<I", data, s + 48, soff + base)
        elif cmd == 0x2:
            symoff, nsyms, stroff, strsize = struct.unpack_from("<IIII", data, off + 8)
            struct.pack_into("<II", data, off + 8, symoff + base, nsyms)
            struct.pack_into("<I", data, off + 16, stroff + base)
        elif cmd == 0xb:
            for k in (32, 40, 48, 56, 64, 72):
                o, = struct.unpack_from("<I", data, off + k)
                if o:
                    struct.pack_into("<I", data, off + k, o + base)
        elif cmd in (0x22, 0x80000022):
            for k in (8, 16, 24, 32, 40):
                o, = struct.unpack_from("<I", data, off + k)
                if o:
                    struct.pack_into("<I", data, off + k, o + base)
        elif cmd in (0x26, 0x29, 0x2b, 0x80000033, 0x80000034):
            o, = struct.unpack_from("<I", data, off + 8)
            if o:
                struct.pack_into("<I", data, off + 8, o + base)
        off += size


def symbolizer(t, obj, dsym_dir, addrs):
    """llvm-symbolizer's chain per address: [(function, file, line)],
    innermost first."""
    out = run([t["llvm-symbolizer"], f"--obj={obj}", f"--dsym-hint={dsym_dir}",
               "--inlining", *[hex(a) for a in addrs]])
    chains = []
    for block in out.strip("\n").split("\n\n"):
        lines = block.splitlines()
        chain = []
        for i in range(0, len(lines) - 1, 2):
            file, line = lines[i + 1].rsplit(":", 2)[:2] if lines[i + 1].count(":") >= 2 \
                else (lines[i + 1], "0")
            chain.append((lines[i], os.path.basename(file), int(line)))
        chains.append(chain)
    assert len(chains) == len(addrs), out
    return chains


class Fixture:
    """Everything built once: paths, UUIDs, return addresses."""

    def __init__(self, root, t):
        self.root, self.t = root, t
        self.kdks = os.path.join(root, "KDKs")
        self.kdk_a = os.path.join(self.kdks, KDK_A)
        self.kdk_b = os.path.join(self.kdks, KDK_B)
        ka = os.path.join(self.kdk_a, "System", "Library", "Kernels")
        kb = os.path.join(self.kdk_b, "System", "Library", "Kernels")
        os.makedirs(ka)
        os.makedirs(kb)
        src = ["kern_registry.cpp", "kern_panic.cpp"]
        self.kernel_a = build_macho(t, "x86_64", src, os.path.join(ka, "kernel"), "kernel")
        self.kernel_b = build_macho(t, "x86_64", src, os.path.join(kb, "kernel"), "kernel",
                                    defines=["BUILD_B"])
        self.kernel_arm = build_macho(t, "arm64", src,
                                      os.path.join(ka, "kernel.release.t6020"), "kernel")
        for k in (self.kernel_a, self.kernel_b, self.kernel_arm):
            dsym(t, k, k + ".dSYM")
        for d in (ka, kb):
            for o in os.listdir(d):
                if o.endswith(".o"):
                    os.unlink(os.path.join(d, o))
        ext = os.path.join(self.kdk_a, "System", "Library", "Extensions")
        os.makedirs(ext)
        self.kdk_kext, self.kdk_kext_exe, self.kdk_kext_dsym = kext_bundle(
            t, "x86_64", ext, "AppleWidget", KDK_KEXT_ID, ["widget.cpp"])
        kexts = os.path.join(root, "kexts")
        os.makedirs(kexts)
        self.kext, self.kext_exe, self.kext_dsym = kext_bundle(
            t, "x86_64", kexts, "Example", KEXT_ID, ["example.cpp"])
        arm = os.path.join(root, "kexts-arm64")
        os.makedirs(arm)
        self.kext_arm, self.kext_arm_exe, self.kext_arm_dsym = kext_bundle(
            t, "arm64", arm, "Example", KEXT_ID, ["example.cpp"], filetype=0x8,
            dsym_inside=True)
        self.uuid = {p: uuid_of(p) for p in (self.kernel_a, self.kernel_b,
                                             self.kernel_arm, self.kext_exe,
                                             self.kdk_kext_exe, self.kext_arm_exe)}

    def rets(self, path, arch="x86_64"):
        return return_addresses(self.t, path, arch)

    def oracle(self, obj, addrs):
        ds = {self.kernel_a: self.kernel_a + ".dSYM",
              self.kernel_b: self.kernel_b + ".dSYM",
              self.kernel_arm: self.kernel_arm + ".dSYM",
              self.kext_exe: self.kext_dsym,
              self.kdk_kext_exe: self.kdk_kext_dsym,
              self.kext_arm_exe: self.kext_arm_dsym}[obj]
        return symbolizer(self.t, obj, ds, addrs)


KERNEL_VERSION = ("Darwin Kernel Version 23.2.0: Wed Nov 15 21:54:10 PST 2023; "
                  "root:xnu-10002.61.3~2/RELEASE_{}")


def intel_report(build, kernel_uuid, slide, frames, kexts, caller=None):
    """The classic text .panic of an Intel Mac. frames: slid return
    addresses; kexts: [(bundle id, uuid, start, end)]."""
    lines = [f"panic(cpu 0 caller {hex(caller or frames[0])}): \"sonde test panic\"@/tmp/x.cpp:12",
             "Backtrace (CPU 0), Frame : Return Address"]
    fp = 0xffffffa0aaaa0000
    for a in frames:
        lines.append(f"0x{fp:016x} : 0x{a:016x} ")
        fp += 0x40
    if kexts:
        lines.append("      Kernel Extensions in backtrace:")
        for bid, uuid, start, end in kexts:
            lines.append(f"         {bid}(1.0)[{uuid}]@0x{start:016x}->0x{end:016x}")
    lines += ["", "BSD process name corresponding to current thread: kernel_task",
              "", "Mac OS version:", build, "", "Kernel version:",
              KERNEL_VERSION.format("X86_64"), f"Kernel UUID: {kernel_uuid}",
              f"Kernel slide:      0x{slide:016x}",
              f"Kernel text base:  0x{0x100000000 + slide:016x}", ""]
    return "\n".join(lines) + "\n"


def arm_report(build, kernel_uuid, slide, frames, kexts, pac=False):
    """An Apple silicon text panic: lr/fp lines, the text exec slide;
    pac: the return addresses carry pointer-authentication bits."""
    lines = ["panic(cpu 2 caller 0x%016x): \"sonde test panic\" @x.cpp:3468" % frames[0],
             "Debugger message: panic", f"OS version: {build}",
             "Kernel version: " + KERNEL_VERSION.format("ARM64_T6020"),
             f"Kernel UUID: {kernel_uuid}",
             "Kernel slide:      0x%016x" % (slide - 0x8000),
             "Kernel text exec slide: 0x%016x" % slide,
             "Panicked thread: 0xfffffe198f1e5f40, backtrace: 0xfffffec134006f80, tid: 4874"]
    fp = 0xfffffec134007010
    for i, a in enumerate(frames):
        shown = a
        if pac:
            # a signature in bits 48-54 and 56-63, bit 55 kept
            shown = (a & 0x0080ffffffffffff) | ((0x5a3c + 77 * i) & 0x7f) << 48 | \
                ((0x9d + 13 * i) & 0xff) << 56
        lines.append(f"\t\t  lr: 0x{shown:016x}  fp: 0x{fp:016x}")
        fp += 0x70
    if kexts:
        lines.append("      Kernel Extensions in backtrace:")
        for bid, uuid, start, end in kexts:
            lines.append(f"         {bid}(1.0)[{uuid}]@0x{start:016x}->0x{end:016x}")
    return "\n".join(lines) + "\n"


def ips_report(build, text):
    """A macOS .ips: a JSON header line, then the panic as
    macOSPanicString."""
    import json
    head = {"bug_type": "210", "timestamp": "2026-11-26 10:00:00.00 +0000",
            "os_version": f"macOS 14.2 ({build})", "incident_id": "0000"}
    body = {"build": f"macOS 14.2 ({build})", "product": "MacBookPro16,2",
            "macOSPanicString": text}
    return json.dumps(head) + "\n" + json.dumps(body, indent=2) + "\n"


def big_unit(funcs=100):
    """One C++ unit of many functions with many locals and blocks: much
    DWARF per line of source. Names have fixed widths so that copies of
    its assembly can be renamed in place (bench_namespace_QQQQ -> _0001)."""
    out = ["namespace bench_namespace_QQQQ {",
           "struct Ctx { int a, b, c; long d[4]; };",
           "int func_QQQQ_x(Ctx *c, int v);"]
    for j in range(funcs):
        body = []
        for k in range(24):
            body.append(f"  {{ int local_variable_{k} = c->a + v * {k}; "
                        f"long other_value_{k} = c->d[{k % 4}] + local_variable_{k}; "
                        f"if (other_value_{k} > {k * 7}) c->b += (int)other_value_{k}; }}")
        out.append(f"__attribute__((noinline)) int function_number_QQQQ_{j:04d}_with_a_long_name"
                   f"(Ctx *c, int v, const char *name) {{\n" + "\n".join(body) +
                   f"\n  return c->b + name[{j % 7}] + func_QQQQ_x(c, v);\n}}")
    out += ["int func_QQQQ_x(Ctx *c, int v) { return c->a + v; }", "}"]
    return "\n".join(out) + "\n"


def big_kdk(t, root, units, funcs=400):
    """A KDK (KDK_14.2_23C71.kdk) whose x86_64 kernel is `units` copies
    of big_unit (each its own namespace and file name) plus the fixture's
    panic path, with its dSYM. The unit is compiled once; its copies are
    the object file with the placeholder QQQQ replaced by the copy's
    number in place (names keep their lengths, so every offset, in the
    symbol table and DWARF alike, stays right): minutes of compiling
    become seconds."""
    kern = os.path.join(root, KDK_A, "System", "Library", "Kernels")
    work = os.path.join(root, "work")
    os.makedirs(kern, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "uQQQQ.cpp")
    with open(src, "w") as f:
        f.write(big_unit(funcs))
    target = ARCH["x86_64"][0]
    obj0 = os.path.join(work, "uQQQQ.o")
    run([t["clang++"], "-target", target, "-mkernel", "-g", "-O0",
         "-fno-exceptions", "-fno-rtti", "-Wno-stdlibcxx-not-found", "-c",
         src, "-o", obj0], cwd=work)
    data = open(obj0, "rb").read()
    objs = []
    for i in range(units):
        obj = os.path.join(work, f"u{i:04d}.o")
        with open(obj, "wb") as f:
            f.write(data.replace(b"QQQQ", b"%04d" % i))
        objs.append(obj)
    for s in ("kern_registry.cpp", "kern_panic.cpp"):
        obj = os.path.join(work, s + ".o")
        run([t["clang++"], "-target", target, "-mkernel", "-g", "-O2",
             "-fno-exceptions", "-fno-rtti", "-Wno-stdlibcxx-not-found",
             "-c", os.path.join(SRC, s), "-o", obj])
        objs.append(obj)
    kernel = os.path.join(kern, "kernel")
    run([t["ld64.lld"], "-arch", "x86_64", "-platform_version", "macos",
         "11.0", "11.0", "-e", "__start", "-o", kernel, *objs])
    dsym(t, kernel, kernel + ".dSYM")
    shutil.rmtree(work)
    return kernel
