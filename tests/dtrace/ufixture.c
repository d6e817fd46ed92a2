// SPDX-License-Identifier: GPL-2.0-only
/* A target for the pid and usdt providers: functions with known
 * arguments, called a known number of times.
 *   ufixture calls N      N rounds of: uf_add(i, 2 * i) (returns 3i),
 *                         uf_eight(1..8) (returns 36), uf_leaf(i) through
 *                         uf_outer(i) -> uf_middle -> uf_leaf
 *   ufixture spin N       N calls of uf_hot(i) (for the benchmark)
 *   ufixture addrs N      N rounds of uf_addr(&uf_leaf),
 *                         uf_addr(&uf_middle + 3), then sleep 1 s
 *   ufixture threads N    "calls N" in each of two threads, one after the
 *                         other
 *   ufixture wait MS N [MS2]  sleep MS, then run "calls N" (for -p),
 *                         then sleep MS2
 *   ufixture proc         a life of known events for the proc provider:
 *                         a thread; a child that exits 7; a child killed
 *                         by SIGTERM; a child whose execve of /nonexistent
 *                         fails before /bin/true runs; SIGUSR1 handled;
 *                         SIGUSR2 taken by sigtimedwait
 *   ufixture usdt N       N rounds of USDT probes (with <sys/sdt.h>):
 *                         ufix:round(i, -i, (short)(i * 3), (char)i)
 *                         always; ufix:guarded__round(i) only while its
 *                         semaphore says a tracer enabled it; prints how
 *                         many guarded rounds ran */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if __has_include(<sys/sdt.h>)
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#define HAVE_SDT 1
/* The probes' semaphores: the kernel counts tracers in them. */
unsigned short ufix_round_semaphore __attribute__((section(".probes"), used));
unsigned short ufix_guarded__round_semaphore
	__attribute__((section(".probes"), used));
#endif

#define NOINLINE __attribute__((noinline, noclone, used))

volatile long uf_sink;

static void calls(long n);

static void *thread(void *arg)
{
	calls((long)arg);
	return NULL;
}

NOINLINE long uf_add(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

NOINLINE long uf_eight(long a, long b, long c, long d, long e, long f,
		       long g, long h)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c + d + e + f + g + h;
}

NOINLINE long uf_leaf(long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 2;
}

NOINLINE long uf_middle(long x)
{
	long r = uf_leaf(x + 1);

	__asm__ volatile("" ::: "memory");
	return r + 1;
}

NOINLINE long uf_outer(long x)
{
	long r = uf_middle(x + 1);

	__asm__ volatile("" ::: "memory");
	return r + 1;
}

/* For usym() and friends: its argument is an address in the program. */
NOINLINE long uf_addr(long addr)
{
	__asm__ volatile("" ::: "memory");
	return addr & 1;
}

NOINLINE long uf_hot(long x)
{
	__asm__ volatile("" ::: "memory");
	return x ^ 1;
}

static void calls(long n)
{
	for (long i = 1; i <= n; i++) {
		uf_sink += uf_add(i, 2 * i);
		uf_sink += uf_eight(1, 2, 3, 4, 5, 6, 7, 8);
		uf_sink += uf_outer(i);
	}
}

static void on_usr1(int sig)
{
	uf_sink += sig;
}

static int usdt_rounds(long n)
{
#ifdef HAVE_SDT
	long guarded = 0;

	for (long i = 1; i <= n; i++) {
		int neg = (int)-i;
		short s = (short)(i * 3);
		char c = (char)i;

		STAP_PROBE4(ufix, round, i, neg, s, c);
		if (ufix_guarded__round_semaphore) {
			STAP_PROBE1(ufix, guarded__round, i);
			guarded++;
		}
	}
	printf("%ld guarded rounds\n", guarded);
	return 0;
#else
	(void)n;
	fprintf(stderr, "ufixture: built without <sys/sdt.h>\n");
	return 2;
#endif
}

static int proc_events(void)
{
	char *argv[] = { "true", NULL }, *envp[] = { NULL };
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t t;
	sigset_t set;
	pid_t c;
	int st, sig;

	pthread_create(&t, NULL, thread, (void *)1L);
	pthread_join(t, NULL);
	c = fork();
	if (!c)
		_exit(7);
	waitpid(c, &st, 0);
	c = fork();
	if (!c) {
		for (;;)
			pause();
	}
	kill(c, SIGTERM);
	waitpid(c, &st, 0);
	c = fork();
	if (!c) {
		execve("/nonexistent", argv, envp);
		execve("/bin/true", argv, envp);
		_exit(127);
	}
	waitpid(c, &st, 0);
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR2);
	if (sigwait(&set, &sig) || sig != SIGUSR2)
		return 1;
	return 0;
}


int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "calls")) {
		calls(atol(argv[2]));
	} else if (argc >= 3 && !strcmp(argv[1], "threads")) {
		pthread_t t;

		for (int i = 0; i < 2; i++) {
			pthread_create(&t, NULL, thread, (void *)atol(argv[2]));
			pthread_join(t, NULL);
		}
	} else if (argc >= 3 && !strcmp(argv[1], "usdt")) {
		return usdt_rounds(atol(argv[2]));
	} else if (argc >= 2 && !strcmp(argv[1], "proc")) {
		return proc_events();
	} else if (argc >= 3 && !strcmp(argv[1], "spin")) {
		long n = atol(argv[2]);

		for (long i = 0; i < n; i++)
			uf_sink += uf_hot(i);
	} else if (argc >= 3 && !strcmp(argv[1], "addrs")) {
		/* uf_addr(&uf_leaf), then uf_addr(&uf_middle + 3), N
		 * times, then sleep 1 s (still alive when printed) */
		struct timespec ts = { 1, 0 };

		for (long i = 0; i < atol(argv[2]); i++) {
			uf_sink += uf_addr((long)&uf_leaf);
			uf_sink += uf_addr((long)&uf_middle + 3);
		}
		nanosleep(&ts, NULL);
	} else if (argc >= 4 && !strcmp(argv[1], "wait")) {
		struct timespec ts = { atol(argv[2]) / 1000,
				       atol(argv[2]) % 1000 * 1000000 };

		nanosleep(&ts, NULL);
		calls(atol(argv[3]));
		if (argc >= 5) {
			ts.tv_sec = atol(argv[4]) / 1000;
			ts.tv_nsec = atol(argv[4]) % 1000 * 1000000;
			nanosleep(&ts, NULL);
		}
	} else {
		fprintf(stderr, "usage: ufixture calls N | threads N | spin N | proc | usdt N | "
			"wait MS N\n");
		return 2;
	}
	return 0;
}
