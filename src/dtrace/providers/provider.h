// SPDX-License-Identifier: GPL-2.0-only
/* provider — what a provider is to the compiler: a table of probes (found
 * by glob, lazily: nothing is listed or resolved that a script does not
 * name), the BPF program type its probes run as, how its probes group into
 * programs ("units": probes that share one kernel event, such as every
 * syscall entry on raw_syscalls:sys_enter), the code each unit needs to
 * say which probe fired and what its arguments are, and how a unit is
 * attached. Adding a provider (proc, sched, fbt, pid, usdt) is one file
 * and one line in providers.c; the compiler does not change. */
#ifndef SONDE_DTRACE_PROVIDER_H
#define SONDE_DTRACE_PROVIDER_H

#include "../ast.h"

#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>

struct dt_provider;
struct dt_cg;
/* The providers' state in one session (providers.c): each provider's
 * probes and caches, made as descriptions are matched. */
struct dt_provs;

struct dt_probe {
	uint32_t id;
	const struct dt_provider *prov;
	const char *mod, *func, *name;
	uint64_t arg;		/* the provider's own: syscall number, period */
	const char *provname;	/* when not prov->name: "pid123" */
};

/* One BPF program: the probes of one kernel event that clauses enable,
 * and those clauses in program order. */
struct dt_unit {
	const struct dt_provider *prov;
	char key[64];
	uint64_t arg;
	struct dt_probe **probes;
	int nprobes;
	struct dt_clause **clauses;
	int nclauses;
	/* code */
	struct bpf_insn *insns;
	int ninsns;
	struct dt_loc *locs;	/* the D source of each instruction */
	/* loaded and attached */
	int prog_fd;
	int *fds;		/* perf events, links */
	int nfds;
};

typedef int (*dt_probe_fn)(struct dt_probe *p, void *arg);

struct dt_provider {
	const char *name;
	enum bpf_prog_type prog_type;
	/* Providers named per process ("pid123"): whether a description's
	 * provider is one of this provider's; NULL: the name, as a glob. */
	bool (*owns)(const char *prov);
	/* Its state in a session (dt_provs_state): state_size bytes, zeroed
	 * when made; state_free releases what they point to. */
	size_t state_size;
	void (*state_free)(void *st);
	/* Call fn for each probe matching pd (module, function and name are
	 * globs; empty matches all); returns the sum of fn's returns or a
	 * negative errno. */
	int (*match)(struct dt_provs *ps, const struct dt_pdesc *pd,
		     dt_probe_fn fn, void *arg);
	struct dt_probe *(*by_id)(struct dt_provs *ps, uint32_t id);
	/* The unit of a probe: a name, and the provider's argument. */
	void (*unit_of)(const struct dt_probe *p, char *key, size_t len,
			uint64_t *arg);
	/* Code generation. The program's context pointer is saved on the
	 * stack; see cg.h for the helpers. */
	void (*cg_prologue)(struct dt_cg *g);
	/* Jump to skip unless the probe that fired is one of cl's. */
	void (*cg_guard)(struct dt_cg *g, struct dt_clause *cl, int skip);
	int (*cg_probe_id)(struct dt_cg *g);
	int (*cg_arg)(struct dt_cg *g, int i);
	int (*cg_errno)(struct dt_cg *g);
	/* args[i]: its type for probe p (false when p has no args[i]), and
	 * its value. */
	bool (*args_type)(const struct dt_probe *p, int i, struct dt_type *t);
	int (*cg_args)(struct dt_cg *g, int i);
	/* A built-in variable (enum dt_builtin) of the provider's own, such
	 * as on-cpu's pid and tid (the incoming task's); -1: the usual. */
	int (*cg_builtin)(struct dt_cg *g, int bi);
	/* A pointer to the probe's provider/module/function/name string,
	 * DT_PROBESTR_SIZE bytes, zero-padded. */
	int (*cg_probestr)(struct dt_cg *g, int which);
	/* A map of the provider's probe names by index, DT_PROBESTR_SIZE
	 * bytes each (DT_MAP_SYSNAMES), for a program that set
	 * g->names_prov to the provider; its fd or -errno. */
	int (*names_map)(void);
	/* Whether the unit runs after exit() (END, ERROR): it does not
	 * test the exit flag. */
	bool (*after_exit)(const struct dt_unit *u);
	/* Attach the loaded unit (u->prog_fd); 0 or -errno with a message. */
	int (*attach)(struct dt_unit *u, char *err, size_t len);
	/* Units attach in the order of their arg (they share a kernel
	 * event and their order matters). */
	bool ordered_units;
	/* Kernel features the provider needs, checked before loading. */
	int needs[2];		/* enum sbpf_feature + 1; 0: none */
};

/* Every provider, in listing order. */
extern const struct dt_provider dt_prov_dtrace, dt_prov_profile,
	dt_prov_syscall, dt_prov_pid, dt_prov_proc, dt_prov_sched,
	dt_prov_usdt, dt_prov_fbt;

/* A session's providers' state, and its end. */
struct dt_provs *dt_provs_new(void);
void dt_provs_free(struct dt_provs *ps);
/* Probes of every provider matching pd. */
int dt_probes_match(struct dt_provs *ps, const struct dt_pdesc *pd,
		    dt_probe_fn fn, void *arg);
struct dt_probe *dt_probe_by_id(struct dt_provs *ps, uint32_t id);
/* A provider's match refusing a description as dtrace(1) does (its tag
 * and words): returns -EDOM, which match returns; dt_provs_failure() gives
 * the message to the compiler. */
int dt_provs_fail(struct dt_provs *ps, enum dt_errtag tag, const char *fmt,
		  ...) __attribute__((format(printf, 3, 4)));
const char *dt_provs_failure(struct dt_provs *ps, enum dt_errtag *tag);
/* The stability of a probe's description and of its arguments (names,
 * data, class), as dtrace -lv prints them. */
void dt_probe_attrs(const struct dt_probe *p, const char *desc[3],
		    const char *args[3]);
/* A probe's field: 0 provider, 1 module, 2 function, 3 name. */
const char *dt_probe_field(const struct dt_probe *p, int which);
/* fnmatch with DTrace's rule that an empty pattern matches anything. */
bool dt_glob(const char *pattern, const char *s);
/* Whether the kernel has a function an fbt description names (its
 * /proc/kallsyms code symbols, module "vmlinux" for the kernel's own):
 * on a kernel fbt cannot run on, whether the description would match. */
bool dt_fbt_kernel_has(const struct dt_pdesc *pd);

/* Probe id ranges. */
enum {
	DT_ID_DTRACE = 1,		/* BEGIN END ERROR */
	DT_ID_PROFILE = 4,		/* the listed profile-N and tick-N */
	DT_ID_PROC = 40,		/* proc's 12 */
	DT_ID_SCHED = 60,		/* sched's */
	DT_ID_SYSCALL = 100,		/* 100 + 2 * nr (+1: return) */
	DT_ID_DYNAMIC = 100000,		/* profile probes made on demand */
	DT_ID_UPROBE = 200000,		/* pid and usdt probes, made as matched */
	DT_ID_FBT = 1000000,		/* fbt probes, made as matched */
};

/* pid provider: -c's command, stopped before exec, and the program it
 * will run (its modules cannot be read from /proc yet). */
void dt_pid_set_command(struct dt_provs *ps, long pid, const char *path);

/* The uprobe machinery pid.c shares with usdt.c: the ELF files a process
 * maps (or, for -c's command, will map), their symbols, and a uprobe
 * (ref_ctr: a USDT semaphore's file offset, or 0) for a unit. */
struct elfsym;
struct dt_umod {
	char *path;
	const char *base;	/* basename */
	bool exe;		/* the executable: a.out */
	struct elfsym *syms;	/* loaded on first use */
	bool tried;
};
int dt_uprobe_mods(struct dt_provs *ps, long pid,
		   struct dt_umod **mods);	/* count or -errno */
struct elfsym *dt_uprobe_syms(struct dt_umod *m);
bool dt_uprobe_mod_matches(const struct dt_umod *m, const char *pattern);
int dt_uprobe_attach(struct dt_unit *u, const struct dt_probe *p,
		     const char *path, uint64_t off, uint64_t ref_ctr,
		     bool ret, long pid, char *err, size_t len);
/* pid and usdt probes share one id range (DT_ID_UPROBE on). */
uint32_t dt_uprobe_new_id(struct dt_provs *ps, struct dt_probe *p);

struct Elf;

/* One .note.stapsdt note (<sys/sdt.h>'s probe site, and what -G writes):
 * the file's addresses (4 bytes each in a 32-bit file) and its strings. */
struct dt_stapsdt {
	uint64_t pc, base, sem;
	const char *prov, *name, *args;
};
/* fn on each well-formed stapsdt note of elf, until it returns non-zero
 * (then that). */
int dt_stapsdt_each(struct Elf *elf,
		    int (*fn)(const struct dt_stapsdt *n, void *arg),
		    void *arg);
struct dt_probe *dt_uprobe_by_id(struct dt_provs *ps, uint32_t id);

/* dtrace provider: run BEGIN/END/ERROR by hand (BPF_PROG_TEST_RUN). */
int dt_dtrace_fire(struct dt_unit *u, const uint64_t *args, int nargs);

#endif
