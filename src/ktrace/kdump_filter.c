// SPDX-License-Identifier: GPL-2.0-only
/* kdump_filter — strace's -e expressions for kdump: trace=SET (which
 * calls print; a bare SET means trace=SET) and status=SET (successful,
 * failed, unfinished). A SET is a comma list of syscall names, %CLASS
 * names, /REGEX, all or none, the whole led by ! to negate; names prefixed
 * with ? are not an error when the ABI lacks them. Classes are strace's
 * (strace(1), "-e trace="), listed by name so they hold on every ABI. */
#include "kdump.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* strace's syscall classes. */
static const struct {
	const char *name;
	const char *calls;	/* space-separated */
} classes[] = {
	{ "file",
	  "open stat lstat access execve truncate getcwd chdir rename mkdir "
	  "rmdir creat link unlink symlink readlink chmod chown lchown utime "
	  "mknod uselib statfs pivot_root chroot acct mount umount2 swapon "
	  "swapoff quotactl setxattr lsetxattr getxattr lgetxattr listxattr "
	  "llistxattr removexattr lremovexattr utimes inotify_add_watch "
	  "openat mkdirat mknodat fchownat futimesat newfstatat unlinkat "
	  "renameat linkat symlinkat readlinkat fchmodat faccessat utimensat "
	  "fanotify_mark name_to_handle_at renameat2 execveat statx open_tree "
	  "move_mount fsconfig fspick openat2 faccessat2 mount_setattr "
	  "fchmodat2 setxattrat getxattrat umount oldstat oldlstat stat64 "
	  "lstat64 truncate64 fstatat64 chown32 lchown32 statfs64 readdir" },
	{ "desc",
	  "read write open close fstat poll lseek mmap ioctl pread64 pwrite64 "
	  "readv writev pipe select dup dup2 sendfile fcntl flock fsync "
	  "fdatasync ftruncate getdents fchdir creat fchmod fchown fstatfs "
	  "readahead fsetxattr fgetxattr flistxattr fremovexattr epoll_create "
	  "getdents64 fadvise64 epoll_wait epoll_ctl mq_open mq_timedsend "
	  "mq_timedreceive mq_notify mq_getsetattr inotify_init "
	  "inotify_add_watch inotify_rm_watch openat mkdirat mknodat fchownat "
	  "futimesat newfstatat unlinkat renameat linkat symlinkat readlinkat "
	  "fchmodat faccessat pselect6 ppoll splice tee sync_file_range "
	  "vmsplice utimensat epoll_pwait signalfd timerfd_create eventfd "
	  "fallocate timerfd_settime timerfd_gettime signalfd4 eventfd2 "
	  "epoll_create1 dup3 pipe2 inotify_init1 preadv pwritev "
	  "perf_event_open fanotify_init fanotify_mark name_to_handle_at "
	  "open_by_handle_at syncfs setns finit_module renameat2 memfd_create "
	  "kexec_file_load bpf execveat userfaultfd copy_file_range preadv2 "
	  "pwritev2 statx pidfd_send_signal io_uring_setup io_uring_enter "
	  "io_uring_register open_tree move_mount fsopen fsconfig fsmount "
	  "fspick pidfd_open openat2 pidfd_getfd faccessat2 process_madvise "
	  "epoll_pwait2 mount_setattr quotactl_fd landlock_create_ruleset "
	  "landlock_add_rule landlock_restrict_self memfd_secret "
	  "process_mrelease cachestat fchmodat2 setxattrat getxattrat "
	  "sendfile64 _llseek mmap2 fstat64 fstatat64 fcntl64 ftruncate64 "
	  "fstatfs64 _newselect fadvise64_64 arm_fadvise64_64" },
	{ "network",
	  "sendfile socket connect accept sendto recvfrom sendmsg recvmsg "
	  "shutdown bind listen getsockname getpeername socketpair setsockopt "
	  "getsockopt getpmsg putpmsg accept4 recvmmsg sendmmsg send recv "
	  "socketcall sendfile64" },
	{ "process",
	  "clone fork vfork execve exit wait4 kill tkill exit_group tgkill "
	  "waitid rt_sigqueueinfo rt_tgsigqueueinfo execveat "
	  "pidfd_send_signal clone3 waitpid" },
	{ "signal",
	  "rt_sigaction rt_sigprocmask rt_sigreturn pause kill rt_sigpending "
	  "rt_sigtimedwait rt_sigqueueinfo rt_sigsuspend sigaltstack tkill "
	  "tgkill signalfd signalfd4 rt_tgsigqueueinfo pidfd_send_signal "
	  "io_uring_enter sigaction sigprocmask sigreturn sigpending "
	  "sigsuspend signal sgetmask ssetmask" },
	{ "memory",
	  "mmap mprotect munmap brk mremap msync mincore madvise shmat shmdt "
	  "mlock munlock mlockall munlockall io_setup io_destroy "
	  "remap_file_pages mbind set_mempolicy get_mempolicy migrate_pages "
	  "move_pages mlock2 pkey_mprotect io_uring_register "
	  "set_mempolicy_home_node map_shadow_stack mseal mmap2" },
	{ "ipc",
	  "shmget shmat shmctl semget semop semctl shmdt msgget msgsnd msgrcv "
	  "msgctl semtimedop ipc" },
	{ "creds",
	  "getuid getgid setuid setgid geteuid getegid setreuid setregid "
	  "getgroups setgroups setresuid getresuid setresgid getresgid "
	  "setfsuid setfsgid capget capset prctl getuid32 getgid32 geteuid32 "
	  "getegid32 setuid32 setgid32 setreuid32 setregid32 getgroups32 "
	  "setgroups32 setresuid32 getresuid32 setresgid32 getresgid32 "
	  "setfsuid32 setfsgid32" },
	{ "clock",
	  "gettimeofday adjtimex settimeofday time clock_settime clock_gettime "
	  "clock_getres clock_adjtime" },
	{ "pure",
	  "getpid getuid getgid geteuid getegid getppid getpgrp gettid "
	  "getuid32 getgid32 geteuid32 getegid32" },
	{ "stat", "stat stat64 oldstat" },
	{ "lstat", "lstat lstat64 oldlstat" },
	{ "fstat", "fstat fstat64 newfstatat fstatat64 statx" },
	{ "%stat",
	  "stat lstat fstat newfstatat statx stat64 lstat64 fstat64 "
	  "fstatat64 oldstat oldlstat oldfstat" },
	{ "statfs", "statfs statfs64" },
	{ "fstatfs", "fstatfs fstatfs64" },
	{ "%statfs", "statfs fstatfs ustat statfs64 fstatfs64" },
};

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* The set for one ABI: 0, 1 when a name matched nothing there, or -1 (a
 * usage error in err). */
static int trace_set_abi(struct kd_opts *o, enum sc_abi abi, char *set,
			 char *err, size_t errlen, const char **unmatched)
{
	long limit = sc_limit(abi);
	bool neg = false;
	uint8_t *sel = sd_calloc(limit ? limit : 1, 1);
	char *save = NULL, *tok;

	if (*set == '!') {
		neg = true;
		set++;
	}
	for (tok = strtok_r(set, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		bool quiet = *tok == '?';
		int hits = 0;

		if (quiet)
			tok++;
		if (!strcmp(tok, "all")) {
			memset(sel, 1, limit);
			continue;
		}
		if (!strcmp(tok, "none"))
			continue;
		if (*tok == '/') {
			regex_t re;

			if (regcomp(&re, tok + 1, REG_EXTENDED | REG_NOSUB)) {
				snprintf(err, errlen, "bad regular expression "
					 "'%s' in -e", tok + 1);
				free(sel);
				return -1;
			}
			for (long nr = 0; nr < limit; nr++) {
				const char *n = sc_name(abi, nr);

				if (n && !regexec(&re, n, 0, NULL, 0)) {
					sel[nr] = 1;
					hits++;
				}
			}
			regfree(&re);
		} else {
			const char *cls = tok + (*tok == '%');
			size_t c;

			/* Without %, only strace's old class names. */
			for (c = 0; c < ARRAY_SIZE(classes); c++)
				if (!strcmp(classes[c].name, cls) &&
				    (*tok == '%' || c < 7))
					break;
			if (c < ARRAY_SIZE(classes)) {
				for (long nr = 0; nr < limit; nr++) {
					const char *n = sc_name(abi, nr);

					if (n && in_list(classes[c].calls, n))
						sel[nr] = 1;
				}
				continue;
			}
			if (*tok == '%') {
				snprintf(err, errlen, "unknown syscall class "
					 "'%s' in -e", tok);
				free(sel);
				return -1;
			}
			for (long nr = 0; nr < limit; nr++) {
				const char *n = sc_name(abi, nr);

				if (n && !strcmp(n, tok)) {
					sel[nr] = 1;
					hits++;
				}
			}
		}
		if (!hits && !quiet && !*unmatched)
			*unmatched = tok;
	}
	if (neg)
		for (long nr = 0; nr < limit; nr++)
			sel[nr] = !sel[nr];
	/* Several trace= add up, as in strace. */
	if (o->calls[abi]) {
		for (long nr = 0; nr < limit && nr < (long)o->ncalls[abi]; nr++)
			sel[nr] |= o->calls[abi][nr];
		free(o->calls[abi]);
	}
	o->calls[abi] = sel;
	o->ncalls[abi] = limit;
	return 0;
}

/* Names are looked up in every ABI a trace may hold: a name no ABI has is
 * an error (unless ?name), one that only some have is fine. */
static int trace_set(struct kd_opts *o, const char *set, char *err,
		     size_t errlen)
{
	int missing = 0;
	char *bad = NULL;

	for (int abi = 0; abi < SC_NABIS; abi++) {
		char *copy = sd_strdup(set);
		const char *unmatched = NULL;
		int rc = trace_set_abi(o, abi, copy, err, errlen, &unmatched);

		if (rc) {
			free(copy);
			free(bad);
			return rc;
		}
		if (unmatched) {
			missing++;
			if (!bad)
				bad = sd_strdup(unmatched);
		}
		free(copy);
	}
	if (missing == SC_NABIS) {
		snprintf(err, errlen, "no syscall matches '%s' in -e", bad);
		free(bad);
		return -1;
	}
	free(bad);
	return 0;
}

static int status_set(struct kd_opts *o, char *set, char *err, size_t errlen)
{
	uint32_t st = 0;
	bool neg = false;
	char *save = NULL, *tok;

	if (*set == '!') {
		neg = true;
		set++;
	}
	for (tok = strtok_r(set, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "successful"))
			st |= KD_ST_SUCCESS;
		else if (!strcmp(tok, "failed"))
			st |= KD_ST_FAILED;
		else if (!strcmp(tok, "unfinished"))
			st |= KD_ST_UNFINISHED;
		else if (!strcmp(tok, "all"))
			st |= KD_ST_ALL;
		else if (strcmp(tok, "none")) {
			snprintf(err, errlen, "unknown status '%s' in -e "
				 "(successful, failed, unfinished)", tok);
			return -1;
		}
	}
	if (neg)
		st = ~st & KD_ST_ALL;
	/* Several status= (and -z with -Z) add up. */
	o->status = o->status == KD_ST_ALL ? st : (o->status | st);
	return 0;
}

int kd_parse_expr(struct kd_opts *o, const char *expr, char *err,
		  size_t errlen)
{
	char *copy = sd_strdup(expr), *eq = strchr(copy, '=');
	const char *what = "trace";
	char *set = copy;
	int rc;

	if (eq) {
		*eq = '\0';
		what = copy;
		set = eq + 1;
	}
	if (!strcmp(what, "trace") || !strcmp(what, "t")) {
		rc = trace_set(o, set, err, errlen);
	} else if (!strcmp(what, "status")) {
		rc = status_set(o, set, err, errlen);
	} else {
		snprintf(err, errlen, "-e %s= is not supported (trace=, "
			 "status=)", what);
		rc = -1;
	}
	free(copy);
	return rc;
}
