// SPDX-License-Identifier: GPL-2.0-only
/* dtrace — the tool's internal interface: a session compiles D sources
 * into units (compile.c), creates the maps and loads and attaches the
 * programs (load.c), and consumes what they write (consume.c); dtrace.c
 * is the command line around them. */
#ifndef SONDE_DTRACE_DTRACE_H
#define SONDE_DTRACE_DTRACE_H

#include "ast.h"
#include "providers/provider.h"

#include <stdio.h>
#include <sys/types.h>

struct dt_session {
	struct dt_cc cc;
	struct dt_prog prog;
	struct dt_options opt;	/* -x options, before the sources' pragmas */
	struct dt_macros macros;
	struct dt_src *srcs;
	int nsrcs;
	struct dt_src *libs;	/* the D library files of -L, -x libdir */
	int nlibs;
	bool libs_read;
	int *src_matches;	/* probes each source matched */
	bool testing;		/* _DTRACE_TESTING: dtrace(1)'s test mode */
	bool verbose;		/* -v */
	struct dt_provs *provs;	/* the providers' probes and caches */
	/* compile.c */
	struct dt_unit **units;
	int nunits;
	struct dt_unit *begin, *end, *error;
	struct dt_var **varmaps;	/* map index - DT_MAP_FIRST_VAR */
	int nvarmaps;
	int scratch_size;
	const struct dt_provider *names_prov;	/* its names map is used */
	bool need_stacks;
	void *stacks;		/* consume.c: symbols for stack keys */
	/* load.c */
	int *map_fds;
	int nmaps;
	int possible_cpus;
	/* consume.c */
	FILE *out;
	FILE *out_orig;		/* freopen(): the output before, or NULL */
	struct ring_buffer *rb;
	bool done;		/* exit() seen */
	int status;		/* exit()'s value */
	bool *printed;		/* per aggregation id: printa() printed it */
	uint64_t *normal;	/* per aggregation id: normalize()'s divisor */
	struct dt_specbuf *spec;	/* per speculation id (1..nspec) */
	uint64_t specdrops;
	bool heading;
	uint64_t errors;
	uint64_t dblerrors;	/* faults in the ERROR probe's clauses */
};

/* Add a source (text is copied): kind 's' for a -s file, else the option
 * that gave it ('n', 'P', 'm', 'f', 'i'), which says how its first
 * probe description is read. */
void dt_session_init(struct dt_session *s);
void dt_session_add(struct dt_session *s, const char *name, const char *text,
		    size_t len, char kind);
/* Parse, check, match probes, generate code. 0, or the exit status with
 * the message in s->cc.msg. */
int dt_compile(struct dt_session *s);
/* Compile s->libs (the .d files of the -L directories) into s->prog, in
 * the order their depends_on pragmas make (libdir.c). */
void dt_parse_libs(struct dt_session *s);
void dt_session_free(struct dt_session *s);
/* The compile error of s as dtrace(1) reports it: "dtrace: failed to
 * compile script F: [D_TAG] line N: message" (or "invalid probe specifier
 * TEXT: ..." for -n and the like), and sonde's reason on a line of its own
 * when it has one; malloc'd, each line ending in a newline. */
char *dt_compile_message(const struct dt_session *s);
/* -C: text through cpp(1) as dtrace(1) runs it, the options' -D, -U, -I,
 * -H, -X and cpppath/cppargs applied; the output (malloc'd, its length in
 * *outlen), or NULL with dtrace(1)'s words in err. */
char *dt_cpp(const struct dt_options *o, const char *text, size_t len,
	     size_t *outlen, char *err, size_t errlen);
/* Print the generated programs (-S). */
void dt_dump(struct dt_session *s, FILE *f);
void dt_disasm(const struct bpf_insn *insns, int n, const struct dt_loc *locs,
	       FILE *f);

/* Create the maps and load every program. 0, or -errno with a message. */
int dt_load(struct dt_session *s, char **msg);
/* The bytes an aggregation entry counts toward aggsize. */
uint64_t dt_agg_entry_size(const struct dt_prog *p, const struct dt_var *v);
/* Attach every unit except the dtrace provider's. */
int dt_attach(struct dt_session *s, char *err, size_t len);
void dt_detach(struct dt_session *s);

/* Parse the sources and list the probes they match, or all (-l). */
int dt_list(struct dt_session *s, FILE *f, char **msg);
/* Detach, close the programs and maps. */
void dt_unload(struct dt_session *s);

/* Consume the ring buffer: wait up to timeout_ms, print what arrived. */
int dt_consume_open(struct dt_session *s);
int dt_consume(struct dt_session *s, int timeout_ms);
/* Run BEGIN or END, then print what it wrote. */
int dt_fire(struct dt_session *s, struct dt_unit *u);
/* Run u (BEGIN) without consuming what it recorded (s->done if it
 * called exit()): 0 or -1 with errno. */
int dt_fire_only(struct dt_session *s, struct dt_unit *u);
/* A stack() or ustack() key (stacks.c) as DTrace prints it: one frame a
 * line, indented (malloc'd); at most nframes (0: all). With readable, Rust
 * functions demangled; without, the symbols as they are (merge keys). */
char *dt_stack_text(struct dt_session *s, uint64_t key, bool user,
		    int nframes, bool readable);
void dt_stacks_free(struct dt_session *s);
/* The -c/-p target's mappings followed from now on (its exec, dlopen,
 * forks), so that its user frames are still named after it exits; and
 * what it did since, read (stacks.c, lib/symbolizer). */
void dt_stacks_follow(struct dt_session *s, pid_t pid);
void dt_stacks_poll(struct dt_session *s);
/* sym(), mod(), %a (kernel) or usym(), umod(), uaddr(), %A (user, in pid)
 * of addr as DTrace prints them (enum dt_symkind; malloc'd); readable as
 * for dt_stack_text. */
char *dt_sym_text(struct dt_session *s, uint64_t addr, uint32_t pid,
		  int which, bool readable);
/* At the end: the aggregations not printed yet, drop counts. */
void dt_consume_finish(struct dt_session *s);
void dt_print_drops(struct dt_session *s);

#endif
