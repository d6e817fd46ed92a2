#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# dtrace-conformance.sh — `make conformance`: runs the whole of DTrace's own
# unit-test suite (dtrace-utils' test/unittest, judged by the suite's run.sh
# as its runtest.sh judges them) against `sonde dtrace` and prints the pass
# rate of the applicable tests (those env.tsv does not set aside), overall
# and for tst.* and err.* apart, then the passing tests that
# tests/dtrace-suite.pass does not list yet (candidates for `make test`)
# and the listed ones that failed.
#   dtrace-conformance.sh SONDE [TEST...]    env: DTRACE_SUITE, RESULTS
set -eu
sonde=$(readlink -f "${1:?usage: dtrace-conformance.sh SONDE [TEST...]}"); shift
root=$(cd "$(dirname "$0")/.." && pwd)
suite=${DTRACE_SUITE:-}
for d in "$suite" "$root/../shared/dtrace-suite" /work/shared/dtrace-suite; do
	[ -n "$d" ] && [ -x "$d/run.sh" ] && { suite=$d; break; }
done
[ -x "${suite:-}/run.sh" ] || {
	echo "dtrace-conformance.sh: DTrace's suite not found (set DTRACE_SUITE)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "dtrace-conformance.sh: needs root" >&2; exit 2; }
res=${RESULTS:-$(mktemp /tmp/sonde-conformance.XXXXXX.tsv)}
RESULTS=$res nice -n 10 "$suite/run.sh" "$sonde" "$@"
gawk -F'\t' -v list="$root/tests/dtrace-suite.pass" '
BEGIN { while ((getline l < list) > 0) if (l !~ /^#/ && l != "") listed[l] = 1 }
{ n = split($1, p, "/"); kind = substr(p[n], 1, 3)
  if ($2 == "PASS" || $2 == "XPASS") { pass[kind]++; P++; if (!($1 in listed)) new[++nn] = $1 }
  else if ($2 == "FAIL" || $2 == "XFAIL") { fail[kind]++; F++; if ($1 in listed) lost[++nl] = $1 }
  ran[$1] = 1 }
function rate(p, f) { return p + f ? sprintf("%.1f %%", 100 * p / (p + f)) : "-" }
END {
  printf "\nconformance: %d of %d applicable tests pass (%s)\n", P, P + F, rate(P, F)
  printf "  tst.*: %d of %d (%s)   err.*: %d of %d (%s)   drp.*: %d of %d (%s)\n",
	pass["tst"], pass["tst"] + fail["tst"], rate(pass["tst"], fail["tst"]),
	pass["err"], pass["err"] + fail["err"], rate(pass["err"], fail["err"]),
	pass["drp"], pass["drp"] + fail["drp"], rate(pass["drp"], fail["drp"])
  if (nn) { printf "\npassing, not in tests/dtrace-suite.pass (%d):\n", nn
	    for (i = 1; i <= nn; i++) print "  " new[i] }
  if (nl) { printf "\nin tests/dtrace-suite.pass, failing (%d):\n", nl
	    for (i = 1; i <= nl; i++) print "  " lost[i] }
  printf "\nresults: %s\n", FILENAME
}' "$res"
