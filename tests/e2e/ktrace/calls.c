// SPDX-License-Identifier: GPL-2.0-only
/* calls — a program making known system calls for sonde kdump's
 * end-to-end tests (tests/e2e/test_kdump.py), built by meson as
 * kdump-calls; each test traces it with sonde ktrace and with strace and
 * compares what the two decode.
 *
 *   kdump-calls fds      opens, dups, closes and reopens fds (files,
 *                        an eventfd, an epoll fd, a directory fd with
 *                        openat), reading one byte through each, so that
 *                        every fd argument has something to be named by.
 *   kdump-calls getppid N ITERS
 *                        N threads (at most 16) calling getppid ITERS
 *                        times each, all at once. */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

static char buf[16];

static void rd(int fd)
{
	if (read(fd, buf, 1) < 0)
		perror("read");
}

static int fds(void)
{
	int a = open("/etc/hostname", O_RDONLY);
	int b = dup(a);
	int c, d, e, ev, ep;

	rd(b);
	close(a);
	c = open("/etc/passwd", O_RDONLY | O_CLOEXEC);	/* a's number again */
	rd(c);
	rd(b);
	dup2(c, 10);
	rd(10);
	d = fcntl(b, F_DUPFD_CLOEXEC, 20);
	rd(d);
	close(b);
	e = open("/etc", O_RDONLY | O_DIRECTORY);
	b = openat(e, "hostname", O_RDONLY);
	rd(b);
	ev = eventfd(0, EFD_CLOEXEC);
	ep = epoll_create1(EPOLL_CLOEXEC);
	lseek(ev, 0, SEEK_CUR);
	lseek(ep, 0, SEEK_CUR);
	close(ev);
	close(ep);
	close(10);
	rd(d);
	close(d);
	close(c);
	close(b);
	close(e);
	return 0;
}

static int iters;
static volatile int started, nthreads;

static void *spin(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < nthreads)
		;
	for (int i = 0; i < iters; i++)
		getppid();
	return NULL;
}

static int getppids(int n, int k)
{
	pthread_t th[16];

	if (n < 1 || n > 16 || k < 1)
		return 2;
	nthreads = n;
	iters = k;
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, spin, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "getppid"))
		return getppids(atoi(argv[2]), atoi(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "fds"))
		return fds();
	fprintf(stderr, "usage: kdump-calls fds | getppid N ITERS\n");
	return 2;
}
