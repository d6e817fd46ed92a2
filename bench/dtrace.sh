#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/dtrace.sh — sonde dtrace side by side with bpftrace (Debian's 0.17)
# on the same kernel, in one run:
#
#   1. `BEGIN { exit(0); }` wall time (median of RUNS runs)   goal <= 10 ms
#   2. exec of the tracer to the first syscall::getppid:entry firing in a
#      process calling getppid() in a loop                    goal <= 10 ms
#   3. peak RSS of 1.                                          goal <= 8 MB
#   4. added cost per getppid() call with `@ = count();`      goal <= bpftrace
#   5. `syscall:::entry { @[probefunc] = count(); }` attach, first event
#      and detach (run to the first 1 ms tick)                 goal <= 200 ms
#   6. `syscall::read:return { @ = quantize(arg0); }` under a read() loop
#      vs bpftrace's `@ = hist(args->ret)`: time per read() traced over
#      untraced                                               goal <= bpftrace
#   7. `pid$target:a.out:bench_hot:entry { @ = count(); }` on a user
#      function called in a loop vs bpftrace's `uprobe:` equivalent: added
#      cost per call (a uprobe trap each)                     goal <= bpftrace
#
# Needs root. Not a test: it prints figures and the goals they meet or
# miss; other work on the machine moves them, so compare within one run.
set -euo pipefail

SONDE=${SONDE:-build/sonde}
RUNS=${RUNS:-7}
CALLS=${CALLS:-2000000}
BPFTRACE=${BPFTRACE:-bpftrace}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ "$(id -u)" = 0 ] || { echo "bench/dtrace.sh: needs root" >&2; exit 1; }
command -v "$BPFTRACE" >/dev/null || { echo "bench/dtrace.sh: no bpftrace" >&2; exit 1; }
here=$(dirname "$0")
cc -O2 -o "$tmp/helper" "$here/dtrace-helper.c"
H=$tmp/helper

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }'; }
goal() { awk -v v="$1" -v g="$2" 'BEGIN { print (v <= g ? "meets" : "misses") }'; }

echo "sonde dtrace vs $($BPFTRACE --version) on $(uname -r), $(nproc) CPUs"
echo

# 1, 3: start-up and memory
read -r s_wall s_rss < <($H run "$RUNS" "$SONDE" dtrace -qn 'BEGIN { exit(0); }')
read -r b_wall b_rss < <($H run "$RUNS" "$BPFTRACE" -e 'BEGIN { exit(); }')
read -r t_wall _ < <($H run "$RUNS" /bin/true)
printf "%-44s %9s %9s %8s  %s\n" "" "sonde" "bpftrace" "ratio" "goal"
printf "%-44s %6s ms %6s ms %8s  %s (<= 10 ms; /bin/true: %s ms)\n" \
	"BEGIN { exit(0); } wall, median" "$s_wall" "$b_wall" \
	"$(ratio "$b_wall" "$s_wall")" "$(goal "$s_wall" 10)" "$t_wall"
printf "%-44s %6s MB %6s MB %8s  %s (<= 8 MB)\n" "peak RSS" \
	"$(awk -v k="$s_rss" 'BEGIN { printf "%.1f", k / 1024 }')" \
	"$(awk -v k="$b_rss" 'BEGIN { printf "%.1f", k / 1024 }')" \
	"$(ratio "$b_rss" "$s_rss")" "$(goal "$s_rss" 8192)"

# 2: exec to the first firing (CLOCK_MONOTONIC on both sides)
first() {
	local i v vals=()
	for i in $(seq 5); do
		v=$($H first "$@") || continue
		vals+=("$v")
	done
	printf "%s\n" "${vals[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
s_first=$(first "$SONDE" dtrace -qn \
	'syscall::getppid:entry /pid == @PID@/ { printf("%d\n", timestamp); exit(0); }')
b_first=$(first "$BPFTRACE" -e \
	'tracepoint:syscalls:sys_enter_getppid /pid == @PID@/ { printf("%lld\n", nsecs); exit(); }')
printf "%-44s %6s ms %6s ms %8s  %s (<= 10 ms)\n" \
	"exec to first getppid:entry firing, median" "$s_first" "$b_first" \
	"$(ratio "$b_first" "$s_first")" "$(goal "$s_first" 10)"

# 4: cost per traced call: a getppid() loop, untraced and traced
per_call() {
	# $@: the tracer; the loop runs while it is attached
	local pid v
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep "${ATTACH_WAIT:-1.5}"
	v=$($H loop "$CALLS")
	kill -INT "$pid"
	wait "$pid" 2>/dev/null || true
	echo "$v"
}
base=$($H loop "$CALLS")
s_loop=$(per_call "$SONDE" dtrace -qn 'syscall::getppid:entry { @ = count(); }')
b_loop=$(ATTACH_WAIT=3 per_call "$BPFTRACE" -e 'tracepoint:syscalls:sys_enter_getppid { @ = count(); }')
base2=$($H loop "$CALLS")
base=$(awk -v a="$base" -v b="$base2" 'BEGIN { printf "%.1f", a < b ? a : b }')
s_add=$(awk -v t="$s_loop" -v b="$base" 'BEGIN { printf "%.0f", t - b }')
b_add=$(awk -v t="$b_loop" -v b="$base" 'BEGIN { printf "%.0f", t - b }')
printf "%-44s %6s ns %6s ns %8s  %s (<= bpftrace; untraced %s ns)\n" \
	"added cost per getppid() with @ = count()" "$s_add" "$b_add" \
	"$(ratio "$b_add" "$s_add")" "$(goal "$s_add" "$b_add")" "$base"

# 5: every syscall: attach, first tick, detach
read -r s_all _ < <($H run 3 "$SONDE" dtrace -qn \
	'syscall:::entry { @[probefunc] = count(); } tick-1ms { exit(0); }')
read -r b_all _ < <($H run 1 "$BPFTRACE" -e \
	'tracepoint:syscalls:sys_enter_* { @[probe] = count(); } interval:ms:1 { exit(); }')
printf "%-44s %6s ms %6s ms %8s  %s (<= 200 ms)\n" \
	"syscall:::entry count: attach + detach run" "$s_all" "$b_all" \
	"$(ratio "$b_all" "$s_all")" "$(goal "$s_all" 200)"

# 6: a distribution of read() sizes under a read-heavy loop
READS=${READS:-1000000}
per_read() {
	local pid v
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep "${ATTACH_WAIT:-1.5}"
	v=$($H readloop "$READS")
	kill -INT "$pid"
	wait "$pid" 2>/dev/null || true
	echo "$v"
}
rbase=$($H readloop "$READS")
s_read=$(per_read "$SONDE" dtrace -qn 'syscall::read:return { @ = quantize(arg0); }')
b_read=$(ATTACH_WAIT=3 per_read "$BPFTRACE" -e 'tracepoint:syscalls:sys_exit_read { @ = hist(args->ret); }')
rbase2=$($H readloop "$READS")
rbase=$(awk -v a="$rbase" -v b="$rbase2" 'BEGIN { printf "%.1f", a < b ? a : b }')
s_rr=$(awk -v t="$s_read" -v b="$rbase" 'BEGIN { printf "%.2f", t / b }')
b_rr=$(awk -v t="$b_read" -v b="$rbase" 'BEGIN { printf "%.2f", t / b }')
printf "%-44s %7sx %8sx %8s  %s (<= bpftrace; untraced %s ns, traced %s / %s ns)\n" \
	"read() with quantize(arg0) / untraced" "$s_rr" "$b_rr" \
	"$(ratio "$b_rr" "$s_rr")" "$(goal "$s_rr" "$b_rr")" "$rbase" "$s_read" "$b_read"

# 7: a pid probe on a hot user function (a uprobe per call)
HOT=${HOT:-300000}
per_hot() {
	# $1: ms the loop waits for the tracer; then the tracer, @PID@ its pid
	local delay=$1 hp tp v
	shift
	"$H" hotloop "$HOT" "$delay" >"$tmp/hot" &
	hp=$!
	sleep 0.3	# until it has exec'd: a.out is the helper
	"${@//@PID@/$hp}" >"$tmp/hotcount" 2>/dev/null &
	tp=$!
	wait "$hp"
	kill -INT "$tp" 2>/dev/null || true
	wait "$tp" 2>/dev/null || true
	cat "$tmp/hot"
}
hbase=$($H hotloop "$HOT" 0)
s_hot=$(per_hot 2500 "$SONDE" dtrace -q -p @PID@ -n \
	'pid$target:a.out:bench_hot:entry { @ = count(); }')
s_cnt=$(awk 'NF { v = $1 } END { print v + 0 }' "$tmp/hotcount")
b_hot=$(per_hot 4000 "$BPFTRACE" -p @PID@ -e \
	"uprobe:$H:bench_hot { @ = count(); }")
b_cnt=$(awk '/@:/ { v = $2 } END { print v + 0 }' "$tmp/hotcount")
hbase2=$($H hotloop "$HOT" 0)
hbase=$(awk -v a="$hbase" -v b="$hbase2" 'BEGIN { printf "%.1f", a < b ? a : b }')
s_hadd=$(awk -v t="$s_hot" -v b="$hbase" 'BEGIN { printf "%.0f", t - b }')
b_hadd=$(awk -v t="$b_hot" -v b="$hbase" 'BEGIN { printf "%.0f", t - b }')
printf "%-44s %6s ns %6s ns %8s  %s (<= bpftrace; untraced %s ns; counted %s / %s of %s)\n" \
	"added cost per pid-probed call, @ = count()" "$s_hadd" "$b_hadd" \
	"$(ratio "$b_hadd" "$s_hadd")" "$(goal "$s_hadd" "$b_hadd")" "$hbase" \
	"$s_cnt" "$b_cnt" "$HOT"
