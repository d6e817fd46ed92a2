// SPDX-License-Identifier: GPL-2.0-only
/* The accuracy fixture of sonde prof's tests: threads that burn CPU in
 * distinct functions in a known ratio, plus a mostly sleeping thread, each
 * measuring its own CLOCK_THREAD_CPUTIME_ID around its work; the process's
 * getrusage at the end. The truth goes to the file named by argv[1] as
 * "function nanoseconds tid thread-name" lines and "rusage nanoseconds";
 * stdout and stderr carry fixed text, which the tests compare with an
 * unprofiled run.
 *
 *   accuracy OUT [A_MS [B_MS [C_MS [BURST_MS [SLEEP_MS]]]]]
 *
 * A_MS, B_MS, C_MS: CPU milliseconds of each thread (2100 700 90); the
 * sleepy one runs BURST_MS (2) then sleeps SLEEP_MS (20), repeatedly. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/syscall.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static uint64_t cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

/* Burn until this thread has used ns more CPU time. */
static __attribute__((noinline)) void spin(uint64_t ns)
{
	uint64_t end = cpu_now() + ns, x = sink;

	while (cpu_now() < end)
		for (int i = 0; i < 2000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

__attribute__((noinline)) void work_a(uint64_t ns) { spin(ns); sink++; }
__attribute__((noinline)) void work_b(uint64_t ns) { spin(ns); sink++; }

static uint64_t burst_ns = 2000000, sleep_ns = 20000000;

/* Mostly asleep: a burst of CPU, then a nap, until ns of CPU. */
__attribute__((noinline)) void work_c(uint64_t ns)
{
	uint64_t start = cpu_now();
	struct timespec nap = { (time_t)(sleep_ns / 1000000000ull),
				(long)(sleep_ns % 1000000000ull) };

	while (cpu_now() - start < ns) {
		spin(burst_ns);
		nanosleep(&nap, NULL);
	}
	sink++;
}

struct job {
	const char *name, *thread;
	void (*fn)(uint64_t);
	uint64_t ns, used;
	long tid;
};

static void *run(void *p)
{
	struct job *j = p;
	uint64_t t0;

	j->tid = syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), j->thread);
	t0 = cpu_now();

	j->fn(j->ns);
	j->used = cpu_now() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	struct job jobs[3] = {
		{ "work_a", "acc-a", work_a, 2100, 0, 0 },
		{ "work_b", "acc-b", work_b, 700, 0, 0 },
		{ "work_c", "acc-sleepy", work_c, 90, 0, 0 },
	};
	pthread_t t[3];
	struct rusage ru;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: accuracy OUT [A_MS [B_MS [C_MS [BURST_MS "
			"[SLEEP_MS]]]]]\n");
		return 2;
	}
	for (int i = 0; i < 3; i++) {
		if (argc > 2 + i)
			jobs[i].ns = strtoull(argv[2 + i], NULL, 10);
		jobs[i].ns *= 1000000ull;
	}
	if (argc > 5)
		burst_ns = strtoull(argv[5], NULL, 10) * 1000000ull;
	if (argc > 6)
		sleep_ns = strtoull(argv[6], NULL, 10) * 1000000ull;
	printf("accuracy: starting\n");
	fflush(stdout);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, run, &jobs[i]);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	getrusage(RUSAGE_SELF, &ru);
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	for (int i = 0; i < 3; i++)
		fprintf(f, "%s %llu %ld %s\n", jobs[i].name,
			(unsigned long long)jobs[i].used, jobs[i].tid,
			jobs[i].thread);
	fprintf(f, "rusage %llu\n",
		(unsigned long long)((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
				     1000000000ull +
				     (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
				     1000ull));
	fclose(f);
	printf("accuracy: done\n");
	fprintf(stderr, "accuracy: stderr line\n");
	return 3;
}
