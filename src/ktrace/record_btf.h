// SPDX-License-Identifier: GPL-2.0-only
/* record_btf — what the recorder needs of the kernel's BTF, found in one
 * pass over it: the BTF ids of the tracepoints its programs attach to, and
 * the few kernel types their CO-RE relocations name, written out as a
 * small BTF that libbpf relocates against instead of parsing the kernel's
 * whole BTF (5.5 MB, ~10 ms of the start-up). */
#ifndef SONDE_KTRACE_RECORD_BTF_H
#define SONDE_KTRACE_RECORD_BTF_H

#include <stddef.h>
#include <stdint.h>

/* One field the BPF programs read through CO-RE: a struct and the
 * member names down to it ("thread_info", "cpu"), NULL-terminated. */
struct ktr_btf_field {
	const char *type;
	const char *path[4];
};

/* Scan the kernel's BTF (/sys/kernel/btf/vmlinux): ids[i] the BTF id of
 * the typedef btf_trace_<tps[i]> (0: not found), and into fd (a file, at
 * offset 0) a BTF holding fields[]'s structs with those members at the
 * kernel's offsets, sizes and kinds (a field the kernel lacks is left
 * out: libbpf then says so). 0 or -errno (the kernel's BTF unreadable or
 * not understood, a struct named twice).
 *
 * With keep_dir (KTR_BTF_KEEP_DIR; NULL: never), the result is kept there
 * for the rest of the boot and a later scan asking the same reads it
 * instead (a file of another boot, request or owner, or damaged, is
 * scanned anew and replaced). */
int ktr_btf_scan(const char *const *tps, size_t ntp, uint32_t *ids,
		 const struct ktr_btf_field *fields, size_t nfields, int fd,
		 const char *keep_dir);

/* tmpfs: what is kept there goes with the boot. */
#define KTR_BTF_KEEP_DIR "/run/sonde"

#endif
