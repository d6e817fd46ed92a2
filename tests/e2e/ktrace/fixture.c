// SPDX-License-Identifier: GPL-2.0-only
/* fixture — a program with known behaviour for sonde ktrace's end-to-end
 * tests (tests/e2e/test_ktrace.py), built by meson as ktrace-fixture.
 *
 *   ktrace-fixture FILE   opens FILE and reads it, fails to open
 *                         /nonexistent/sonde-fixture, writes "fixture
 *                         says hi\n" to stdout, raises and catches
 *                         SIGUSR1, sleeps 10 ms, forks a child that execs /bin/true,
 *                         waits for it and exits with status 7.
 *   ktrace-fixture --loop FILE
 *                         opens and reads FILE every 20 ms until killed
 *                         (for attaching with -p).
 *   ktrace-fixture --rename NAME
 *                         renames itself with prctl(PR_SET_NAME), calls
 *                         getppid and exits 0.
 *   ktrace-fixture --rename-proc NAME
 *                         the same through /proc/thread-self/comm (one
 *                         write).
 *   ktrace-fixture --threads N ITERS
 *                         N threads (at most 16), each ITERS times: lseek
 *                         of its own memfd to the iteration number,
 *                         getppid, sched_yield; every 50th iteration it
 *                         sends SIGUSR1 (handled) to the next thread with
 *                         tgkill. Exits 0 when all are done.
 *   ktrace-fixture --renamed-by-other NAME
 *                         a thread pinned to one CPU calls getppid over and
 *                         over while the main thread, on another CPU, writes
 *                         NAME to its /proc comm file; it then makes 1000
 *                         more calls and both end (exit 0). */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t caught;
static volatile int renamed, spinner_tid;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *spinner(void *arg)
{
	(void)arg;
	pin(1);
	spinner_tid = gettid();
	while (!renamed)
		getppid();
	for (int i = 0; i < 1000; i++)
		getppid();
	return NULL;
}

/* Rename the spinner thread from here, while it runs. */
static int rename_other(const char *name)
{
	pthread_t th;
	char path[64];
	int fd;

	pin(0);
	if (pthread_create(&th, NULL, spinner, NULL))
		return 1;
	while (!spinner_tid)
		;
	usleep(50000);
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", spinner_tid);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, name, strlen(name)) < 0)
		return 1;
	close(fd);
	renamed = 1;
	pthread_join(th, NULL);
	return 0;
}

/* --threads */
#define MAX_THREADS 16
static int nthreads, iters;
static volatile int tids[MAX_THREADS], started;

static void on_any_usr1(int sig)
{
	(void)sig;
}

static void *worker(void *arg)
{
	int me = (int)(long)arg, fd = memfd_create("fixture", 0);

	tids[me] = gettid();
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < nthreads)
		;
	for (int i = 0; i < iters; i++) {
		if (lseek(fd, i, SEEK_SET) != i)
			_exit(1);
		getppid();
		sched_yield();
		if (i % 50 == 49)
			syscall(SYS_tgkill, getpid(),
				tids[(me + 1) % nthreads], SIGUSR1);
	}
	return NULL;
}

static int threads(int n, int k)
{
	pthread_t th[MAX_THREADS];
	struct sigaction sa;

	if (n < 1 || n > MAX_THREADS || k < 1)
		return 2;
	nthreads = n;
	iters = k;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_any_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	for (long i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}

static void on_usr1(int sig)
{
	caught = sig;
}

static void read_file(const char *path)
{
	char buf[256];
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) < 0)
			perror("read");
		close(fd);
	}
}

int main(int argc, char **argv)
{
	static const char msg[] = "fixture says hi\n";
	struct sigaction sa;
	pid_t pid;
	int status;

	if (argc == 3 && !strcmp(argv[1], "--loop")) {
		for (;;) {
			read_file(argv[2]);
			usleep(20000);
		}
	}
	if (argc == 3 && !strcmp(argv[1], "--rename")) {
		if (prctl(PR_SET_NAME, argv[2], 0, 0, 0))
			return 1;
		getppid();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--rename-proc")) {
		int fd = open("/proc/thread-self/comm", O_WRONLY);

		if (fd < 0 || write(fd, argv[2], strlen(argv[2])) < 0)
			return 1;
		close(fd);
		getppid();
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "--threads"))
		return threads(atoi(argv[2]), atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "--renamed-by-other"))
		return rename_other(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: ktrace-fixture FILE | --loop FILE | "
			"--rename[-proc] NAME | --renamed-by-other NAME\n");
		return 2;
	}
	read_file(argv[1]);
	if (open("/nonexistent/sonde-fixture", O_RDONLY) >= 0)
		return 1;
	if (write(1, msg, sizeof(msg) - 1) != sizeof(msg) - 1)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	if (caught != SIGUSR1)
		return 1;
	usleep(10000);		/* off CPU, voluntarily */
	pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", "fixture-arg", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
		return 1;
	return 7;
}
