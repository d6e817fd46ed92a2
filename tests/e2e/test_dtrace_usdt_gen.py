# SPDX-License-Identifier: GPL-2.0-only
"""`sonde dtrace -h` and `-G`: a USDT provider's header and link object from
a provider .d file, as dtrace(1) makes them, in the Linux form (.note.stapsdt
notes and semaphores). Checked against readelf/objdump (the notes, the
semaphore symbols, no executable stack), gcc (the header compiles and the
program links), the program's own output (ENABLED() is false untraced) and
systemtap's dtrace -h header (its semaphores link against sonde's object)."""
import os
import shutil
import subprocess

import pytest

from conftest import run

PROV = """\
/* a comment */
#pragma D attributes Evolving/Evolving/Common provider test_prov provider
provider test_prov {
\tprobe go();
\tprobe args(int a, char *s, unsigned short u, uintptr_t p);
\tprobe d__ash(char **);
};
"""

PROG = r"""
#include <stdint.h>
#include <stdio.h>
#include "prov.h"

int
main(int argc, char **argv)
{
	int n = 0;
	char str[] = "str";	/* on the stack: paged in */

	for (int i = 0; i < 3; i++) {
		TEST_PROV_GO();
		TEST_PROV_ARGS(-i, str, 65535, (uintptr_t)i << 40);
		if (TEST_PROV_D_ASH_ENABLED()) {
			n++;
			TEST_PROV_D_ASH(argv);
		}
	}
	printf("guarded %d\n", n);
	return 0;
}
"""


def need_gcc():
    if not shutil.which("gcc"):
        pytest.skip("no gcc")


def dtrace(sonde, *args, cwd, timeout=60):
    return run([sonde, "dtrace"] + list(args), cwd=cwd, timeout=timeout)


def build(sonde, d, cflags=()):
    (d / "prov.d").write_text(PROV)
    (d / "test.c").write_text(PROG)
    p = dtrace(sonde, "-h", "-s", "prov.d", cwd=d)
    assert p.returncode == 0, p.stderr
    assert (d / "prov.h").exists()
    subprocess.run(["gcc", *cflags, "-c", "test.c"], cwd=d, check=True)
    p = dtrace(sonde, "-G", "-s", "prov.d", "test.o", cwd=d)
    assert p.returncode == 0, p.stderr
    subprocess.run(["gcc", *cflags, "-o", "test", "test.o", "prov.o"],
                   cwd=d, check=True)
    return d / "test"


def notes(path):
    """(provider, name, semaphore != 0, arguments) of each stapsdt note,
    from readelf -n."""
    out = run(["readelf", "-n", str(path)]).stdout
    res, cur = [], {}
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Provider:"):
            cur = {"prov": line.split()[1]}
        elif line.startswith("Name:"):
            cur["name"] = line.split()[1]
        elif line.startswith("Location:"):
            cur["sem"] = int(line.split("Semaphore:")[1], 16) != 0
        elif line.startswith("Arguments:"):
            cur["args"] = line.split(":", 1)[1].split()
            res.append(cur)
    return res


def test_header_and_object_as_readelf_reads_them(sonde, tmp_path):
    need_gcc()
    exe = build(sonde, tmp_path)
    ns = notes(exe)
    assert sorted(n["name"] for n in ns) == ["args", "d__ash", "go"]
    assert all(n["prov"] == "test_prov" and n["sem"] for n in ns)
    a = [n for n in ns if n["name"] == "args"][0]["args"]
    # sizes and signs from the declared types: int, char *, ushort, uintptr_t
    assert [x.split("@")[0] for x in a] == ["-4", "8", "2", "8"], a
    assert [n for n in ns if n["name"] == "go"][0]["args"] == []
    syms = run(["readelf", "-sW", str(tmp_path / "prov.o")]).stdout
    for probe in ("go", "args", "d__ash"):
        line = [l for l in syms.splitlines()
                if l.endswith(f" test_prov_{probe}_semaphore")]
        assert line and " HIDDEN " in line[0] and " OBJECT " in line[0], syms
    sec = run(["readelf", "-SW", str(tmp_path / "prov.o")]).stdout
    assert ".probes" in sec and ".note.GNU-stack" in sec
    ph = run(["readelf", "-lW", str(exe)]).stdout
    assert not [l for l in ph.splitlines() if "STACK" in l and "RWE" in l]
    # -G leaves the object it read as it was
    st = os.stat(tmp_path / "test.o")
    p = dtrace(sonde, "-G", "-s", "prov.d", "test.o", cwd=tmp_path)
    assert p.returncode == 0 and os.stat(tmp_path / "test.o") == st
    # untraced, the semaphore is 0: the guarded code does not run
    assert run([str(exe)]).stdout == "guarded 0\n"


def test_probes_fire_with_their_arguments(sonde, root, tmp_path):
    need_gcc()
    if not os.path.exists("/sys/bus/event_source/devices/uprobe"):
        pytest.skip("this kernel has no uprobe PMU")
    exe = build(sonde, tmp_path)
    p = dtrace(sonde, "-q", "-c", str(exe), "-n",
               'test_prov$target:::args { printf("%s:%s:%s %d %s %d %x\\n",'
               ' probemod, probefunc, probename, (int)arg0,'
               ' copyinstr(arg1), (int)arg2, arg3); }'
               ' test_prov$target:::d-ash { printf("ash\\n"); }',
               cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    lines = [l for l in p.stdout.splitlines() if l]
    assert sorted(lines) == sorted([
        "test:main:args 0 str 65535 0", "test:main:args -1 str 65535 "
        "10000000000", "test:main:args -2 str 65535 20000000000",
        "ash", "ash", "ash", "guarded 3"]), p.stdout


def test_systemtap_header_links_with_the_object(sonde, tmp_path):
    """systemtap's dtrace -h declares the same semaphores."""
    need_gcc()
    stap = "/usr/bin/dtrace"
    if not os.path.exists(stap) or not os.path.exists(
            "/usr/include/x86_64-linux-gnu/sys/sdt.h"):
        pytest.skip("no systemtap-sdt-dev")
    (tmp_path / "prov.d").write_text(PROV)
    (tmp_path / "test.c").write_text(PROG)
    subprocess.run([stap, "-h", "-s", "prov.d", "-o", "prov.h"],
                   cwd=tmp_path, check=True)
    subprocess.run(["gcc", "-c", "test.c"], cwd=tmp_path, check=True)
    p = dtrace(sonde, "-G", "-s", "prov.d", "test.o", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    r = subprocess.run(["gcc", "-o", "test", "test.o", "prov.o"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert run([str(tmp_path / "test")]).stdout == "guarded 0\n"


def test_errors(sonde, tmp_path):
    need_gcc()
    (tmp_path / "prov.d").write_text(PROV)
    (tmp_path / "bad.d").write_text("provider x {\n\tprobe a(int;\n};\n")
    (tmp_path / "other.d").write_text("provider test_prov {\n"
                                      "\tprobe go();\n};\n")
    p = dtrace(sonde, "-h", "-s", "bad.d", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stderr == ('dtrace: failed to compile script bad.d: line 2: '
                        'syntax error near ";"\n')
    assert not (tmp_path / "bad.h").exists()
    # a probe the provider does not declare: refused, prov.o untouched
    (tmp_path / "test.c").write_text(PROG)
    p = dtrace(sonde, "-h", "-s", "prov.d", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    subprocess.run(["gcc", "-c", "test.c"], cwd=tmp_path, check=True)
    (tmp_path / "other.o").write_text("kept")
    p = dtrace(sonde, "-G", "-s", "other.d", "test.o", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stderr == ("dtrace: failed to link script other.d: no such "
                        "probe args\n")
    assert (tmp_path / "other.o").read_text() == "kept"
    # objects of two ELF classes
    r = subprocess.run(["gcc", "-m32", "-c", "-o", "t32.o", "test.c"],
                       cwd=tmp_path, capture_output=True)
    if r.returncode == 0:
        p = dtrace(sonde, "-G", "-s", "prov.d", "t32.o", "test.o",
                   cwd=tmp_path)
        assert p.returncode == 1
        assert p.stderr == ("dtrace: failed to link script prov.d: "
                            "incorrect ELF class for object file: test.o\n")
        p = dtrace(sonde, "-G", "-s", "prov.d", "t32.o", cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        assert "ELF32" in run(["readelf", "-h",
                               str(tmp_path / "prov.o")]).stdout
    p = dtrace(sonde, "-G", "-s", "prov.d", "nothere.o", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stderr == ("dtrace: failed to link script prov.d: failed to "
                        "open nothere.o: No such file or directory\n")
    # -h alone is the help; -h of a script not named .d needs -o
    (tmp_path / "prov.txt").write_text(PROV)
    p = dtrace(sonde, "-h", "-s", "prov.txt", cwd=tmp_path)
    assert p.returncode == 2
    assert "requires an output file" in p.stderr
    p = dtrace(sonde, "-h", "-s", "prov.txt", "-o", "x.h", cwd=tmp_path)
    assert p.returncode == 0 and (tmp_path / "x.h").exists()


def test_two_processes_usdt_probes(sonde, root, tmp_path):
    """Probes of two processes in one program (each process's files stay
    known: this crashed when the second process was read)."""
    need_gcc()
    if not os.path.exists("/sys/bus/event_source/devices/uprobe"):
        pytest.skip("this kernel has no uprobe PMU")
    (tmp_path / "prov.d").write_text("provider tp { probe go(int); };\n")
    (tmp_path / "loop.c").write_text(
        '#include <unistd.h>\n#include "prov.h"\n'
        'int main(void) { for (int i = 0; ; i++) { TP_GO(i);'
        ' usleep(50000); } }\n')
    assert dtrace(sonde, "-h", "-s", "prov.d", cwd=tmp_path).returncode == 0
    subprocess.run(["gcc", "-c", "loop.c"], cwd=tmp_path, check=True)
    assert dtrace(sonde, "-G", "-s", "prov.d", "loop.o",
                  cwd=tmp_path).returncode == 0
    subprocess.run(["gcc", "-o", "loop", "loop.o", "prov.o"], cwd=tmp_path,
                   check=True)
    a = subprocess.Popen([str(tmp_path / "loop")])
    b = subprocess.Popen([str(tmp_path / "loop")])
    try:
        p = dtrace(sonde, "-q", "-n",
                   f"tp{a.pid}:::go, tp{b.pid}:::go {{ @[pid] = count(); }}"
                   f" tick-1s {{ exit(0); }}", cwd=tmp_path)
    finally:
        a.kill()
        b.kill()
        a.wait()
        b.wait()
    assert p.returncode == 0, p.stderr
    pids = sorted(int(l.split()[0]) for l in p.stdout.splitlines()
                  if l.strip())
    assert pids == sorted([a.pid, b.pid]), p.stdout


def test_32bit_program_probes(sonde, root, tmp_path):
    """-G of a 32-bit object is a 32-bit object, and the usdt provider
    reads a 32-bit program's notes (4-byte addresses)."""
    need_gcc()
    if not os.path.exists("/sys/bus/event_source/devices/uprobe"):
        pytest.skip("this kernel has no uprobe PMU")
    (tmp_path / "prov.d").write_text("provider tp { probe go(int); };\n")
    (tmp_path / "m.c").write_text(
        '#include "prov.h"\nint main(void) { TP_GO(5); return 0; }\n')
    assert dtrace(sonde, "-h", "-s", "prov.d", cwd=tmp_path).returncode == 0
    r = subprocess.run(["gcc", "-m32", "-c", "m.c"], cwd=tmp_path,
                       capture_output=True)
    if r.returncode:
        pytest.skip("gcc cannot build 32-bit programs here")
    assert dtrace(sonde, "-G", "-s", "prov.d", "m.o",
                  cwd=tmp_path).returncode == 0
    r = subprocess.run(["gcc", "-m32", "-o", "m", "m.o", "prov.o"],
                       cwd=tmp_path, capture_output=True)
    if r.returncode:
        pytest.skip("no 32-bit C library to link with")
    ns = notes(tmp_path / "m")
    assert [(n["prov"], n["name"]) for n in ns] == [("tp", "go")]
    p = dtrace(sonde, "-q", "-c", str(tmp_path / "m"), "-n",
               'tp$target:::go { printf("%s:%s %d\\n", probefunc, '
               'probename, arg0); }', cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "main:go 5"
