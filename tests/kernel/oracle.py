# SPDX-License-Identifier: GPL-2.0-only
"""Independent answers for the kernel tier's crash reports: the frames a
console log names (parsed here with a few regular expressions, not with
sonde's parser), ELF symbol tables (eu-readelf) and source locations with
inline chains (eu-addr2line), so tests can check sonde kptrace against
them and the guest's ground truth against the symbol files."""
import re
import subprocess
from dataclasses import dataclass

# `[   11.92] ? kp_level1+0x92/0xb0 [kptest]` and `RIP: 0010:kp_level2+0xc/0x20 [kptest]`
FRAME = re.compile(r"^\[\s*[0-9.]+\]\s+(\? )?([A-Za-z_][\w.]*)\+0x([0-9a-f]+)/0x([0-9a-f]+)"
                   r"(?: \[(\w+)\])?\s*$")
RIP = re.compile(r"^\[\s*[0-9.]+\]\s+RIP: 0010:([A-Za-z_][\w.]*)\+0x([0-9a-f]+)/0x([0-9a-f]+)"
                 r"(?: \[(\w+)\])?\s*$")


@dataclass
class Frame:
    func: str
    off: int
    size: int
    module: str         # None for the core kernel
    reliable: bool
    is_pc: bool         # the faulting RIP (looked up at pc, not pc-1)
    line: str           # the console line


def frames(text):
    """Every frame line of a console log, in order, RIP lines included."""
    out = []
    for line in text.splitlines():
        m = RIP.match(line)
        if m:
            out.append(Frame(m.group(1), int(m.group(2), 16), int(m.group(3), 16),
                             m.group(4), True, True, line))
            continue
        m = FRAME.match(line)
        if m:
            out.append(Frame(m.group(2), int(m.group(3), 16), int(m.group(4), 16),
                             m.group(5), not m.group(1), False, line))
    return out


@dataclass
class Sym:
    name: str
    value: int
    size: int
    section: str        # section name (.text, .text.unlikely, ...)


def elf_symbols(path):
    """Code symbols of an ELF file by name (a list each: local names
    repeat), from eu-readelf."""
    secs = {}
    out = subprocess.run(["eu-readelf", "-S", "-W", path], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S+)", line)
        if m:
            secs[m.group(1)] = m.group(2)
    syms = {}
    out = subprocess.run(["eu-readelf", "-s", "-W", path], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        # Functions, and the assembly labels (NOTYPE) frames can name too.
        if len(f) >= 8 and f[0].endswith(":") and \
                (f[3] == "FUNC" or (f[3] == "NOTYPE" and f[6].isdigit())):
            name = f[7].split("@")[0]
            size = int(f[2], 16) if f[2].startswith("0x") else int(f[2])
            syms.setdefault(name, []).append(
                Sym(name, int(f[1], 16), size, secs.get(f[6], f[6])))
    return syms


def addr2line(path, addrs, section=None):
    """{addr: [(function, file, line), ...]} innermost first, from
    `eu-addr2line -i -f` (section: addresses are offsets into it, for .ko
    files). The last entry is the function that holds the code."""
    addrs = list(dict.fromkeys(addrs))
    if not addrs:
        return {}
    cmd = ["eu-addr2line", "-e", path, "-a", "-i", "-f"]
    if section:
        cmd += ["-j", section]
    out = subprocess.run(cmd + ["0x%x" % a for a in addrs], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    # One block per address, in order: `0x...` (eu-addr2line's own view of
    # the address, biased for sections) then function/location pairs.
    res, n, i = {}, -1, 0
    while i < len(out):
        line = out[i]
        if re.match(r"^0x[0-9a-f]+$", line):
            n += 1
            res[addrs[n]] = []
            i += 1
            continue
        func = line.split()[0]
        loc = out[i + 1] if i + 1 < len(out) else "??:0"
        m = re.match(r"^(.*?):(\d+)(?::\d+)?$", loc)
        file, lno = (m.group(1), int(m.group(2))) if m else (loc, 0)
        res[addrs[n]].append((func, file, lno))
        i += 2
    return res
