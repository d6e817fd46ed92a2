// SPDX-License-Identifier: GPL-2.0-only
/* Calls that read or write structures, for sonde ktrace's STRU tests
 * (strace is the oracle), built at test time:
 *   structs PORT UNIXPATH FILE
 * connects to 127.0.0.1:PORT and to the AF_UNIX socket UNIXPATH (listening
 * on both itself: accept, getsockname), stats FILE, makes a pipe2, reaps a
 * child that exits 3 with wait4, polls the pipe, sets a SIGUSR1 action
 * with a mask, writes with writev, reads a limit, its utsname and a
 * directory's entries, and sleeps a known time. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void on_usr1(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	struct stat st;
	struct pollfd pfd;
	struct sigaction sa;
	struct iovec iov[2] = { { "ab", 2 }, { "cde", 3 } };
	struct rlimit rl;
	struct utsname u;
	struct timespec ts = { 0, 1000000 };
	char buf[4096];
	int l, c, a, p[2], status, d;
	pid_t pid;

	if (argc < 4)
		return 2;
	in.sin_port = htons(atoi(argv[1]));
	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(l, (struct sockaddr *)&in, sizeof(in)) || listen(l, 1))
		return 3;
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&in, sizeof(in)))
		return 4;
	a = accept(l, (struct sockaddr *)&peer, &plen);
	plen = sizeof(peer);
	getsockname(c, (struct sockaddr *)&peer, &plen);
	close(a);
	close(c);
	close(l);
	strncpy(un.sun_path, argv[2], sizeof(un.sun_path) - 1);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(l, (struct sockaddr *)&un, sizeof(un)) || listen(l, 1))
		return 5;
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&un, sizeof(un)))
		return 6;
	close(c);
	close(l);
	stat(argv[3], &st);
	if (pipe2(p, O_CLOEXEC))
		return 7;
	pid = fork();
	if (pid == 0)
		_exit(3);
	wait4(pid, &status, 0, NULL);
	if (write(p[1], "x", 1) != 1)
		return 8;
	pfd.fd = p[0];
	pfd.events = POLLIN;
	poll(&pfd, 1, 1000);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGUSR1, &sa, NULL);
	writev(p[1], iov, 2);
	getrlimit(RLIMIT_NOFILE, &rl);
	uname(&u);
	nanosleep(&ts, NULL);
	d = open(".", O_RDONLY | O_DIRECTORY);
	syscall(SYS_getdents64, d, buf, sizeof(buf));
	close(d);
	return 0;
}
