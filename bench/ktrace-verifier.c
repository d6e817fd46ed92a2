// SPDX-License-Identifier: GPL-2.0-only
/* ktrace-verifier — what the kernel's verifier does with each of sonde
 * ktrace's BPF programs (record.bpf.c, through its skeleton): the
 * instructions loaded, the instructions it processed, its states, and its
 * own "verification time" (the least of RUNS loads). The processed count
 * does not move with the machine's load; bench/ktrace.sh prints it with
 * VERIFIER=1.
 *
 *   ktrace-verifier [POINTS [RUNS]]    POINTS as record.h's KTR_PT_* bits
 *                                      (default: the default set) */
#include "record.skel.h"

#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_SIZE (1 << 20)
#define PROGS_MAX 32

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* The number after what in the log, or -1. */
static long after(const char *log, const char *what)
{
	const char *p = strstr(log, what);

	return p ? strtol(p + strlen(what), NULL, 10) : -1;
}

int main(int argc, char **argv)
{
	unsigned points = argc > 1 ? strtoul(argv[1], NULL, 0) : 0;
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	static char logs[PROGS_MAX][LOG_SIZE];
	const char *name[PROGS_MAX];
	long insns[PROGS_MAX], processed[PROGS_MAX], states[PROGS_MAX],
	     peak[PROGS_MAX], usec[PROGS_MAX];
	long total = 0, total_us = 0;
	int n = 0;

	libbpf_set_print(quiet);
	for (int r = 0; r < runs; r++) {
		struct record *s = record__open();
		struct bpf_program *p;
		int i = 0;

		if (!s) {
			perror("ktrace-verifier: open");
			return 1;
		}
		if (points)
			s->rodata->points = points;
		/* (x86_64's numbers; other ABIs keep ~0.) */
		s->rodata->nr_execve[0] = 59;
		s->rodata->nr_execveat[0] = 322;
		s->rodata->nr_rt_sigreturn[0] = 15;
		bpf_map__set_max_entries(s->maps.scratch,
					 libbpf_num_possible_cpus());
		bpf_object__for_each_program(p, s->obj) {
			if (i == PROGS_MAX)
				break;
			bpf_program__set_log_buf(p, logs[i++], LOG_SIZE);
			bpf_program__set_log_level(p, 4);	/* statistics */
		}
		if (record__load(s)) {
			fprintf(stderr, "ktrace-verifier: cannot load (as root?)\n");
			return 1;
		}
		i = 0;
		bpf_object__for_each_program(p, s->obj) {
			long us;

			if (i == PROGS_MAX)
				break;
			us = after(logs[i], "verification time ");
			if (r == 0) {
				name[i] = strdup(bpf_program__name(p));
				insns[i] = bpf_program__insn_cnt(p);
				processed[i] = after(logs[i], "processed ");
				states[i] = after(logs[i], "total_states ");
				peak[i] = after(logs[i], "peak_states ");
				usec[i] = us;
			} else if (us >= 0 && us < usec[i]) {
				usec[i] = us;
			}
			i++;
		}
		n = i;
		record__destroy(s);
	}
	printf("%-18s %8s %10s %8s %8s %10s\n", "program", "insns",
	       "processed", "states", "peak", "least us");
	for (int i = 0; i < n; i++) {
		printf("%-18s %8ld %10ld %8ld %8ld %10ld\n", name[i], insns[i],
		       processed[i], states[i], peak[i], usec[i]);
		total += processed[i];
		total_us += usec[i];
	}
	printf("%-18s %8s %10ld %8s %8s %10ld\n", "total", "", total, "", "",
	       total_us);
	return 0;
}
