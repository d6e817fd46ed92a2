#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/kdump.sh — how fast sonde kdump reads a large trace, and in how
# much memory, against perf script reading a perf.data of the same size in
# the same run (and the size strace -o's text takes for the same calls).
#
# The trace: `sonde ktrace` (the default points) on a syscall storm, dd
# if=/dev/zero of=/dev/null bs=1 (a read and a write of one byte per
# byte: CALLRET records with their data), sized to MB MiB (1024). The
# peer: `perf record -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit`
# on the same storm, sized to the same MiB, read by `perf script`.
#
# Each reader writes to /dev/null; timed with /usr/bin/time (wall seconds,
# CPU seconds: user + system, and peak RSS), the median of RUNS runs (1 by
# default: a 1 GiB read takes a while). On a loaded machine wall time
# mostly measures waiting for a CPU: records per CPU second ("cpu rec/s")
# compare better. Records are file records: a CALLRET (a call, its data and its
# return in one record) counts once, as a perf sample does; perf's count
# is the samples perf report --stats counts. Ratios are kdump's records
# per CPU second to perf script's.
#
# Goals (issue 17): text >= 2 million records/s, -c >= 10 million/s, peak
# RSS under 50 MB whatever the file size (the reorder window is bounded).
#
# Needs root. Not a test: it prints figures; other work on the machine
# moves them, so compare within one run.
set -euo pipefail

SONDE=${SONDE:-build/sonde}
MB=${MB:-1024}
RUNS=${RUNS:-1}
STRACE_CALLS=${STRACE_CALLS:-100000}
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/kdump-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ "$(id -u)" = 0 ] || { echo "bench/kdump.sh: needs root" >&2; exit 1; }
for t in perf strace /usr/bin/time; do
	command -v $t >/dev/null || { echo "bench/kdump.sh: no $t" >&2; exit 1; }
done

want=$((MB * 1024 * 1024))

# dd bs=1 count=N makes 2N calls; grow N until the file is big enough.
# $1: a command that records "dd ... count=N" into $2 (N appended).
grow() {
	local rec=$1 file=$2 n=$3 size
	while :; do
		rm -f "$file"
		$rec "$file" "$n" >"$tmp/rec.log" 2>&1 || {
			cat "$tmp/rec.log" >&2
			exit 1
		}
		size=$(stat -c %s "$file")
		# Within 0 and +25 % of the size asked for.
		[ "$size" -ge "$want" ] && [ $((size * 4)) -le $((want * 5)) ] &&
			break
		n=$((n * want / size + n / 50 + 1))
	done
	echo "$n"
}

rec_sonde() {
	"$SONDE" ktrace -f "$1" -- dd if=/dev/zero of=/dev/null bs=1 count="$2"
}
rec_perf() {
	perf record -q -m 4096 -e raw_syscalls:sys_enter \
		-e raw_syscalls:sys_exit -o "$1" -- \
		dd if=/dev/zero of=/dev/null bs=1 count="$2"
}

echo "bench/kdump.sh: recording ${MB} MiB traces (load average $(cut -d' ' -f1 /proc/loadavg))" >&2
n=$(grow rec_sonde "$tmp/k.out" $((want / 270 + 1)))
krecs=$(sed -n 's/.*: \([0-9]*\) records .*/\1/p' "$tmp/rec.log")
klost=$(sed -n 's/.*, \([0-9]*\) dropped.*/\1/p' "$tmp/rec.log")
ksize=$(stat -c %s "$tmp/k.out")
pn=$(grow rec_perf "$tmp/perf.data" $((want / 430 + 1)))
psize=$(stat -c %s "$tmp/perf.data")
precs=$(perf report -i "$tmp/perf.data" --stats 2>/dev/null |
	awk '/SAMPLE events:/ { print $3; exit }')

# The median of RUNS runs of a command: "seconds cpu_seconds peak_kib".
timed() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
			{ cat "$tmp/err" >&2; exit 1; }
		awk '{ print $1, $2 + $3, $4 }' "$tmp/t"
	done | sort -n | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }'
}

printf '\nsonde kdump: %d records in %.0f MiB (dd bs=1 count=%d, %s lost); perf.data: %d samples in %.0f MiB (count=%d)\n' \
	"$krecs" "$(echo "$ksize / 1048576" | bc -l)" "$n" "${klost:-?}" \
	"$precs" "$(echo "$psize / 1048576" | bc -l)" "$pn"
read -r ps pc pk < <(timed perf script -i "$tmp/perf.data")
pcrate=$(echo "$precs / $pc" | bc -l)
printf '\n%-20s %10s %8s %11s %8s %11s %10s %8s\n' reader records seconds \
	"records/s" "cpu s" "cpu rec/s" "peak RSS" "vs perf"
# The ratio: records per CPU second to perf script's.
row() {
	local name=$1 recs=$2 s=$3 c=$4 k=$5 crate
	crate=$(echo "$recs / $c" | bc -l)
	printf '%-20s %10d %8.2f %11.0f %8.2f %11.0f %7.1f MB %7.2fx\n' \
		"$name" "$recs" "$s" "$(echo "$recs / $s" | bc -l)" "$c" \
		"$crate" "$(echo "$k / 1024" | bc -l)" \
		"$(echo "$crate / $pcrate" | bc -l)"
}
row "perf script" "$precs" "$ps" "$pc" "$pk"
for mode in "text:" "-c:-c" "json:--format json" "chrome:--format chrome"; do
	name=${mode%%:*}
	# shellcheck disable=SC2086
	read -r s c k < <(timed "$SONDE" kdump -f "$tmp/k.out" ${mode#*:})
	row "kdump $name" "$krecs" "$s" "$c" "$k"
done

# strace's text for the same kind of calls, per call (strace takes
# minutes on a storm this size: a smaller one).
strace -o "$tmp/s.txt" dd if=/dev/zero of=/dev/null bs=1 \
	count=$((STRACE_CALLS / 2)) 2>/dev/null
rm -f "$tmp/k2.out"
"$SONDE" ktrace -f "$tmp/k2.out" -- dd if=/dev/zero of=/dev/null bs=1 \
	count=$((STRACE_CALLS / 2)) 2>/dev/null
printf '\nbytes per call (dd bs=1 count=%d): sonde trace %.1f, strace -o text %.1f, perf.data %.1f\n' \
	$((STRACE_CALLS / 2)) \
	"$(echo "$(stat -c %s "$tmp/k2.out") / $STRACE_CALLS" | bc -l)" \
	"$(echo "$(stat -c %s "$tmp/s.txt") / $STRACE_CALLS" | bc -l)" \
	"$(echo "$psize / (2 * $pn)" | bc -l)"
