// SPDX-License-Identifier: GPL-2.0-only
/* A target for the D conformance suite: known system calls from known
 * threads.
 *   fixture getppid N       N getppid() calls
 *   fixture threads A B     two threads making A and B getppid() calls
 *   fixture open PATH...    openat() each path (failures are fine)
 *   fixture badopen PATH    openat() of NULL and of address 16, then PATH
 *   fixture sleep MS        sleep, then exit */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void *calls(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < n; i++)
		getppid();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "getppid")) {
		calls((void *)atol(argv[2]));
	} else if (argc >= 4 && !strcmp(argv[1], "threads")) {
		pthread_t a, b;

		pthread_create(&a, NULL, calls, (void *)atol(argv[2]));
		pthread_join(a, NULL);
		pthread_create(&b, NULL, calls, (void *)atol(argv[3]));
		pthread_join(b, NULL);
	} else if (argc >= 3 && !strcmp(argv[1], "open")) {
		for (int i = 2; i < argc; i++) {
			int fd = open(argv[i], O_RDONLY);

			if (fd >= 0)
				close(fd);
		}
	} else if (argc >= 3 && !strcmp(argv[1], "badopen")) {
		int fd;

		syscall(SYS_openat, AT_FDCWD, NULL, O_RDONLY);
		syscall(SYS_openat, AT_FDCWD, (char *)16, O_RDONLY);
		fd = open(argv[2], O_RDONLY);
		if (fd >= 0)
			close(fd);
	} else if (argc >= 3 && !strcmp(argv[1], "sleep")) {
		struct timespec ts = { atol(argv[2]) / 1000,
				       atol(argv[2]) % 1000 * 1000000 };

		nanosleep(&ts, NULL);
	} else {
		fprintf(stderr, "usage: fixture getppid N | threads A B | "
			"open PATH... | badopen PATH | sleep MS\n");
		return 2;
	}
	return 0;
}
