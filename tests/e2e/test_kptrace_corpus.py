# SPDX-License-Identifier: GPL-2.0-only
"""The real `sonde kptrace` over all of ../shared/corpus/linux-reports/
syzkaller, read as syzkaller reads its own parser test data: the first
line of the default text output (the last crash event, titled by its first
report) must name the culprit of the file's TITLE (or FRAME) for at least
97 % of the files that state one, and the whole title for at least 90 %,
counting the files not marked CORRUPTED: Y (those are measured apart and
printed). kptrace_corpus.py does the reading; run it directly for the
list of disagreements."""
import pytest

import kptrace_corpus as kc

CULPRIT_PCT = 97
TITLE_PCT = 90


def test_first_line_agrees_with_syzkaller(sonde):
    corpus = kc.find_corpus()
    if not corpus:
        pytest.skip("no ../shared/corpus/linux-reports/syzkaller")
    res = kc.measure(sonde, corpus)
    clean, corrupted = kc.figures(res), kc.figures(res, corrupted=True)
    for name, f in (("clean", clean), ("CORRUPTED: Y", corrupted)):
        print(f"{name}: {f['files']} files; culprit {f['culprit_ok']} of "
              f"{f['culprits']}, title {f['title_ok']} of {f['files']}")
    bad = [f"{r['name']}: want {r['want']!r}, got {r['got']!r}"
           for r in res if not r["corrupted"] and
           (not r["title_ok"] or (r["frame"] and not r["culprit_ok"]))]
    assert clean["files"] > 400 and clean["culprits"] > 400
    assert clean["culprit_ok"] * 100 >= clean["culprits"] * CULPRIT_PCT, bad
    assert clean["title_ok"] * 100 >= clean["files"] * TITLE_PCT, bad
