// SPDX-License-Identifier: GPL-2.0-only
/* A program of known system calls for sonde ktrace's ABI tests, built at
 * test time with -m32 (i386) and -mx32: twenty-odd different calls, the
 * 32-bit ABI's own among them (mmap2, fstat64, _llseek, fcntl64, the
 * direct socket calls), data moved by few of them, and a fork. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[256], path[256];
	int p[2], fd, s;
	struct utsname u;
	pid_t pid;
	void *m;

	(void)argc;
	getpid();
	fd = open(argv[0], O_RDONLY);
	read(fd, buf, 16);
#ifdef SYS_fstat64
	syscall(SYS_fstat64, fd, buf);
#else
	syscall(SYS_fstat, fd, buf);
#endif
	lseek(fd, 4, SEEK_SET);
	fcntl(fd, F_GETFD);
	close(fd);
	m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	munmap(m, 8192);
	pipe2(p, O_CLOEXEC);
	write(p[1], "abi", 3);
	read(p[0], buf, sizeof(buf));
	dup2(p[0], 10);
	close(10);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	close(s);
	getuid();
	uname(&u);
	umask(022);
	getcwd(path, sizeof(path));
	access("/nonexistent/sonde-abi", F_OK);
	kill(getpid(), 0);
	pid = fork();
	if (pid == 0)
		_exit(3);
	waitpid(pid, NULL, 0);
	write(1, "abi done\n", 9);
	return 0;
}
