// SPDX-License-Identifier: GPL-2.0-only
/* record_load — the recorder's BPF programs verified in threads of
 * their own, in parallel with each other: the kernel's verifier is most of
 * `sonde ktrace`'s start-up, and a program load is one system call that
 * keeps one CPU busy. */
#ifndef SONDE_KTRACE_RECORD_LOAD_H
#define SONDE_KTRACE_RECORD_LOAD_H

#include <bpf/libbpf.h>
#include <stdbool.h>

struct ktr_par;
struct ktr_btf_field;

/* Before the object is opened: the programs of these ELF sections (whole
 * names, tp_btf/TRACEPOINT) are to load in threads, and the kernel's BTF
 * is scanned meanwhile for their tracepoints and for fields[] (the
 * fields the programs read through CO-RE). NULL when that cannot be set
 * up (libbpf then loads them, as usual). */
struct ktr_par *ktr_par_new(const char *const *secs, size_t n,
			    const struct ktr_btf_field *fields, size_t nfields);

/* The BTF file libbpf is to relocate against (bpf_object_open_opts'
 * btf_custom_path; filled in by ktr_par_resolve). */
const char *ktr_par_btf_path(const struct ktr_par *p);

/* After the object is opened and set up, before it is loaded: wait for
 * the scan (when it failed, the kernel's whole BTF is read as libbpf
 * would), find the programs of obj that load in threads. 0 or -errno; a
 * tracepoint the kernel lacks is named in *missing. Another thread may
 * meanwhile use obj's maps (getters, bpf_map__reuse_fd), nothing else of
 * it. */
int ktr_par_resolve(struct ktr_par *p, struct bpf_object *obj,
		    const char **missing);

/* After the object is loaded (or failed to): wait for the threads. 0, or
 * the first load's -errno, its name in *prog and the verifier's log in
 * *log (valid until ktr_par_free). */
int ktr_par_wait(struct ktr_par *p, const char **prog, const char **log);

/* Attach the programs loaded in threads (the skeleton's attach leaves
 * them out); ktr_par_detach undoes it. */
int ktr_par_attach(struct ktr_par *p);
void ktr_par_detach(struct ktr_par *p);

/* After the object is destroyed. */
void ktr_par_free(struct ktr_par *p);

#endif
