// SPDX-License-Identifier: GPL-2.0-only
/* Signals for sonde ktrace's tests, built at test time:
 *   signals segv      a store to address 0x10 (SIGSEGV, SEGV_MAPERR)
 *   signals restart   a read of an empty pipe interrupted by a handled
 *                     SIGALRM with SA_RESTART: the kernel restarts it (the
 *                     second read is served by the handler's write)
 *   signals eintr     the same without SA_RESTART: the read fails, EINTR */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int p[2];

static void on_alarm(int sig)
{
	(void)sig;
	if (write(p[1], "x", 1) != 1)
		_exit(9);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct itimerval it = { .it_value = { 0, 50000 } };
	char c;
	ssize_t n;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "segv")) {
		*(volatile int *)0x10 = 1;
		return 0;
	}
	if (pipe(p))
		return 3;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = strcmp(argv[1], "restart") ? 0 : SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	n = read(p[0], &c, 1);
	printf("%zd %s\n", n, n < 0 ? strerror(errno) : "read");
	return 0;
}
