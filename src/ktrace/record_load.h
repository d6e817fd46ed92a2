// SPDX-License-Identifier: GPL-2.0-only
/* record_load — the recorder's largest BPF programs verified in threads of
 * their own, in parallel with the rest: the kernel's verifier is most of
 * `sonde ktrace`'s start-up, and a program load is one system call that
 * keeps one CPU busy. */
#ifndef SONDE_KTRACE_RECORD_LOAD_H
#define SONDE_KTRACE_RECORD_LOAD_H

#include <bpf/libbpf.h>
#include <stdbool.h>

struct ktr_par;

/* Before the object is opened: the programs of these ELF sections (whole
 * names, e.g. "tp_btf/sys_exit") are to load in threads. NULL when that
 * cannot be set up (they then load as the others do). */
struct ktr_par *ktr_par_new(const char *const *secs, size_t n);

/* After the object is opened and set up, before it is loaded: find the
 * programs of obj that load in threads and look up their attach targets
 * in the kernel's BTF, which libbpf reads for it then (~10 ms of CPU):
 * 0 or -errno. Another thread may meanwhile use obj's maps (getters,
 * bpf_map__reuse_fd), nothing else of it. */
int ktr_par_resolve(struct ktr_par *p, struct bpf_object *obj);

/* After the object is loaded (or failed to): wait for the threads. 0, or
 * the first load's -errno, its name in *prog and the verifier's log in
 * *log (valid until ktr_par_free). */
int ktr_par_wait(struct ktr_par *p, const char **prog, const char **log);

/* Attach the programs loaded in threads (the skeleton's attach leaves
 * them out); ktr_par_detach undoes it. */
int ktr_par_attach(struct ktr_par *p);
void ktr_par_detach(struct ktr_par *p);

/* Once the programs are loaded, off the start-up's path: the memory the
 * kernel's BTF was read into, made ready beforehand (ktr_par_resolve),
 * back to the system. */
void ktr_par_trim(void);

/* After the object is destroyed. */
void ktr_par_free(struct ktr_par *p);

#endif
