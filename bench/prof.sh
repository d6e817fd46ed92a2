#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/prof.sh — sonde prof against gperftools (libprofiler, CPUPROFILE,
# setitimer ITIMER_PROF), both measured here in the same run.
#
# 1. Accuracy: the accuracy fixture (two threads burning 3:1 by their own
#    CPU clocks, and a mostly sleeping one) under each profiler, RUNS runs
#    per rate: the spread of the profile's A:B ratio against the true 3.00,
#    and of the total sampled CPU against getrusage.
# 2. Overhead: a CPU-bound program (a fixed amount of work, one thread)
#    unprofiled and under each profiler: median user+sys CPU time.
#
# Both profiles are read with go tool pprof (golang-go). Figures are noisy
# on a shared machine: read the spread, not one run.
set -eu

SONDE=${SONDE:-build/sonde}
RUNS=${RUNS:-10}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LIBPROFILER=${LIBPROFILER:-/usr/lib/x86_64-linux-gnu/libprofiler.so}

for need in gcc go python3; do
	command -v "$need" >/dev/null || { echo "bench/prof.sh: needs $need (scripts/deps.sh)" >&2; exit 1; }
done
[ -e "$LIBPROFILER" ] || { echo "bench/prof.sh: no $LIBPROFILER (libgoogle-perftools-dev)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gcc -O2 -g -pthread -o "$tmp/acc" "$ROOT/tests/e2e/prof/accuracy.c"
cat > "$tmp/busy.c" <<'EOF'
/* A fixed amount of CPU work in a few functions, one thread; its own
 * CPU time at the end of main (before any exit work) goes to argv[1]. */
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
static volatile uint64_t sink;
__attribute__((noinline)) static uint64_t mix(uint64_t x, int n)
{
	for (int i = 0; i < n; i++)
		x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + 1;
	return x;
}
__attribute__((noinline)) static uint64_t outer(uint64_t x)
{
	for (int i = 0; i < 100; i++)
		x = mix(x, 1000 + i);
	return x;
}
int main(int argc, char **argv)
{
	uint64_t x = 1;
	struct rusage ru;
	FILE *f;

	for (int i = 0; i < 12000; i++)
		x = outer(x);
	sink = x;
	getrusage(RUSAGE_SELF, &ru);
	if (argc > 1 && (f = fopen(argv[1], "a"))) {
		fprintf(f, "%.4f\n", ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
		fclose(f);
	}
	return 0;
}
EOF
gcc -O2 -g -o "$tmp/busy" "$tmp/busy.c"

# One accuracy run: prints "ratio total_over_rusage".
acc_sonde() {
	"$SONDE" prof -F "$1" -o "$tmp/s.pb.gz" -- "$tmp/acc" "$tmp/t" >/dev/null 2>&1 || true
	go tool pprof -top -nodecount=1000 -unit=ms "$tmp/s.pb.gz" > "$tmp/top" 2>/dev/null
	python3 "$tmp/parse.py" "$tmp/top" "$tmp/t"
}

acc_gperf() {
	CPUPROFILE="$tmp/g.prof" CPUPROFILE_FREQUENCY="$1" LD_PRELOAD="$LIBPROFILER" \
		"$tmp/acc" "$tmp/t" >/dev/null 2>&1 || true
	go tool pprof -top -nodecount=1000 -unit=ms "$tmp/acc" "$tmp/g.prof" > "$tmp/top" 2>/dev/null
	python3 "$tmp/parse.py" "$tmp/top" "$tmp/t"
}

cat > "$tmp/parse.py" <<'EOF'
import re, sys
cum, total = {}, None
for line in open(sys.argv[1]):
    m = re.search(r"% of ([\d.]+)(ms|s) total", line)
    if m:
        total = float(m.group(1)) * (1000 if m.group(2) == "s" else 1)
    m = re.match(r"\s*\S+\s+\S+%\s+\S+%\s+([\d.]+)(ms|s)?\s+\S+%\s+(\S+)", line)
    if m:
        cum[m.group(3)] = float(m.group(1)) * (1000 if m.group(2) == "s" else 1)
truth = {}
for line in open(sys.argv[2]):
    f = line.split()
    truth[f[0]] = int(f[1]) / 1e6
a, b = cum.get("work_a", 0), cum.get("work_b", 0)
print("%.3f %.4f %.3f" % (a / b if b else float("inf"), (total or 0) / truth["rusage"],
                          truth["work_a"] / truth["work_b"]))
EOF

cat > "$tmp/stats.py" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
r = [x[0] for x in rows]; t = [x[1] for x in rows]; truth = [x[2] for x in rows]
print("  %-26s A:B %.2f / %.2f / %.2f (truth %.2f)   sampled/rusage %3.0f%% / %3.0f%% / %3.0f%%" % (
    sys.argv[2], min(r), statistics.median(r), max(r), statistics.median(truth),
    100 * min(t), 100 * statistics.median(t), 100 * max(t)))
EOF

echo "accuracy: $RUNS runs each, A:B min / median / max, sampled CPU / getrusage min / median / max"
for hz in 100 1000; do
	: > "$tmp/sonde.$hz"; : > "$tmp/gperf.$hz"
	i=0
	while [ $i -lt "$RUNS" ]; do
		acc_sonde $hz >> "$tmp/sonde.$hz"
		acc_gperf $hz >> "$tmp/gperf.$hz"
		i=$((i + 1))
	done
	python3 "$tmp/stats.py" "$tmp/sonde.$hz" "sonde prof at $hz Hz"
	python3 "$tmp/stats.py" "$tmp/gperf.$hz" "gperftools at $hz Hz"
done

# Overhead: user+sys CPU of the busy program, interleaved runs.
cpu_of() {
	python3 - "$@" <<'EOF'
import os, resource, subprocess, sys
env = dict(os.environ)
args = sys.argv[1:]
while args and "=" in args[0]:
    k, v = args.pop(0).split("=", 1)
    env[k] = v
subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f" % (r.ru_utime + r.ru_stime))
EOF
}

echo "overhead: CPU time of a CPU-bound program, median of $RUNS interleaved runs"
echo "  (in the run: the program's own getrusage at the end of main; with exit:"
echo "  the whole process, which for sonde includes symbolizing and writing)"
for v in base s100 s1000 g100 g1000; do : > "$tmp/o.$v"; : > "$tmp/i.$v"; done
i=0
while [ $i -lt "$RUNS" ]; do
	cpu_of "$tmp/busy" "$tmp/i.base" >> "$tmp/o.base"
	cpu_of "$SONDE" prof -F 100 -o "$tmp/o.pb.gz" -- "$tmp/busy" "$tmp/i.s100" >> "$tmp/o.s100"
	cpu_of "$SONDE" prof -F 1000 -o "$tmp/o.pb.gz" -- "$tmp/busy" "$tmp/i.s1000" >> "$tmp/o.s1000"
	cpu_of CPUPROFILE="$tmp/o.prof" CPUPROFILE_FREQUENCY=100 LD_PRELOAD="$LIBPROFILER" "$tmp/busy" "$tmp/i.g100" >> "$tmp/o.g100"
	cpu_of CPUPROFILE="$tmp/o.prof" CPUPROFILE_FREQUENCY=1000 LD_PRELOAD="$LIBPROFILER" "$tmp/busy" "$tmp/i.g1000" >> "$tmp/o.g1000"
	i=$((i + 1))
done
python3 - "$tmp" <<'EOF'
import statistics, sys
d = sys.argv[1]
def med(kind, v):
    return statistics.median(float(l) for l in open(f"{d}/{kind}.{v}"))
print("  %-24s %12s %9s %14s %9s" % ("", "in the run", "", "with exit", ""))
for v, name in (("base", "unprofiled"), ("s100", "sonde prof at 100 Hz"),
                ("s1000", "sonde prof at 1000 Hz"), ("g100", "gperftools at 100 Hz"),
                ("g1000", "gperftools at 1000 Hz")):
    i, o = med("i", v), med("o", v)
    print("  %-24s %10.3f s %+7.1f %% %12.3f s %+7.1f %%" % (
        name, i, 100 * (i / med("i", "base") - 1), o, 100 * (o / med("o", "base") - 1)))
EOF
