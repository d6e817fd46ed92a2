#!/bin/bash
# bench/kptrace.sh — sonde kptrace against eu-addr2line (one process for
# all addresses) and against the kernel's scripts/decode_stacktrace.sh (one
# addr2line per frame), on Debian's 6.1 cloud vmlinux with DWARF, in one run.
#
#   1. a 25-frame report, cold: the vmlinux's pages dropped from the page
#      cache first (posix_fadvise DONTNEED on that one file, so other work
#      on the machine keeps its cache), then warm; goal <= 1 s cold.
#   2. a file of 10,000 frames (400 reports of 25, -a); goal <= 3 s.
#   decode_stacktrace.sh runs on the 25-frame report only (at ~0.3 s per
#   frame, 10,000 frames would take an hour).
#
# The vmlinux comes from tests/kernel/fetch.sh's cache (/var/cache/sonde/
# kernel), fetched the same way when absent; decode_stacktrace.sh is taken
# from Debian's linux-source package (downloaded once, only that script
# extracted) into /var/cache/sonde/bench. Not a test: it prints figures.
set -euo pipefail

SONDE=${SONDE:-build/sonde}
RUNS=${RUNS:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${SONDE_BENCH_CACHE:-/var/cache/sonde/bench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

dir=$("$here/tests/kernel/fetch.sh")
rel=$(basename "$dir")
vmlinux=$dir/root/usr/lib/debug/boot/vmlinux-$rel
[ -f "$vmlinux" ] || { echo "bench/kptrace.sh: no $vmlinux" >&2; exit 1; }

# decode_stacktrace.sh from linux-source (a tarball inside the .deb)
decode=$cache/decode_stacktrace.sh
if [ ! -x "$decode" ]; then
	mkdir -p "$cache"
	( cd "$cache" && ls linux-source-6.1_*.deb >/dev/null 2>&1 ||
		apt-get download linux-source-6.1 >/dev/null 2>&1 ) || true
	deb=$(ls "$cache"/linux-source-6.1_*.deb 2>/dev/null | tail -n 1 || true)
	if [ -n "$deb" ]; then
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO --wildcards './usr/src/linux-source-6.1.tar.*' |
			tar -xJO linux-source-6.1/scripts/decode_stacktrace.sh \
				>"$decode.tmp" 2>/dev/null && mv "$decode.tmp" "$decode" &&
			chmod +x "$decode" || rm -f "$decode.tmp"
	fi
fi

# 25 core-kernel functions spread over the text, with their sizes
nm -S --defined-only "$vmlinux" | /usr/bin/python3 -c '
import sys
rows = [l.split() for l in sys.stdin]
rows = [r for r in rows if len(r) == 4 and r[2] in "Tt" and 0x40 <= int(r[1], 16) < 0x2000]
for r in rows[::997][:25]:
    print(r[0], r[1], r[3])' >"$tmp/funcs"
[ "$(wc -l <"$tmp/funcs")" = 25 ] || { echo "bench/kptrace.sh: too few symbols" >&2; exit 1; }

# report(N): one report of the 25 functions, "func+off/size" frames
report() {
	local i=0
	echo "[  100.$1] BUG: kernel NULL pointer dereference, address: 0000000000000000"
	echo "[  100.$1] Oops: 0000 [#1] PREEMPT SMP NOPTI"
	echo "[  100.$1] CPU: 0 PID: 1 Comm: sh Not tainted $rel #1 Debian"
	while read -r addr size name; do
		off=$(( 0x$size / 2 ))
		if [ $i = 0 ]; then
			printf '[  100.%s] RIP: 0010:%s+0x%x/0x%x\n[  100.%s] Call Trace:\n' \
				"$1" "$name" "$off" "0x$size" "$1"
		else
			printf '[  100.%s]  %s+0x%x/0x%x\n' "$1" "$name" "$off" "0x$size"
		fi
		i=$((i + 1))
	done <"$tmp/funcs"
	echo "[  100.$1] ---[ end trace 0000000000000000 ]---"
}
report 1 >"$tmp/r25.log"
for n in $(seq 1 400); do report "$n"; done >"$tmp/r10k.log"
frames10k=$(grep -c '+0x' "$tmp/r10k.log")

# the same addresses for eu-addr2line: pc for the RIP, pc - 1 after
/usr/bin/python3 -c '
import sys
for i, l in enumerate(open(sys.argv[1])):
    a, size, _ = l.split()
    print(hex(int(a, 16) + int(size, 16) // 2 - (1 if i else 0)))' "$tmp/funcs" >"$tmp/a25"
for n in $(seq 1 400); do cat "$tmp/a25"; done >"$tmp/a10k"

drop_cache() {	# evict this one file's pages
	/usr/bin/python3 -c 'import os,sys
fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$vmlinux"
}

# median of RUNS wall times of a command, in seconds
median() {
	local label=$1 cold=$2 t0 t1
	shift 2
	for _ in $(seq "$RUNS"); do
		[ "$cold" = cold ] && drop_cache
		t0=$EPOCHREALTIME
		"$@" >"$tmp/out" 2>"$tmp/err" || { echo "$label failed:" >&2; cat "$tmp/err" >&2; exit 1; }
		t1=$EPOCHREALTIME
		echo "$t1 - $t0" | bc -l
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] }'
}

s25c=$(median "sonde kptrace (25, cold)" cold "$SONDE" kptrace "$tmp/r25.log" -k "$vmlinux")
grep -c ' at ' "$tmp/out" >"$tmp/n" || true
lines25=$(cat "$tmp/n")
s25w=$(median "sonde kptrace (25, warm)" warm "$SONDE" kptrace "$tmp/r25.log" -k "$vmlinux")
e25c=$(median "eu-addr2line (25, cold)" cold sh -c "eu-addr2line -f -i -e '$vmlinux' \$(cat '$tmp/a25')")
e25w=$(median "eu-addr2line (25, warm)" warm sh -c "eu-addr2line -f -i -e '$vmlinux' \$(cat '$tmp/a25')")
s10k=$(median "sonde kptrace (10k)" warm "$SONDE" kptrace -a "$tmp/r10k.log" -k "$vmlinux")
e10k=$(median "eu-addr2line (10k)" warm sh -c "eu-addr2line -f -i -e '$vmlinux' \$(cat '$tmp/a10k')")

echo "vmlinux: $vmlinux ($(du -m "$vmlinux" | cut -f1) MB), $(nproc) CPUs, medians of $RUNS"
echo "25-frame report ($lines25 frames with file:line):"
printf '  sonde kptrace      cold %6.3f s  warm %6.3f s   (goal cold <= 1 s)\n' "$s25c" "$s25w"
printf '  eu-addr2line -f -i cold %6.3f s  warm %6.3f s   (addresses given, one process)\n' "$e25c" "$e25w"
if [ -x "$decode" ]; then
	d25=$(median "decode_stacktrace.sh (25)" warm sh -c "'$decode' '$vmlinux' < '$tmp/r25.log'")
	printf '  decode_stacktrace.sh    warm %6.3f s   (%.0fx sonde warm)\n' "$d25" \
		"$(echo "$d25 / $s25w" | bc -l)"
else
	echo "  decode_stacktrace.sh: not available (linux-source could not be downloaded)"
fi
echo "file of $frames10k frames (400 reports, -a):"
printf '  sonde kptrace -a        %6.3f s   (goal <= 3 s)\n' "$s10k"
printf '  eu-addr2line -f -i      %6.3f s   (%.2fx sonde)\n' "$e10k" "$(echo "$e10k / $s10k" | bc -l)"
