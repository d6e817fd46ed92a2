// SPDX-License-Identifier: GPL-2.0-only
/* Scenarios for sonde prof's tests, one per argv[1]; each burns CPU in
 * functions named after what it tests and writes its truth (thread CPU
 * times in nanoseconds, "name ns" lines) to the file argv[2].
 *
 *   preexisting OUT LIB  threads start, then LIB is dlopen'ed
 *   short OUT N MS       N short threads, one after the other, MS each
 *   fork OUT             the parent and a forked child burn 300 ms each
 *   exec OUT             burn, exec itself as "exec2", burn again
 *   exec2 OUT
 *   sigprof OUT          burn, install a SIGPROF handler + ITIMER_PROF,
 *                        burn more; reports how many signals it got
 *   inline OUT           time in an inlined function (for file:line)
 *   blocked OUT          a thread that runs with SIGPROF blocked
 *   vfork OUT            vfork + execl /bin/true, 20 times, while burning
 *   itimer OUT           burn, then arm ITIMER_PROF (10 ms of CPU) and burn
 *                        on: SIGPROF's default action kills it (155); exit
 *                        3 if no SIGPROF came in 20 s
 *   segv OUT             burn, then write through a null pointer */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static FILE *out;

static uint64_t cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;
static volatile uintptr_t sink_zero;	/* a null pointer, unknown to -O */

static __attribute__((noinline)) void spin(uint64_t ns)
{
	uint64_t end = cpu_now() + ns, x = sink;

	while (cpu_now() < end)
		for (int i = 0; i < 2000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

#define BURNER(name) \
	__attribute__((noinline)) void name(uint64_t ns) { spin(ns); sink++; }
BURNER(early_thread_work)
BURNER(short_thread_work)
BURNER(parent_work)
BURNER(child_work)
BURNER(pre_exec_work)
BURNER(post_exec_work)
BURNER(before_handler_work)
BURNER(after_handler_work)
BURNER(blocked_work)
BURNER(vfork_parent_work)
BURNER(before_itimer_work)
BURNER(before_crash_work)

static void *blocked_thread(void *p)
{
	(void)p;
	blocked_work(200000000);
	return NULL;
}

static volatile int stop_early;

static void *early(void *p)
{
	uint64_t t0 = cpu_now();

	(void)p;
	while (!stop_early)
		early_thread_work(10000000);
	fprintf(out, "early_thread_work %llu\n",
		(unsigned long long)(cpu_now() - t0));
	return NULL;
}

static void *short_thread(void *p)
{
	short_thread_work(*(uint64_t *)p);
	return NULL;
}

/* An inlined hot loop: the profile must name it, with its line. */
static inline __attribute__((always_inline)) uint64_t inlined_mix(uint64_t x)
{
	for (int i = 0; i < 5000; i++)
		x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ull;	/* INLINE_LINE */
	return x;
}

__attribute__((noinline)) void inline_caller(uint64_t ns)
{
	uint64_t end = cpu_now() + ns, x = 1;

	while (cpu_now() < end)
		x = inlined_mix(x);
	sink = x;
}

static volatile sig_atomic_t own_signals;

static void own_handler(int sig)
{
	(void)sig;
	own_signals++;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (argc < 3) {
		fprintf(stderr, "usage: scenarios MODE OUT ...\n");
		return 2;
	}
	out = fopen(argv[2], !strcmp(mode, "exec2") ? "a" : "w");
	if (!out)
		return 1;
	setvbuf(out, NULL, _IOLBF, 0);
	if (!strcmp(mode, "preexisting") && argc > 3) {
		pthread_t t[2];

		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, early, NULL);
		spin(100000000);	/* let them run before the library */
		if (!dlopen(argv[3], RTLD_NOW)) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		spin(300000000);
		stop_early = 1;
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(mode, "short") && argc > 4) {
		int n = atoi(argv[3]);
		uint64_t ns = strtoull(argv[4], NULL, 10) * 1000000ull;

		for (int i = 0; i < n; i++) {
			pthread_t t;

			pthread_create(&t, NULL, short_thread, &ns);
			pthread_join(t, NULL);
		}
		fprintf(out, "short_thread_work %llu\n",
			(unsigned long long)(n * ns));
	} else if (!strcmp(mode, "itimer")) {
		struct itimerval it = { { 0, 0 }, { 0, 10000 } };

		struct timespec t0, t;

		before_itimer_work(300000000);
		setitimer(ITIMER_PROF, &it, NULL);
		/* SIGPROF comes within 10 ms of CPU; never spin on unbounded
		 * if it does not (a test's failure must not outlive it) */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			spin(100000000);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (t.tv_sec - t0.tv_sec < 20);
		fprintf(stderr, "scenarios: no SIGPROF in 20 s\n");
		return 3;
	} else if (!strcmp(mode, "segv")) {
		before_crash_work(300000000);
		*(volatile int *)(uintptr_t)sink_zero = 1;
	} else if (!strcmp(mode, "fork")) {
		pid_t pid;
		int status;

		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			child_work(300000000);
			fprintf(out, "child %d\n", (int)getpid());
			exit(0);
		}
		parent_work(300000000);
		waitpid(pid, &status, 0);
	} else if (!strcmp(mode, "exec")) {
		pre_exec_work(200000000);
		fflush(NULL);
		execl("/proc/self/exe", argv[0], "exec2", argv[2], (char *)NULL);
		perror("exec");
		return 1;
	} else if (!strcmp(mode, "exec2")) {
		post_exec_work(300000000);
	} else if (!strcmp(mode, "sigprof")) {
		struct itimerval it = { { 0, 10000 }, { 0, 10000 } };

		before_handler_work(300000000);
		signal(SIGPROF, own_handler);
		setitimer(ITIMER_PROF, &it, NULL);
		after_handler_work(300000000);
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_PROF, &it, NULL);
		fprintf(out, "own_signals %d\n", (int)own_signals);
	} else if (!strcmp(mode, "blocked")) {
		sigset_t set;
		pthread_t t;

		sigemptyset(&set);
		sigaddset(&set, SIGPROF);
		pthread_sigmask(SIG_BLOCK, &set, NULL);	/* inherited */
		pthread_create(&t, NULL, blocked_thread, NULL);
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "vfork")) {
		for (int i = 0; i < 20; i++) {
			int status;
			pid_t pid = vfork();

			if (pid == 0) {
				execl("/bin/true", "true", "x", (char *)NULL);
				_exit(127);
			}
			waitpid(pid, &status, 0);
			if (status)
				return 1;
			vfork_parent_work(10000000);
		}
	} else if (!strcmp(mode, "inline")) {
		inline_caller(500000000);
	} else {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	printf("%s: done\n", mode);
	return 0;
}
