// SPDX-License-Identifier: GPL-2.0-only
/* kstructs — where the fields of the kernel structures kdump decodes lie,
 * per syscall ABI: generated from each architecture's UAPI headers by
 * scripts/gen-kstructs.sh (the compiler lays them out; kstructs.fields
 * lists the fields). A layout whose _size is 0 does not exist for that
 * ABI (x86_64 has no stat64). Prefix kd_layout_. */
#ifndef SONDE_KTRACE_KSTRUCTS_H
#define SONDE_KTRACE_KSTRUCTS_H

#include <stdint.h>

struct kd_field {
	uint16_t off, size;
};

#define KD_STAT_FIELDS \
	struct kd_field st_dev, st_ino, st_mode, st_nlink, st_uid, st_gid, \
		st_rdev, st_size, st_blksize, st_blocks, st_atime, \
		st_atime_nsec, st_mtime, st_mtime_nsec, st_ctime, \
		st_ctime_nsec

struct kd_layout_stat {
	uint16_t _size;
	KD_STAT_FIELDS;
};

struct kd_layout_stat64 {
	uint16_t _size;
	KD_STAT_FIELDS;
};

struct kd_layout_statx {
	uint16_t _size;
	struct kd_field stx_mask, stx_blksize, stx_attributes, stx_nlink,
		stx_uid, stx_gid, stx_mode, stx_ino, stx_size, stx_blocks,
		stx_mtime;
};

struct kd_layout_siginfo {
	uint16_t _size;
	struct kd_field si_signo, si_errno, si_code, si_pid, si_uid, si_status,
		si_utime, si_stime;
};

struct kd_layout_epoll {
	uint16_t _size;
	struct kd_field events, data;
};

struct kd_layout_utsname {
	uint16_t _size;
	struct kd_field sysname, nodename, release, version, machine,
		domainname;
};

#define KD_LAYOUTS(arch) \
	extern const struct kd_layout_stat kd_layout_stat_##arch; \
	extern const struct kd_layout_stat64 kd_layout_stat64_##arch; \
	extern const struct kd_layout_statx kd_layout_statx_##arch; \
	extern const struct kd_layout_siginfo kd_layout_siginfo_##arch; \
	extern const struct kd_layout_epoll kd_layout_epoll_##arch; \
	extern const struct kd_layout_utsname kd_layout_utsname_##arch
KD_LAYOUTS(x86_64);
KD_LAYOUTS(i386);
KD_LAYOUTS(aarch64);
#undef KD_LAYOUTS

#endif
