// SPDX-License-Identifier: GPL-2.0-only
/* sysinfo — the trace-point letters, and which arguments of which syscalls are path names (NAMI records)
 * and which syscalls move data (GIO records), by name, so that one table
 * serves every ABI lib/syscalls knows. The recorder turns it into the BPF
 * program's per-number hints (record.h). */
#include "ktrace.h"
#include "record.h"

#include "../lib/util.h"

#include <errno.h>

#define P(a) (1u << (a))
#define IO(kind, fd, buf) (((unsigned)(kind) << KTR_SI_IO_SHIFT) | \
			   ((unsigned)(fd) << KTR_SI_FD_SHIFT) | \
			   ((unsigned)(buf) << KTR_SI_BUF_SHIFT))

static const struct ktrace_sysinfo table[] = {
	/* Path names. */
	{ "open", P(0) }, { "openat", P(1) }, { "openat2", P(1) },
	{ "creat", P(0) }, { "stat", P(0) }, { "lstat", P(0) },
	{ "newfstatat", P(1) }, { "statx", P(1) },
	{ "access", P(0) }, { "faccessat", P(1) }, { "faccessat2", P(1) },
	{ "execve", P(0) }, { "execveat", P(1) },
	{ "mkdir", P(0) }, { "mkdirat", P(1) }, { "rmdir", P(0) },
	{ "unlink", P(0) }, { "unlinkat", P(1) },
	{ "rename", P(0) | P(1) }, { "renameat", P(1) | P(3) },
	{ "renameat2", P(1) | P(3) },
	{ "link", P(0) | P(1) }, { "linkat", P(1) | P(3) },
	{ "symlink", P(0) | P(1) }, { "symlinkat", P(0) | P(2) },
	{ "readlink", P(0) }, { "readlinkat", P(1) },
	{ "chdir", P(0) }, { "chroot", P(0) },
	{ "chmod", P(0) }, { "fchmodat", P(1) }, { "fchmodat2", P(1) },
	{ "chown", P(0) }, { "lchown", P(0) }, { "fchownat", P(1) },
	{ "truncate", P(0) }, { "utime", P(0) }, { "utimes", P(0) },
	{ "futimesat", P(1) }, { "utimensat", P(1) },
	{ "mknod", P(0) }, { "mknodat", P(1) }, { "statfs", P(0) },
	{ "mount", P(0) | P(1) }, { "umount2", P(0) },
	{ "swapon", P(0) }, { "swapoff", P(0) }, { "acct", P(0) },
	{ "pivot_root", P(0) | P(1) }, { "inotify_add_watch", P(1) },
	{ "setxattr", P(0) }, { "lsetxattr", P(0) }, { "getxattr", P(0) },
	{ "lgetxattr", P(0) }, { "listxattr", P(0) }, { "llistxattr", P(0) },
	{ "removexattr", P(0) }, { "lremovexattr", P(0) },
	{ "name_to_handle_at", P(1) }, { "fanotify_mark", P(4) },
	{ "open_tree", P(1) }, { "move_mount", P(1) | P(3) },
	{ "mount_setattr", P(1) }, { "uselib", P(0) },
	/* Data. */
	{ "read", IO(KTR_IO_READ, 0, 1) }, { "write", IO(KTR_IO_WRITE, 0, 1) },
	{ "pread64", IO(KTR_IO_READ, 0, 1) },
	{ "pwrite64", IO(KTR_IO_WRITE, 0, 1) },
	{ "readv", IO(KTR_IO_READV, 0, 1) }, { "writev", IO(KTR_IO_WRITEV, 0, 1) },
	{ "preadv", IO(KTR_IO_READV, 0, 1) }, { "pwritev", IO(KTR_IO_WRITEV, 0, 1) },
	{ "preadv2", IO(KTR_IO_READV, 0, 1) },
	{ "pwritev2", IO(KTR_IO_WRITEV, 0, 1) },
	{ "recvfrom", IO(KTR_IO_READ, 0, 1) }, { "sendto", IO(KTR_IO_WRITE, 0, 1) },
	{ "recvmsg", IO(KTR_IO_RECVMSG, 0, 1) },
	{ "sendmsg", IO(KTR_IO_SENDMSG, 0, 1) },
};

const struct ktrace_sysinfo *ktrace_sysinfo_table(size_t *n)
{
	*n = ARRAY_SIZE(table);
	return table;
}

int ktrace_parse_points(const char *s, uint32_t *points)
{
	uint32_t p = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		switch (*s) {
		case 'c': p |= KTR_PT_SYSCALL; break;
		case 'n': p |= KTR_PT_NAMEI; break;
		case 'i': p |= KTR_PT_GENIO; break;
		case 's': p |= KTR_PT_SIG; break;
		case 'w': p |= KTR_PT_CSW; break;
		case 'p': p |= KTR_PT_PROC; break;
		case '+': p |= KTR_PT_DEFAULT; break;
		default: return -EINVAL;
		}
	}
	*points = p;
	return 0;
}
