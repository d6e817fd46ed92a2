#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/hot.sh — sonde hot against perf record + perf report and against
# bpftrace, all on the same kernel-heavy load (dd bs=1) in one run.
#
# For each tool: wall time beyond the 5 s of sampling, its own CPU time
# (user + sys), and peak RSS, as medians of RUNS runs; then the ratios
# peer / sonde and sonde's goals (<= 150 ms beyond 5 s: kallsyms is read
# before sampling starts, so that sonde does not sample its own reading;
# <= 1 % of one CPU, <= 20 MB). The same for `sonde hot --format pprof`
# against perf record + perf report, and, on the machine without the load,
# how many of sonde's own samples it dropped on the CPU it runs on (goal
# 0). Needs root. Not a test: it prints figures, it does not judge anything
# but the goals it names.
set -euo pipefail

SONDE=${SONDE:-build/sonde}
RUNS=${RUNS:-3}
HZ=997
SECS=5
tmp=$(mktemp -d)
trap 'kill $dd 2>/dev/null || true; rm -rf "$tmp"' EXIT

[ "$(id -u)" = 0 ] || { echo "bench/hot.sh: needs root" >&2; exit 1; }
last_cpu=$(($(nproc) - 1))

start_load() {
	taskset -c "$last_cpu" dd if=/dev/zero of=/dev/null bs=1 2>/dev/null &
	dd=$!
	sleep 0.3
}

stop_load() {
	kill "$dd" 2>/dev/null || true
	wait "$dd" 2>/dev/null || true
}

# timed1 FILE CMD...: "wall user sys maxrss_kb" of one command into FILE;
# wall from bash's microsecond clock (time(1) rounds to 10 ms).
timed1() {
	local out=$1 t0 t1
	shift
	t0=$EPOCHREALTIME
	/usr/bin/time -f "%U %S %M" -o "$out.tmp" "$@" >/dev/null 2>&1
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" '{ printf "%.6f %s %s %s\n", b - a, $1, $2, $3 }' \
		"$out.tmp" >"$out"
}

# timed FILE CMD...: append one run's row to FILE.
timed() {
	local out=$1
	shift
	timed1 "$tmp/t" "$@"
	cat "$tmp/t" >>"$out"
}

# median FILE COLUMN-EXPRESSION (awk over "wall user sys rss" rows)
median() {
	awk "{ print $2 }" "$1" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

run_sonde() {
	timed "$tmp/sonde" "$SONDE" hot -d "${SECS}s" -F "$HZ"
}

run_sonde_pprof() {
	timed "$tmp/pprof" "$SONDE" hot -d "${SECS}s" -F "$HZ" --format pprof \
		-o "$tmp/hot.pb.gz"
}

run_perf() {
	timed1 "$tmp/t1" perf record -q -a -F "$HZ" -o "$tmp/perf.data" -- \
		sleep "$SECS"
	timed1 "$tmp/t2" perf report -i "$tmp/perf.data" --stdio --sort dso,sym
	# record + report: times add up, memory is the larger of the two
	paste -d' ' "$tmp/t1" "$tmp/t2" | awk '{ printf "%.6f %.2f %.2f %d\n",
		$1 + $5, $2 + $6, $3 + $7, ($4 > $8 ? $4 : $8) }' >>"$tmp/perf"
}

run_bpftrace() {
	timed "$tmp/bpftrace" bpftrace -e "profile:hz:$HZ { @[kstack(1)] = count(); }
		interval:s:$SECS { exit(); }"
}

have() { command -v "$1" >/dev/null; }

echo "sonde hot benchmark: dd if=/dev/zero of=/dev/null bs=1 on CPU $last_cpu," \
     "${SECS} s at $HZ Hz, median of $RUNS runs"
for i in $(seq "$RUNS"); do
	start_load
	run_sonde
	run_sonde_pprof
	have perf && run_perf
	have bpftrace && run_bpftrace
	stop_load
done
# without the load: sonde pinned to the CPU it samples, idle dropped; its
# own samples (dropped and counted) and table rows in the kallsyms readers
# it used to sample (goal 0 each)
taskset -c 0 "$SONDE" hot -C 0 --no-idle -d "${SECS}s" --format json \
	>"$tmp/idle.json"
own=$(sed -n 's/^  "dropped_own": \([0-9]*\),$/\1/p' "$tmp/idle.json")
kall=$(grep -cE '"method": "(kallsyms_[a-z_]*|s_show|update_iter|format_decode|number|vsnprintf)\+' \
	"$tmp/idle.json" || true)
echo "on CPU 0 without the load, ${SECS} s, --no-idle: sonde's own samples" \
     "dropped ${own:-0} (goal 0); table rows in kallsyms readers ${kall} (goal 0;" \
     "23 of 31 samples before kallsyms was read first); the machine is" \
     "shared with other agents: their samples are in the table too"
# kallsyms load time, as sonde itself reports it (before sampling starts)
"$SONDE" hot -d 200ms -v 2>&1 >/dev/null | sed -n 's/.*kallsyms: \([0-9]*\) symbols in \(.*\); .*/kallsyms: \1 symbols parsed in \2 (goal <= 60 ms)/p'

printf '\n%-26s %12s %10s %12s %10s\n' tool "beyond ${SECS} s" "CPU s" "% one CPU" "peak RSS"
declare -A beyond cpu rss
for t in sonde pprof perf bpftrace; do
	[ -s "$tmp/$t" ] || continue
	beyond[$t]=$(median "$tmp/$t" "\$1 - $SECS")
	cpu[$t]=$(median "$tmp/$t" '$2 + $3')
	rss[$t]=$(median "$tmp/$t" '$4 / 1024')
	case $t in
	sonde) label="sonde hot -d ${SECS}s" ;;
	pprof) label="sonde hot --format pprof" ;;
	perf) label="perf record + report" ;;
	bpftrace) label="bpftrace profile:hz:$HZ" ;;
	esac
	awk -v l="$label" -v b="${beyond[$t]}" -v c="${cpu[$t]}" -v r="${rss[$t]}" \
	    -v s="$SECS" 'BEGIN { printf "%-26s %10.4f s %10.3f %11.2f %% %7.1f MB\n",
		l, b, c, 100 * c / s, r }'
done

echo
[ -n "${beyond[perf]:-}" ] && awk -v pb="${beyond[perf]}" -v sb="${beyond[pprof]}" \
    -v pc="${cpu[perf]}" -v sc="${cpu[pprof]}" -v pr="${rss[perf]}" \
    -v sr="${rss[pprof]}" 'function r(a, b) { return b > 0 ? a / b : 0 }
	BEGIN { printf "perf / sonde --format pprof: beyond-5s %.1fx, CPU %.1fx, RSS %.1fx\n",
		r(pb, sb), r(pc, sc), r(pr, sr) }'
for t in perf bpftrace; do
	[ -n "${beyond[$t]:-}" ] || continue
	awk -v t="$t" -v pb="${beyond[$t]}" -v sb="${beyond[sonde]}" \
	    -v pc="${cpu[$t]}" -v sc="${cpu[sonde]}" -v pr="${rss[$t]}" \
	    -v sr="${rss[sonde]}" 'function r(a, b) { return b > 0 ? a / b : 0 }
		BEGIN { printf "%s / sonde: beyond-5s %.1fx, CPU %.1fx, RSS %.1fx\n",
			t, r(pb, sb), r(pc, sc), r(pr, sr) }'
done
awk -v b="${beyond[sonde]}" -v c="${cpu[sonde]}" -v r="${rss[sonde]}" -v s="$SECS" \
    'function v(ok) { return ok ? "met" : "MISSED" } BEGIN {
	printf "goals: beyond 5 s <= 0.150 s %s; CPU <= 1 %% of one CPU %s; RSS <= 20 MB %s\n",
		v(b <= 0.150), v(100 * c / s <= 1), v(r <= 20) }'
