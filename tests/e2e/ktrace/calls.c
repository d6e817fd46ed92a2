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
 *   kdump-calls decode DIR
 *                        makes one call of each kind whose arguments kdump
 *                        decodes by name (sockets and their options, ioctl
 *                        requests, fcntl commands and results, futex,
 *                        clocks, epoll, the flags of the fd-making calls,
 *                        statx, madvise, prctl, rlimits, wait options...),
 *                        with files in DIR; each call once, in this order.
 *   kdump-calls getppid N ITERS
 *                        N threads (at most 16) calling getppid ITERS
 *                        times each, all at once. */
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
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

static void path(char *out, size_t n, const char *dir, const char *name)
{
	snprintf(out, n, "%s/%s", dir, name);
}

/* Every call's result is ignored: failures (ENOTTY, EAGAIN, EEXIST) are
 * as good to decode as successes. */
static int decode(const char *dir)
{
	char a[4096], b[4096];
	int sv[2], p[2], one = 1, tos = 0x10, n = 0, f, s, l, ep, in, tf, fl;
	uint32_t word = 0;
	unsigned char rnd[4];
	uint64_t size;
	struct timespec ts;
	struct itimerspec its = { { 0, 0 }, { 1, 0 } };
	struct epoll_event ee = { .events = EPOLLIN };
	struct statx stx;
	struct rlimit rl;
	sigset_t mask;
	struct sigaction sa;
	void *m;
	int st;

	path(a, sizeof(a), dir, "file");
	path(b, sizeof(b), dir, "other");
	f = open(a, O_RDWR | O_CREAT | O_TRUNC, 0644);
	close(open(b, O_WRONLY | O_CREAT, 0600));
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(s, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	l = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	close(l);
	l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	listen(l, 1);
	accept4(l, NULL, NULL, SOCK_CLOEXEC);
	socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
	sendto(sv[0], "x", 1, MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0);
	recvfrom(sv[1], a, 1, MSG_PEEK | MSG_DONTWAIT, NULL, NULL);
	shutdown(sv[0], SHUT_WR);
	ioctl(f, TCGETS, a);
	ioctl(sv[1], FIONREAD, &n);
	ioctl(sv[1], FIONBIO, &one);
	ioctl(f, BLKGETSIZE64, &size);
	ioctl(f, FS_IOC_GETFLAGS, &fl);
	fcntl(f, F_SETFL, O_NONBLOCK | O_APPEND);
	fcntl(f, F_GETFL);
	fcntl(f, F_SETFD, FD_CLOEXEC);
	fcntl(f, F_GETFD);
	syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	ts.tv_sec = 0;
	ts.tv_nsec = 0;
	syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE |
		FUTEX_CLOCK_REALTIME, 1, &ts, NULL, FUTEX_BITSET_MATCH_ANY);
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	syscall(SYS_clock_getres, CLOCK_BOOTTIME, &ts);
	ts.tv_sec = 0;
	ts.tv_nsec = 1000;
	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
	ep = epoll_create1(EPOLL_CLOEXEC);
	epoll_ctl(ep, EPOLL_CTL_ADD, sv[1], &ee);
	epoll_ctl(ep, EPOLL_CTL_DEL, sv[1], &ee);
	dup3(f, 20, O_CLOEXEC);
	pipe2(p, O_CLOEXEC | O_NONBLOCK);
	eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	inotify_add_watch(in, dir, IN_CREATE | IN_DELETE);
	tf = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	timerfd_settime(tf, TFD_TIMER_ABSTIME, &its, NULL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	memfd_create("kdump", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	path(a, sizeof(a), dir, "file");
	syscall(SYS_renameat2, AT_FDCWD, b, AT_FDCWD, a, RENAME_NOREPLACE);
	getrandom(rnd, sizeof(rnd), GRND_NONBLOCK);
	statx(AT_FDCWD, a, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME,
	      &stx);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	madvise(m, 4096, MADV_DONTNEED);
	prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	getrlimit(RLIMIT_NOFILE, &rl);
	syscall(SYS_prlimit64, 0, RLIMIT_CORE, NULL, &rl);
	wait4(-1, NULL, WNOHANG, NULL);
	/* The option bits in strace's order (WSTOPPED, __WALL before
	 * __WNOTHREAD); no child: ECHILD. */
	wait4(-1, &st, WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WALL,
	      NULL);
	/* sa_flags in strace's order: SA_RESTORER (the C library's) first. */
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | SA_NODEFER |
		      SA_RESETHAND | SA_NOCLDSTOP;
	sigaction(SIGUSR2, &sa, NULL);
	flock(f, LOCK_EX | LOCK_NB);
	fstatat(f, "", &(struct stat){ 0 }, AT_EMPTY_PATH);
	fstatat(AT_FDCWD, a, &(struct stat){ 0 }, 0);
	/* What getrandom returned, for the test to compare with the trace. */
	printf("random %02x%02x%02x%02x\n", rnd[0], rnd[1], rnd[2], rnd[3]);
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
	if (argc == 3 && !strcmp(argv[1], "decode"))
		return decode(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "getppid"))
		return getppids(atoi(argv[2]), atoi(argv[3]));
	if (argc == 2 && !strcmp(argv[1], "fds"))
		return fds();
	fprintf(stderr, "usage: kdump-calls fds | decode DIR | getppid N ITERS\n");
	return 2;
}
