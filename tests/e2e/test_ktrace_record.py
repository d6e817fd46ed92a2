# SPDX-License-Identifier: GPL-2.0-only
"""sonde ktrace, the recorder's side of the trace file against the real
kernel: the file it replaces (never destroyed before the command runs),
every ABI the kernel runs (i386, x32) against strace, the structures
(STRU records) and signals strace shows."""
import os
import stat
import subprocess

import pytest

from conftest import SONDE, run


def ktrace(args, out, timeout=60, **kw):
    return run([SONDE, "ktrace", "-f", str(out)] + args, timeout=timeout, **kw)


def test_failed_command_keeps_the_trace(root, sonde, tmp_path):
    """A command that cannot be run leaves the previous trace byte for
    byte, and nothing else in its directory."""
    out = tmp_path / "ktrace.out"
    p = ktrace(["--", "true"], out)
    assert p.returncode == 0, p.stderr
    before = out.read_bytes()
    for cmd, rc, msg in (
            (["/nonexistent"], 127,
             "sonde ktrace: cannot run /nonexistent: No such file or "
             "directory\n"),
            (["no-such-command-sonde"], 1,
             "sonde ktrace: no-such-command-sonde: command not found\n"),
            ([str(tmp_path)], 127,
             f"sonde ktrace: cannot run {tmp_path}: Permission denied\n")):
        p = ktrace(["--"] + cmd, out)
        assert (p.returncode, p.stderr) == (rc, msg)
        assert out.read_bytes() == before
        assert os.listdir(tmp_path) == ["ktrace.out"]
    # The default name in the current directory, too.
    p = run([SONDE, "ktrace", "--", "/nonexistent"], cwd=tmp_path)
    assert p.returncode == 127
    assert out.read_bytes() == before
    assert os.listdir(tmp_path) == ["ktrace.out"]


def test_replaced_once_started(root, sonde, tmp_path):
    """A regular file is replaced by the new trace (mode 0600); a symlink
    to a device is written through and stays a symlink; the device stays
    a device."""
    out = tmp_path / "ktrace.out"
    out.write_text("old\n")
    os.chmod(out, 0o644)
    p = ktrace(["--", "true"], out)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:8] == b"SONDEKTR"
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    link = tmp_path / "null"
    os.symlink("/dev/null", link)
    p = ktrace(["--", "true"], link)
    assert p.returncode == 0, p.stderr
    assert os.readlink(link) == "/dev/null"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert sorted(os.listdir(tmp_path)) == ["ktrace.out", "null"]


def test_unwritable_file_before_work(root, sonde, tmp_path):
    """A file that cannot be created is an error before anything runs."""
    marker = tmp_path / "ran"
    p = ktrace(["--", "touch", str(marker)], tmp_path / "no" / "such")
    assert p.returncode == 1
    assert p.stderr.startswith("sonde ktrace: cannot create ")
    assert not marker.exists()
