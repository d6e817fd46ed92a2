# SPDX-License-Identifier: GPL-2.0-only
"""The `sonde` command line: help, version, usage errors and exit codes."""
import re

import pytest

from conftest import run


def test_version(sonde):
    p = run([sonde, "--version"])
    assert p.returncode == 0
    assert re.fullmatch(r"sonde \d+\.\d+\.\d+\n", p.stdout)


def test_help_lists_commands(sonde):
    for args in (["help"], ["--help"], ["-h"]):
        p = run([sonde] + args)
        assert p.returncode == 0
        assert "usage: sonde <command>" in p.stdout
        assert re.search(r"^  hot\s+which kernel code is hot", p.stdout, re.M)


def test_no_command_is_usage_error(sonde):
    p = run([sonde])
    assert p.returncode == 2
    assert "usage: sonde" in p.stderr
    assert p.stdout == ""


def test_unknown_command(sonde):
    p = run([sonde, "frobnicate"])
    assert p.returncode == 2
    assert p.stderr.startswith("sonde: unknown command 'frobnicate'\n")
    assert run([sonde, "help", "frobnicate"]).returncode == 2


def test_command_help(sonde):
    for args in (["hot", "--help"], ["hot", "-h"], ["help", "hot"]):
        p = run([sonde] + args)
        assert p.returncode == 0, args
        assert p.stdout.startswith("usage: sonde hot ")
        assert p.stderr == ""


@pytest.mark.parametrize("args,message", [
    (["--bogus"], "unknown option '--bogus'"),
    (["-x"], "unknown option '-x'"),
    (["-d"], "option '-d' needs a value"),
    (["-d", "5parsecs"], "bad duration '5parsecs'"),
    (["-d", "0s"], "bad duration '0s'"),
    (["-F", "0"], "bad frequency '0'"),
    (["-F", "100000000"], "bad frequency '100000000'"),
    (["-f", "-m"], "-f and -m exclude each other"),
    (["-n", "zero"], "bad row count 'zero'"),
    (["-C", "1-0"], "bad CPU list '1-0'"),
    (["-C", "4096"], "CPU list '4096' names a CPU this machine does not have"),
    (["-p", "-3"], "bad pid '-3'"),
    (["--format", "xml"], "unknown format 'xml'"),
    (["-e", "bogus-event"], "unknown event 'bogus-event'"),
    (["stray"], "unexpected argument 'stray'"),
])
def test_hot_usage_errors(sonde, args, message):
    p = run([sonde, "hot"] + args)
    assert p.returncode == 2, p.stderr
    first = p.stderr.split("\n")[0]
    assert first == f"sonde hot: {message}" or first.startswith(
        f"sonde hot: {message}"), first
    assert "usage: sonde hot" in p.stderr
    assert p.stdout == ""
