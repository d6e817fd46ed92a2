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
    assert p.stderr == "sonde: unknown command 'frobnicate' (see sonde --help)\n"
    assert run([sonde, "help", "frobnicate"]).returncode == 2


@pytest.mark.parametrize("word,near", [
    ("kdumb", "kdump"), ("dtarce", "dtrace"), ("porf", "prof"),
    ("strace", "ktrace"), ("perf", "hot"),
])
def test_unknown_command_suggests(sonde, word, near):
    for args in ([word], ["help", word]):
        p = run([sonde] + args)
        assert p.returncode == 2
        assert p.stdout == ""
        assert p.stderr == (f"sonde: unknown command '{word}'; did you mean "
                            f"'{near}'? (see sonde --help)\n")


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
    # One line, naming the token, pointing at the help (issue 13: the
    # whole usage used to follow and scroll the one useful line away).
    assert p.stderr.endswith(" (see sonde hot --help)\n"), p.stderr
    assert p.stderr.count("\n") == 1, p.stderr
    assert p.stdout == ""


COMMANDS = ["hot", "prof", "dtrace", "kptrace", "ktrace", "kdump", "agent"]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_command_help(sonde, cmd):
    for args in (["help", cmd], [cmd, "--help"], [cmd, "-h"]):
        p = run([sonde] + args)
        assert p.returncode == 0, (args, p.stderr)
        assert p.stdout.startswith(f"usage: sonde {cmd} "), args
        assert p.stderr == "", args


@pytest.mark.parametrize("cmd", COMMANDS)
@pytest.mark.parametrize("bad,message", [
    ("--bogus", "unknown option '--bogus'"),
    ("--bogus=1", "unknown option '--bogus'"),
    ("--help=1", "option '--help' takes no value"),
    ("-Q", "unknown option '-Q'"),
])
def test_every_command_bad_flag(sonde, cmd, bad, message):
    p = run([sonde, cmd, bad])
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""
    assert p.stderr == f"sonde {cmd}: {message} (see sonde {cmd} --help)\n"


@pytest.mark.parametrize("cmd,opt", [
    ("hot", "-d"), ("hot", "--duration"), ("prof", "-o"), ("kptrace", "-k"),
    ("ktrace", "-f"), ("ktrace", "--buffer-size"), ("kdump", "-m"),
])
def test_missing_value_names_the_option(sonde, cmd, opt):
    p = run([sonde, cmd, opt])
    assert p.returncode == 2
    assert p.stderr == (f"sonde {cmd}: option '{opt}' needs a value "
                        f"(see sonde {cmd} --help)\n")


def test_ktrace_ff_is_refused(sonde, tmp_path):
    """strace's -ff used to become '-f f': a trace file named f."""
    p = run([sonde, "ktrace", "-ff", "--", "true"], cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1
    assert "-ff is strace's" in p.stderr
    assert p.stderr.endswith("(see sonde ktrace --help)\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("size", ["99999999999999999999k", "16777216t",
                                  "4kb", "-4k"])
def test_sizes_overflow_is_a_usage_error(sonde, size):
    p = run([sonde, "ktrace", "-b", size, "--", "true"])
    assert p.returncode == 2
    assert p.stderr.startswith(f"sonde ktrace: bad buffer size '{size}'")
