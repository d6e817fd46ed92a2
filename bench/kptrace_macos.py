#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/kptrace_macos.py — sonde kptrace on a macOS panic against a Kernel
Debug Kit, and llvm-symbolizer given the same addresses, in one run
(issue 15's benchmark; bench/kptrace.sh runs it after the Linux figures).

The KDK is generated: an x86_64 kernel of UNITS copies of a C++ unit with
many functions, locals and blocks (tests/e2e/macos_fixture.py's big_kdk,
built with Debian's LLVM: clang -mkernel -g, ld64.lld, dsymutil), so its
dSYM is about 60 MB of DWARF. The panic report holds 40 slid return
addresses of real calls spread over the whole kernel. Timed, median of
RUNS (3) wall times each:
  sonde kptrace --kdk DIR REPORT   KDK discovery by the report's build and
                                   kernel UUID, Mach-O and dSYM reading,
                                   the un-slide, names, file:line, inlines
  llvm-symbolizer --obj --dsym-hint --inlining ADDRS   the same 40
                                   addresses, already un-slid and given
cold (the kernel's and the dSYM's pages dropped from the page cache:
posix_fadvise DONTNEED on those files only) and warm. Goals: sonde cold
<= 1 s including KDK discovery; warm no slower than llvm-symbolizer.
Every frame sonde prints must be named (checked, not timed).
KEEP=DIR builds the KDK in DIR and leaves it there. Not a test: it prints
figures. Needs the LLVM tools (scripts/deps.sh
test); says so and exits 0 without them."""
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
import macos_fixture as mf  # noqa: E402

SONDE = os.environ.get("SONDE", os.path.join(HERE, "..", "build", "sonde"))
RUNS = int(os.environ.get("RUNS", "3"))
UNITS = int(os.environ.get("UNITS", "60"))
FRAMES = 40
SLIDE = 0x1a400000


def drop(paths):
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def median(cmd, cold, files):
    """Median wall and CPU (user + sys) seconds of RUNS runs, and the
    output of the last. CPU time is what other work on the machine does
    not stretch."""
    walls, cpus, out = [], [], None
    for _ in range(RUNS):
        if cold:
            drop(files)
        c0, t0 = children_cpu(), time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True)
        walls.append(time.monotonic() - t0)
        cpus.append(children_cpu() - c0)
        if p.returncode:
            sys.exit(f"{cmd[0]} failed: {p.stderr[-2000:]}")
        out = p.stdout
    return sorted(walls)[len(walls) // 2], sorted(cpus)[len(cpus) // 2], out


def main():
    t, missing = mf.tools()
    if missing:
        print("macOS KDK: skipped, missing " + ", ".join(missing))
        return
    root = os.environ.get("KEEP") or tempfile.mkdtemp(prefix="sonde-kdk-bench.")
    try:
        kdks = os.path.join(root, "KDKs")
        t0 = time.monotonic()
        kernel = mf.big_kdk(t, kdks, UNITS)
        built = time.monotonic() - t0
        dwarf = os.path.join(kernel + ".dSYM", "Contents", "Resources",
                             "DWARF", "kernel")
        rets = mf.return_addresses(t, kernel, "x86_64")
        step = max(1, len(rets) // FRAMES)
        frames = [a for a, _ in rets[::step][:FRAMES]]
        report = os.path.join(root, "kernel.panic")
        with open(report, "w") as f:
            f.write(mf.intel_report(mf.BUILD_A, mf.uuid_of(kernel), SLIDE,
                                    [a + SLIDE for a in frames], []))
        files = [kernel, dwarf]
        sonde = [SONDE, "kptrace", "--kdk", kdks, report]
        llvm = [t["llvm-symbolizer"], f"--obj={kernel}",
                f"--dsym-hint={kernel}.dSYM", "--inlining"] + \
            [hex(a - 1) for a in frames]
        sc, scc, out = median(sonde, True, files)
        sw, swc, _ = median(sonde, False, files)
        lc, lcc, _ = median(llvm, True, files)
        lw, lwc, _ = median(llvm, False, files)
        named = len(re.findall(r"kernel`\S.* at \S+:\d+", out))
        print(f"macOS KDK: kernel {os.path.getsize(kernel) >> 20} MB, dSYM "
              f"DWARF {os.path.getsize(dwarf) >> 20} MB ({UNITS} units, "
              f"built in {built:.0f} s); {FRAMES} frames, {named} named with "
              f"file:line; medians of {RUNS}")
        print(f"  sonde kptrace --kdk     cold {sc:6.3f} s  warm {sw:6.3f} s"
              f"  (CPU {scc:.3f} / {swc:.3f} s)  goal cold <= 1 s")
        print(f"  llvm-symbolizer         cold {lc:6.3f} s  warm {lw:6.3f} s"
              f"  (CPU {lcc:.3f} / {lwc:.3f} s)")
        print(f"  llvm-symbolizer / sonde, warm: wall {lw / sw:.2f}x, "
              f"CPU {lwc / swc:.2f}x (goal >= 1)")
        if named < FRAMES:
            sys.exit(f"only {named} of {FRAMES} frames named:\n{out}")
    finally:
        if not os.environ.get("KEEP"):
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
