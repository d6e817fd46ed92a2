#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/ktrace-soak.sh — sonde ktrace for a long while (SOAK_SECS, 600 by
# default) on a syscall storm (one-byte dd copies, forks and execs in a
# loop, on every CPU), its trace streamed through a FIFO into sonde kdump
# (so no disk fills): at the end the records lost as the recorder printed
# them are compared with the DROP records of the file and its END record,
# and the recorder's resident memory, sampled every 10 s, must stay
# bounded. Not part of `make test` (it takes minutes); `make bench` runs
# it. Needs root.
set -euo pipefail

SONDE=${SONDE:-build/sonde}
SOAK_SECS=${SOAK_SECS:-600}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || { echo "bench/ktrace-soak.sh: needs root" >&2; exit 1; }
mkfifo "$tmp/trace"
# The reader: DROP totals and the END record, in bounded memory.
"$SONDE" kdump -f "$tmp/trace" --format json -t p | awk '
	/"type":"DROP"/ { match($0, /"lost":[0-9]+/); lost += substr($0, RSTART + 7, RLENGTH - 7) }
	/"type":"END"/ { end = $0 }
	{ n++ }
	END { printf "%d %d %s\n", n, lost, end }' >"$tmp/read" &
pids+=($!)
ncpu=$(nproc)
storm="while :; do dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null; /bin/true; done"
args=(setsid sh -c "for i in \$(seq $ncpu); do sh -c '$storm' & done; sleep $SOAK_SECS; kill 0")
"$SONDE" ktrace -f "$tmp/trace" -- "${args[@]}" 2>"$tmp/err" &
rec=$!
pids+=($rec)
echo "soak: sonde ktrace on $ncpu storms of one-byte dd copies and execs for ${SOAK_SECS}s, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
rss=()
while kill -0 "$rec" 2>/dev/null; do
	r=$(awk '/^VmRSS/ { print $2 }' "/proc/$rec/status" 2>/dev/null || true)
	[ -n "$r" ] && rss+=("$r")
	sleep 10
done
wait "$rec" || true
wait "${pids[0]}" || true
screen=$(sed -n 's/.* \([0-9]*\) dropped.*/\1/p' "$tmp/err" | tail -1)
read -r lines file_lost end <"$tmp/read" || true
end_lost=$(echo "$end" | sed -n 's/.*"lost_ring":\([0-9]*\).*/\1/p')
printf "recorder: %s\n" "$(tail -1 "$tmp/err")"
printf "lost records: screen %s, file DROP records %s, END record %s: %s\n" \
	"${screen:-?}" "$file_lost" "${end_lost:-none}" \
	"$( [ "${screen:-x}" = "$file_lost" ] && [ "$file_lost" = "${end_lost:-y}" ] && echo equal || echo DIFFERENT)"
printf "recorder RSS every 10 s (KiB): min %s, max %s, first %s, last %s (%d samples)\n" \
	"$(printf '%s\n' "${rss[@]}" | sort -n | head -1)" \
	"$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)" "${rss[0]}" "${rss[-1]}" "${#rss[@]}"
