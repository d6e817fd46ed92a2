#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/kptrace.sh — sonde kptrace against eu-addr2line (one process for
# all addresses) and against the kernel's scripts/decode_stacktrace.sh (one
# addr2line per frame), on Debian's 6.1 cloud vmlinux with DWARF, in one run.
# Then the macOS half: bench/kptrace_macos.py (a KDK with a 60 MB dSYM).
#
#   1. a 25-frame report, cold: the vmlinux's pages dropped from the page
#      cache first (posix_fadvise DONTNEED on that one file, so other work
#      on the machine keeps its cache), then warm; goal <= 1 s cold.
#   2. a file of 10,000 frames (400 reports of 25, -a), once with 2,000
#      distinct addresses (crash logs repeat frames), once with 10,000;
#      goal <= 3 s.
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
step = max(1, len(rows) // 10000)
for r in rows[::step][:10000]:
    print(r[0], r[1], r[3])' >"$tmp/pool"
[ "$(wc -l <"$tmp/pool")" = 10000 ] || { echo "bench/kptrace.sh: too few symbols" >&2; exit 1; }

# report N FIRST DISTINCT: report N of 25 frames, pool entries FIRST.. (mod
# DISTINCT), as "func+off/size" (RIP first); addrs: the same for
# eu-addr2line, the pc for the RIP and pc - 1 after it.
gen() {
	/usr/bin/python3 - "$tmp/pool" "$1" "$2" "$rel" "$tmp/$3.log" "$tmp/$3.addrs" <<'PY'
import sys
pool = [l.split() for l in open(sys.argv[1])]
reports, distinct, rel = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
log, addrs = open(sys.argv[5], "w"), open(sys.argv[6], "w")
for n in range(reports):
    log.write(f"[  100.{n}] BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
              f"[  100.{n}] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
              f"[  100.{n}] CPU: 0 PID: 1 Comm: sh Not tainted {rel} #1 Debian\n")
    for j in range(25):
        a, size, name = pool[(n * 25 + j) % distinct]
        size = int(size, 16)
        off = size // 2
        if j == 0:
            log.write(f"[  100.{n}] RIP: 0010:{name}+{off:#x}/{size:#x}\n[  100.{n}] Call Trace:\n")
        else:
            log.write(f"[  100.{n}]  {name}+{off:#x}/{size:#x}\n")
        addrs.write(hex(int(a, 16) + off - (1 if j else 0)) + "\n")
    log.write(f"[  100.{n}] ---[ end trace 0000000000000000 ]---\n")
PY
}
gen 1 25 r25
gen 400 2000 mixed
gen 400 10000 distinct

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
s25w=$(median "sonde kptrace (25, warm)" warm "$SONDE" kptrace "$tmp/r25.log" -k "$vmlinux")
eu="eu-addr2line -f -i -e '$vmlinux'"
e25c=$(median "eu-addr2line (25, cold)" cold sh -c "$eu \$(cat '$tmp/r25.addrs')")
e25w=$(median "eu-addr2line (25, warm)" warm sh -c "$eu \$(cat '$tmp/r25.addrs')")
RUNS=1
smix=$(median "sonde kptrace (10k, 2000 distinct)" warm "$SONDE" kptrace -a "$tmp/mixed.log" -k "$vmlinux")
emix=$(median "eu-addr2line (10k, 2000 distinct)" warm sh -c "$eu \$(cat '$tmp/mixed.addrs')")
sdis=$(median "sonde kptrace (10k distinct)" warm "$SONDE" kptrace -a "$tmp/distinct.log" -k "$vmlinux")
edis=$(median "eu-addr2line (10k distinct)" warm sh -c "$eu \$(cat '$tmp/distinct.addrs')")

echo "vmlinux: $vmlinux ($(du -m "$vmlinux" | cut -f1) MB), $(nproc) CPUs"
echo "25-frame report (medians of ${RUNS_25:-3}):"
printf '  sonde kptrace           cold %6.3f s  warm %6.3f s   (goal cold <= 1 s)\n' "$s25c" "$s25w"
printf '  eu-addr2line -f -i      cold %6.3f s  warm %6.3f s   (addresses given, one process)\n' "$e25c" "$e25w"
if [ -x "$decode" ]; then
	d25=$(median "decode_stacktrace.sh (25)" warm sh -c "'$decode' '$vmlinux' < '$tmp/r25.log'")
	printf '  decode_stacktrace.sh         warm %6.3f s   (%.0fx sonde warm)\n' "$d25" \
		"$(echo "$d25 / $s25w" | bc -l)"
else
	echo "  decode_stacktrace.sh: not available (linux-source could not be downloaded)"
fi
echo "a file of 10,000 frames (400 reports of 25, -a; one run each):"
printf '  2,000 distinct addresses:  sonde %6.3f s   eu-addr2line %6.3f s (%.1fx sonde)   (goal <= 3 s)\n' \
	"$smix" "$emix" "$(echo "$emix / $smix" | bc -l)"
printf '  10,000 distinct addresses: sonde %6.3f s   eu-addr2line %6.3f s (%.1fx sonde)\n' \
	"$sdis" "$edis" "$(echo "$edis / $sdis" | bc -l)"

# macOS: a 40-frame panic against a generated KDK with a 60 MB dSYM,
# against llvm-symbolizer given the same addresses (issue 15).
SONDE=$SONDE /usr/bin/python3 "$here/bench/kptrace_macos.py"
