# SPDX-License-Identifier: GPL-2.0-only
"""The first line of `sonde kptrace REPORT`'s default text output against
syzkaller's reading of its own parser test data (../shared/corpus/
linux-reports/syzkaller: each file's TITLE, FRAME and CORRUPTED fields,
then the raw log). Used by test_kptrace_corpus.py; run it directly to
print the figures and the disagreeing files:

    python3 tests/e2e/kptrace_corpus.py [SONDE] [-v]
"""
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Titles that are no kernel report: syzkaller's own failures, its Go
# runtime, a reboot it noticed, Trusty's TEE asserts.
NOT_KERNEL = ("SYZFAIL:", "go runtime", "unexpected kernel reboot", "trusty:")

# Syzkaller spells some kinds as older kernels printed them.
ALIAS = {
    "BUG: unable to handle kernel NULL pointer dereference":
        "BUG: kernel NULL pointer dereference",
    "BUG: unable to handle kernel paging request":
        "BUG: unable to handle page fault",
}

SYSCALL_PREFIXES = ("compat_SYSC_", "compat_SyS_", "SYSC_", "SyS_", "__x64_",
                    "__ia32_", "__arm64_", "____sys_", "___sys_", "__sys_",
                    "__se_sys_", "__se_", "__do_sys_", "sys_", "ksys_")


def find_corpus():
    for c in (os.environ.get("SONDE_CORPUS"),
              os.path.join(os.path.dirname(ROOT), "shared", "corpus"),
              "/work/shared/corpus"):
        if c and os.path.isdir(os.path.join(c, "linux-reports", "syzkaller")):
            return c
    return None


def read_case(path):
    """(fields, body): the header fields up to the first blank line."""
    with open(path, "rb") as f:
        data = f.read()
    head, sep, body = data.partition(b"\n\n")
    if data.startswith(b"\n"):
        head, body = b"", data[1:]
    fields = {}
    for line in head.decode("utf-8", "replace").splitlines():
        k, s, v = line.partition(": ")
        if s and k.isupper() and k not in fields:
            fields[k] = v
    return fields, body


def norm_kind(k):
    """syzkaller writes numbers in titles as NUM."""
    if "NUM" not in k:
        k = re.sub(r"(?<![A-Za-z0-9])\d[A-Za-z0-9]*|(?<=x)\d[A-Za-z0-9]*",
                   "NUM", k)
    k = ALIAS.get(k, k)
    return k.rstrip("! ")


def func_base(f):
    if f.startswith(".") and len(f) > 1:
        f = f[1:]
    if "::" in f or "<" in f:
        return f
    return f.split(".")[0]


def unprefix(f):
    for p in SYSCALL_PREFIXES:
        if f.startswith(p):
            f = f[len(p):]
    return f


def same_func(got, want):
    if " / " in got and "/" not in want:        # KCSAN: "f / g"
        return got.split(" ")[0] == want
    if "/" in want and "/" not in got:          # "f/usb_submit_urb"
        return func_base(got) == want.split("/")[0]
    if "/" in got or "/" in want:
        return got == want
    return unprefix(func_base(got)) == unprefix(func_base(want))


def expected(fields):
    """(kind, frame) as syzkaller reads the file; frame '' when none."""
    title, frame = fields["TITLE"], fields.get("FRAME", "")
    if title.endswith(" at addr ADDR"):     # old KASAN titles
        title = title[:-13]
    if frame and title.endswith(" in " + frame):
        return title[:-len(frame) - 4], frame
    i = title.rfind(" in ")
    if i >= 0 and (" " not in title[i + 4:] or "KCSAN" in title):
        kind, tail = title[:i], title[i + 4:]
        if not frame and tail != "corrupted":
            frame = tail
        title = kind
    if frame == "corrupted":
        frame = ""
    return title, frame


def kind_agrees(got, want):
    got, want = norm_kind(got), norm_kind(want)
    if got == want:
        return True
    # old KASAN titles carry no Read/Write
    return (want.startswith("KASAN: ") and " " not in want[7:] and
            got in (want + " Read", want + " Write"))


def judge(line, kind, frame):
    """(culprit agrees, title agrees) for a first output line."""
    splits = [(line, "")]
    for m in re.finditer(" in ", line):
        splits.append((line[:m.start()], line[m.end():]))
    culprit = bool(frame) and any(c and same_func(c, frame)
                                  for _, c in splits)
    if frame:
        title = any(c and kind_agrees(k, kind) and same_func(c, frame)
                    for k, c in splits)
    else:
        title = kind_agrees(line, kind) or any(
            kind_agrees(k, kind) for k, _ in splits[1:])
    return culprit, title


def first_line(sonde, body):
    p = subprocess.run([sonde, "kptrace", "-"], input=body,
                       capture_output=True, timeout=60)
    out = p.stdout.decode("utf-8", "replace")
    return out.split("\n", 1)[0] if out else ""


def measure(sonde, corpus):
    """Per file: name, fields, kind, frame, first line, verdicts."""
    d = os.path.join(corpus, "linux-reports", "syzkaller")
    cases = []
    for name in sorted(os.listdir(d), key=lambda s: (len(s), s)):
        fields, body = read_case(os.path.join(d, name))
        t = fields.get("TITLE", "")
        if not t or t.startswith(NOT_KERNEL):
            continue
        cases.append((name, fields, body))
    env_env = os.environ.get("KP_JOBS")
    jobs = int(env_env) if env_env else 4
    with ThreadPoolExecutor(jobs) as ex:
        lines = list(ex.map(lambda c: first_line(sonde, c[2]), cases))
    res = []
    for (name, fields, _), line in zip(cases, lines):
        kind, frame = expected(fields)
        c, t = judge(line, kind, frame)
        res.append(dict(name=name, corrupted=fields.get("CORRUPTED") == "Y",
                        want=fields["TITLE"], kind=kind, frame=frame,
                        got=line, culprit_ok=c, title_ok=t))
    return res


def figures(res, corrupted=False):
    sel = [r for r in res if r["corrupted"] == corrupted]
    withc = [r for r in sel if r["frame"]]
    return dict(files=len(sel), culprits=len(withc),
                culprit_ok=sum(r["culprit_ok"] for r in withc),
                title_ok=sum(r["title_ok"] for r in sel))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    sonde = args[0] if args else os.path.join(ROOT, "build", "sonde")
    corpus = find_corpus()
    if not corpus:
        sys.exit("no corpus")
    res = measure(sonde, corpus)
    for corr in (False, True):
        f = figures(res, corr)
        print(f"{'CORRUPTED' if corr else 'clean'}: {f['files']} files, "
              f"culprit {f['culprit_ok']}/{f['culprits']} "
              f"({100.0 * f['culprit_ok'] / max(f['culprits'], 1):.1f} %), "
              f"title {f['title_ok']}/{f['files']} "
              f"({100.0 * f['title_ok'] / max(f['files'], 1):.1f} %)")
    if "-v" in sys.argv:
        for r in res:
            if not r["title_ok"] or (r["frame"] and not r["culprit_ok"]):
                print(f"{'C ' if r['corrupted'] else '  '}{r['name']:>5}"
                      f" {'c' if r['culprit_ok'] else '-'}"
                      f"{'t' if r['title_ok'] else '-'}"
                      f" want: {r['want']}\n{'':10}got:  {r['got']}")


if __name__ == "__main__":
    main()
