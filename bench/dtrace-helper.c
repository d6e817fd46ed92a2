// SPDX-License-Identifier: GPL-2.0-only
/* dtrace-helper — the measuring half of bench/dtrace.sh (built by it):
 *
 *   dtrace-helper run N CMD...     run CMD N times: median wall ms, and the
 *                                  largest RSS (KiB) of any run
 *   dtrace-helper loop N           N getppid() calls: ns per call
 *   dtrace-helper readloop N       N read()s of 1 to 4096 bytes (sizes
 *                                  cycling over the powers of two) from
 *                                  /dev/zero: ns per call
 *   dtrace-helper hotloop N MS     sleep MS (a tracer attaches with -p),
 *                                  then N calls of bench_hot(): ns per call
 *   dtrace-helper first CMD...     start a process calling getppid()
 *                                  every 20 us, then CMD with @PID@ replaced by its
 *                                  pid; CMD prints the CLOCK_MONOTONIC ns of
 *                                  the first firing; prints the ms from
 *                                  CMD's exec to that firing
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The hot user function of the pid-probe benchmark. */
__attribute__((noinline, used)) long bench_hot(long x);
__attribute__((noinline, used)) long bench_hot(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double run_once(char **argv, long *rss)
{
	double t0 = now_ms();
	struct rusage ru;
	int st;
	pid_t p = fork();

	if (!p) {
		int null = open("/dev/null", 1);

		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	wait4(p, &st, 0, &ru);
	if (ru.ru_maxrss > *rss)
		*rss = ru.ru_maxrss;
	return now_ms() - t0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "run")) {
		int n = atoi(argv[2]);
		double *t = calloc(n, sizeof(*t));
		long rss = 0;

		run_once(argv + 3, &rss);	/* warm-up */
		rss = 0;
		for (int i = 0; i < n; i++)
			t[i] = run_once(argv + 3, &rss);
		qsort(t, n, sizeof(*t), cmp);
		printf("%.1f %ld\n", t[n / 2], rss);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "loop")) {
		long n = atol(argv[2]);
		double t0 = now_ms();

		for (long i = 0; i < n; i++)
			getppid();
		printf("%.1f\n", (now_ms() - t0) * 1e6 / n);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "hotloop")) {
		long n = atol(argv[2]), ms = atol(argv[3]);
		volatile long sink = 0;
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };
		double t0;

		nanosleep(&ts, NULL);
		t0 = now_ms();
		for (long i = 0; i < n; i++)
			sink += bench_hot(i);
		printf("%.1f\n", (now_ms() - t0) * 1e6 / n);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "readloop")) {
		long n = atol(argv[2]);
		static char buf[4096];
		int fd = open("/dev/zero", O_RDONLY);
		double t0 = now_ms();

		if (fd < 0)
			return 1;
		for (long i = 0; i < n; i++)
			if (read(fd, buf, (size_t)1 << (i % 13)) < 0)
				return 1;
		printf("%.1f\n", (now_ms() - t0) * 1e6 / n);
		close(fd);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "first")) {
		char pid[16], **cmd = argv + 2, line[64];
		int fd[2];
		pid_t loop = fork(), tracer;
		struct timespec ts;

		if (!loop) {
			/* a call every 20 us, leaving the CPUs to the tracer */
			struct timespec d = { 0, 20000 };

			for (;;) {
				getppid();
				nanosleep(&d, NULL);
			}
		}
		snprintf(pid, sizeof(pid), "%d", loop);
		for (int i = 0; cmd[i]; i++) {
			char *at = strstr(cmd[i], "@PID@");

			if (at) {
				char *s = malloc(strlen(cmd[i]) + 16);

				sprintf(s, "%.*s%s%s", (int)(at - cmd[i]),
					cmd[i], pid, at + 5);
				cmd[i] = s;
			}
		}
		if (pipe(fd))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		tracer = fork();
		if (!tracer) {
			int null = open("/dev/null", 1);

			dup2(fd[1], 1);
			dup2(null, 2);
			execvp(cmd[0], cmd);
			_exit(127);
		}
		close(fd[1]);
		FILE *f = fdopen(fd[0], "r");
		long long first = 0;

		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%lld", &first) == 1 && first > 0)
				break;
		kill(loop, SIGKILL);
		waitpid(loop, NULL, 0);
		kill(tracer, SIGINT);
		waitpid(tracer, NULL, 0);
		if (!first)
			return 1;
		printf("%.1f\n", (first - (ts.tv_sec * 1000000000ll +
					   ts.tv_nsec)) / 1e6);
		return 0;
	}
	fprintf(stderr, "usage: dtrace-helper run N CMD... | loop N | "
		"hotloop N MS | "
		"first CMD...\n");
	return 2;
}
