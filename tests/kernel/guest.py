#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Real kernel crash reports for sonde's tests: a Debian cloud kernel booted
under qemu (-accel tcg) with a busybox initramfs and the kptest module.

    import guest                      # tests/kernel on sys.path
    r = guest.report("oops")          # pytest.skip()s when it cannot run
    r.log, r.vmlinux, r.ko, r.release, r.ksyms, r.modules, r.kernel_offset

report(scenario) boots the guest once per scenario (cached: later calls and
later test runs read the saved console log) and returns a Report: the serial
console log, the ground truth the guest's /init printed before crashing
(every text symbol of /proc/kallsyms, /proc/modules, uname -r), and the
symbol files that go with it (the DWARF vmlinux from the -dbg package and
the kptest.ko built against the matching headers).

run_in_guest(files, script) boots the same kernel with extra files under
/payload and returns what the script printed (see its docstring).

Everything is cached under $SONDE_KERNEL_CACHE (default
/var/cache/sonde/kernel): the extracted packages (fetch.sh), kptest.ko, the
initramfs and the console logs, keyed by a hash of their inputs. Set
SONDE_KERNEL_TESTS=0 to skip the tier. Run this file to boot by hand:
    tests/kernel/guest.py oops        # prints the console log's path
"""
import dataclasses
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("SONDE_KERNEL_CACHE", "/var/cache/sonde/kernel")
QEMU = "qemu-system-x86_64"
BUSYBOX = "/bin/busybox"
BOOT_TIMEOUT = 180

# Scenario → (sonde.crash= value, qemu CPUs, the line that proves it worked).
SCENARIOS = {
    "panic": ("panic", 1, r"Kernel panic - not syncing: sysrq triggered crash"),
    "oops": ("oops", 1, r"BUG: kernel NULL pointer dereference"),
    "bug": ("bug", 1, r"kernel BUG at .*kptest\.c:\d+!"),
    "warn": ("warn", 1, r"WARNING: CPU: \d+ PID: \d+ at .*kptest\.c:\d+ kp_warn"),
    "panic-module": ("panic-module", 1, r"Kernel panic - not syncing: kptest: panic requested"),
    "nmi": ("nmi", 2, r"NMI backtrace for cpu 1"),
    "init": ("init", 1, r"RIP: 0010:kp_init_level[.\w]*\+"),
}


class Unavailable(Exception):
    """The tier cannot run here (no qemu, no kernel packages): a skip."""


def _skip(reason):
    try:
        import pytest
    except ImportError:
        raise Unavailable(reason)
    pytest.skip(reason)


@dataclasses.dataclass
class Report:
    scenario: str
    log: str            # path of the serial console log
    text: str           # its content
    release: str        # uname -r in the guest
    vmlinux: str        # DWARF vmlinux (-dbg package)
    system_map: str
    ko: str             # kptest.ko with debug info (the module's symbol file)
    ksyms: dict         # name -> list of runtime addresses (text symbols)
    ksyms_by_addr: list  # sorted (addr, name, module or None)
    modules: dict       # module name -> runtime base address
    sections: dict      # module name -> {".text": runtime address, ...}
    kernel_offset: int  # runtime _text - link-time _text (KASLR)

    def crash(self):
        """The console lines after the ground truth: the crash report."""
        return self.text.split("SONDE-TRUTH-END\n", 1)[1]

    def symbol_at(self, addr):
        """(name, offset, module) of the text symbol containing addr, from
        the guest's kallsyms; None below the first symbol."""
        import bisect
        i = bisect.bisect_right(self.ksyms_by_addr, (addr, "\xff")) - 1
        if i < 0:
            return None
        a, name, mod = self.ksyms_by_addr[i]
        return name, addr - a, mod


def _hash(*parts):
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, str):
            p = p.encode()
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()[:16]


def _file_hash(path):
    with open(path, "rb") as f:
        return _hash(f.read())


class _Lock:
    """An exclusive flock on path: test runs in other worktrees share the
    cache."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *a):
        os.close(self.fd)


KEEP_DAYS = 7


def _reuse(path):
    """Whether a cached file exists; marks it used (its mtime) if so."""
    try:
        os.utime(path)
        return True
    except FileNotFoundError:
        return False


def _prune(kdir):
    """Remove initramfs images and console logs unused for KEEP_DAYS: every
    new sonde binary booted with run_sonde() leaves one of each."""
    old = time.time() - KEEP_DAYS * 86400
    for d in (kdir, os.path.join(kdir, "reports")):
        for n in os.listdir(d):
            path = os.path.join(d, n)
            if (n.startswith("initramfs-") or d.endswith("reports")) and \
                    os.path.getmtime(path) < old:
                os.unlink(path)


def _enabled():
    if os.environ.get("SONDE_KERNEL_TESTS", "1") == "0":
        _skip("kernel tier disabled (SONDE_KERNEL_TESTS=0)")
    if not shutil.which(QEMU):
        _skip(f"{QEMU} not installed (scripts/deps.sh installs qemu-system-x86)")
    if not os.access(BUSYBOX, os.X_OK):
        _skip(f"{BUSYBOX} missing (scripts/deps.sh installs busybox-static)")
    if not shutil.which("cpio"):
        _skip("cpio not installed")


_kdir = None


def kernel_dir():
    """The cache directory of the fetched kernel (fetch.sh), fetching it on
    first use; skips when the packages cannot be had."""
    global _kdir
    if _kdir:
        return _kdir
    _enabled()
    p = subprocess.run([os.path.join(HERE, "fetch.sh")], capture_output=True,
                       text=True, env=dict(os.environ, SONDE_KERNEL_CACHE=CACHE))
    if p.returncode != 0:
        _skip("cannot fetch the Debian cloud kernel: " +
              (p.stderr.strip().splitlines() or ["fetch.sh failed"])[-1])
    _kdir = p.stdout.strip().splitlines()[-1]
    return _kdir


def _release(kdir):
    with open(os.path.join(kdir, "release")) as f:
        return f.read().strip()


def paths():
    """dict of the fetched kernel's files: release, vmlinuz, vmlinux,
    system_map, headers (the directory to build modules against)."""
    kdir = kernel_dir()
    rel = _release(kdir)
    root = os.path.join(kdir, "root")
    return {
        "release": rel,
        "vmlinuz": os.path.join(root, "boot", "vmlinuz-" + rel),
        "vmlinux": os.path.join(root, "usr/lib/debug/boot", "vmlinux-" + rel),
        "system_map": os.path.join(root, "usr/lib/debug/boot", "System.map-" + rel),
        "headers": os.path.join(root, "usr/src", "linux-headers-" + rel),
    }


def module():
    """Path of kptest.ko built against the fetched headers (cached)."""
    kdir = kernel_dir()
    src = os.path.join(HERE, "kptest")
    names = ("kptest.c", "Kbuild")
    key = _hash(_release(kdir), *[_file_hash(os.path.join(src, n)) for n in names])
    # Built where it stays: the path is in the module's DWARF and BUG lines.
    out = os.path.join(kdir, "kptest-" + key)
    ko = os.path.join(out, "kptest.ko")
    done = os.path.join(out, ".complete")
    if os.path.exists(done):
        return ko
    with _Lock(os.path.join(kdir, ".lock")):
        if os.path.exists(done):
            return ko
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        for n in names:
            shutil.copy(os.path.join(src, n), out)
        p = subprocess.run(["make", "-C", paths()["headers"], "M=" + out,
                            "modules"], capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(ko):
            raise RuntimeError("building kptest.ko failed:\n" +
                               p.stdout[-3000:] + p.stderr[-3000:])
        open(done, "w").close()
    return ko


def _payload_files(files):
    """Normalize run_in_guest's files into sorted (guest path, host path)."""
    if files is None:
        return []
    items = files.items() if isinstance(files, dict) else \
        [(os.path.basename(f), f) for f in files]
    out = []
    for dst, srcp in items:
        dst = dst.lstrip("/")
        if not dst or ".." in dst.split("/"):
            raise ValueError(f"bad guest path {dst!r}")
        out.append((dst, srcp))
    return sorted(out)


def initramfs(payload=(), script=None):
    """Path of the gzip'd cpio initramfs (busybox, /init, kptest.ko and the
    payload under /payload), cached by a hash of its content."""
    kdir = kernel_dir()
    ko = module()
    init = os.path.join(HERE, "init")
    parts = [_file_hash(BUSYBOX), _file_hash(init), _file_hash(ko)]
    for dst, srcp in payload:
        parts += [dst, _file_hash(srcp), str(os.stat(srcp).st_mode & 0o777)]
    if script is not None:
        parts += ["run.sh", script]
    key = _hash(*parts)
    out = os.path.join(kdir, "initramfs-" + key + ".cpio.gz")
    if _reuse(out):
        return out
    with tempfile.TemporaryDirectory(prefix="sonde-initramfs-") as d:
        for sub in ("bin", "proc", "sys", "dev", "tmp", "payload", "sys/kernel"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        shutil.copy(BUSYBOX, os.path.join(d, "bin", "busybox"))
        shutil.copy(init, os.path.join(d, "init"))
        os.chmod(os.path.join(d, "init"), 0o755)
        shutil.copy(ko, os.path.join(d, "kptest.ko"))
        for dst, srcp in payload:
            path = os.path.join(d, "payload", dst)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copy2(srcp, path)
        if script is not None:
            path = os.path.join(d, "payload", "run.sh")
            with open(path, "w") as f:
                f.write(script)
            os.chmod(path, 0o755)
        tmp = out + ".tmp%d" % os.getpid()
        names = subprocess.run(["find", "."], cwd=d, capture_output=True,
                               check=True).stdout
        with open(tmp, "wb") as f:
            cpio = subprocess.Popen(["cpio", "-o", "-H", "newc", "-R", "0:0",
                                     "--quiet"], cwd=d, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE)
            gz = subprocess.Popen(["gzip", "-1"], stdin=cpio.stdout, stdout=f)
            cpio.stdout.close()
            cpio.communicate(names)
            gz.wait()
            if cpio.returncode or gz.returncode:
                raise RuntimeError("building the initramfs failed")
        os.rename(tmp, out)
    return out


def boot(crash="none", cpus=1, payload=(), script=None, expect=None,
         timeout=BOOT_TIMEOUT):
    """Boot the guest once (or reuse a cached boot with the same inputs)
    and return the path of its serial console log."""
    p = paths()
    rd = initramfs(payload, script)
    # panic=-1 reboots at once, which -no-reboot turns into qemu exiting.
    cmdline = f"console=ttyS0 panic=-1 sonde.crash={crash}"
    if script is not None:
        cmdline += " sonde.run=1 sonde.ksyms=0"
    args = [QEMU, "-accel", "tcg", "-m", "512", "-smp", str(cpus),
            "-nographic", "-no-reboot", "-monitor", "none",
            "-kernel", p["vmlinuz"], "-initrd", rd, "-append", cmdline]
    kdir = kernel_dir()
    with open(os.path.join(kdir, "PACKAGES")) as f:
        packages = f.read()
    key = _hash(packages, os.path.basename(rd), *args[1:-4], cmdline)
    logdir = os.path.join(kdir, "reports")
    os.makedirs(logdir, exist_ok=True)
    log = os.path.join(logdir, f"{crash}-{key}.log")
    if _reuse(log):
        return log
    with _Lock(os.path.join(kdir, ".boot.lock")):
        if os.path.exists(log):
            return log
        tmp = log + ".tmp"
        if os.path.exists(tmp):
            os.unlink(tmp)
        t0 = time.monotonic()
        try:
            q = subprocess.run(args + ["-serial", "file:" + tmp],
                               capture_output=True, timeout=timeout,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"qemu did not exit within {timeout}s; "
                               f"console so far in {tmp}")
        with open(tmp, errors="replace") as f:
            text = f.read()
        if q.returncode != 0:
            raise RuntimeError(f"qemu exited with {q.returncode}: "
                               f"{q.stderr.decode(errors='replace')[-2000:]}")
        if "SONDE-TRUTH-END" not in text:
            raise RuntimeError(f"the guest printed no ground truth; see {tmp}")
        if expect and not re.search(expect, text):
            raise RuntimeError(f"the guest's console lacks /{expect}/; see {tmp}")
        with open(tmp, "a") as f:
            f.write(f"SONDE-BOOT-SECONDS {time.monotonic() - t0:.1f}\n")
        os.rename(tmp, log)
    _prune(kdir)
    return log


def read_log(path):
    """A console log as text, lines numbered as in the file: the serial
    line ends (\r\n) become \n, a lone \r (firmware output) stays."""
    with open(path, errors="replace", newline="") as f:
        return f.read().replace("\r\n", "\n")


TRUTH_KSYM = re.compile(r"^ksym ([0-9a-f]+) ([tTwW]) (\S+)(?:\s+\[(\S+)\])?$")
TRUTH_MOD = re.compile(r"^module (\S+) \d+ \d+ \S+ \S+ 0x([0-9a-f]+)")
TRUTH_SECTION = re.compile(r"^section (\S+) (\S+) 0x([0-9a-f]+)$")


def parse_truth(text):
    """The ground-truth block of a console log: (release, ksyms, by_addr,
    modules, sections)."""
    m = re.search(r"^SONDE-TRUTH-BEGIN\n(.*?)^SONDE-TRUTH-END$", text,
                  re.S | re.M)
    if not m:
        raise ValueError("no SONDE-TRUTH block")
    release, ksyms, by_addr, modules, sections = None, {}, [], {}, {}
    for line in m.group(1).splitlines():
        if line.startswith("release "):
            release = line.split()[1]
        elif (k := TRUTH_KSYM.match(line)):
            addr = int(k.group(1), 16)
            ksyms.setdefault(k.group(3), []).append(addr)
            by_addr.append((addr, k.group(3), k.group(4)))
        elif (k := TRUTH_MOD.match(line)):
            modules[k.group(1)] = int(k.group(2), 16)
        elif (k := TRUTH_SECTION.match(line)):
            sections.setdefault(k.group(1), {})[k.group(2)] = int(k.group(3), 16)
    by_addr.sort()
    return release, ksyms, by_addr, modules, sections


def _link_text(system_map):
    with open(system_map) as f:
        for line in f:
            a, t, name = line.split()[:3]
            if name == "_text":
                return int(a, 16)
    raise ValueError(f"no _text in {system_map}")


_reports = {}


def report(scenario):
    """Boot (or reuse) the guest for one crash scenario — panic, oops, bug,
    warn, panic-module, nmi — and return its Report."""
    if scenario in _reports:
        return _reports[scenario]
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r}; one of {list(SCENARIOS)}")
    crash, cpus, expect = SCENARIOS[scenario]
    p = paths()
    ko = module()
    log = boot(crash, cpus, expect=expect)
    text = read_log(log)
    release, ksyms, by_addr, modules, sections = parse_truth(text)
    offset = ksyms["_text"][0] - _link_text(p["system_map"])
    r = Report(scenario, log, text, release, p["vmlinux"], p["system_map"],
               ko, ksyms, by_addr, modules, sections, offset)
    _reports[scenario] = r
    return r


def run_in_guest(files, script, cpus=1, timeout=BOOT_TIMEOUT):
    """Boot the Debian kernel with extra files and run a script in it.

    files: a list of host paths (copied to /payload/<basename>) or a dict
    {guest path under /payload: host path}. script: shell text run by
    busybox sh as /payload/run.sh, from /payload, as root, after /proc,
    /sys, /dev, debugfs and tracefs are mounted and kptest is loaded. Its
    stdout and stderr come back as a string (with kernel messages that
    arrived meanwhile on the console). The guest has no dynamic loader:
    copy dynamically linked programs with their libraries (see
    with_libraries()) and start them through the copied ld.so. Cached
    like report(): the same files and script are booted once.
    """
    payload = _payload_files(files)
    log = boot("none", cpus, payload, script, timeout=timeout)
    text = read_log(log)
    m = re.search(r"^SONDE-RUN-BEGIN\n(.*?)^SONDE-RUN-END rc=(\d+)$", text,
                  re.S | re.M)
    if not m:
        raise RuntimeError(f"the payload did not run; see {log}")
    return m.group(1)


def with_libraries(binary):
    """{guest path: host path} for binary and every shared library ldd
    lists (including the dynamic loader), for run_in_guest(): run it in
    the guest as `./lib/ld-linux-x86-64.so.2 --library-path ./lib ./BIN`."""
    out = {os.path.basename(binary): binary}
    p = subprocess.run(["ldd", binary], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        m = re.search(r"(/\S+) \(0x", line)
        if m and os.path.exists(m.group(1)):
            lib = m.group(1)
            out["lib/" + os.path.basename(lib)] = os.path.realpath(lib)
    return out


def run_sonde(sonde, script, extra_files=None, cpus=1, timeout=BOOT_TIMEOUT):
    """run_in_guest() with the sonde binary and its libraries in /payload;
    the script runs sonde as "$SONDE ..." (through the copied loader), e.g.
    run_sonde(SONDE, "$SONDE dtrace -n 'BEGIN { exit(0); }'")."""
    files = with_libraries(sonde)
    files["sonde"] = files.pop(os.path.basename(sonde))
    files.update(extra_files or {})
    loader = next(k for k in files if k.startswith("lib/ld-linux"))
    prefix = f'SONDE="./{loader} --library-path ./lib ./sonde"\n'
    return run_in_guest(files, prefix + script, cpus=cpus, timeout=timeout)


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in SCENARIOS:
        print(f"usage: {sys.argv[0]} {'|'.join(SCENARIOS)}", file=sys.stderr)
        return 2
    try:
        r = report(sys.argv[1])
    except Unavailable as e:
        print(f"guest.py: {e}", file=sys.stderr)
        return 1
    print(r.log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
