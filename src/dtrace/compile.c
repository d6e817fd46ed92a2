// SPDX-License-Identifier: GPL-2.0-only
/* compile — one compilation from D sources to BPF programs: parse each
 * source, check the whole program, match every probe description against
 * the providers (lazily: only the providers a description names are
 * asked), group the matched probes into units (one program per kernel
 * event), and generate each unit's code. */
#include "dtrace.h"
#include "btf.h"
#include "cg.h"
#include "../lib/bpf.h"
#include "../lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


void dt_session_init(struct dt_session *s)
{
	memset(s, 0, sizeof(*s));
	dt_options_default(&s->opt);
	s->provs = dt_provs_new();
	s->cc.provs = s->provs;
	s->macros.target = -1;
	s->out = stdout;
}

void dt_session_add(struct dt_session *s, const char *name, const char *text,
		    size_t len, char kind)
{
	struct dt_src *src;

	s->srcs = sd_realloc(s->srcs, sizeof(*s->srcs) * (s->nsrcs + 1));
	src = &s->srcs[s->nsrcs++];
	memset(src, 0, sizeof(*src));
	src->name = sd_strdup(name);
	src->text = sd_strndup(text, len);
	src->len = len;
	src->is_file = kind == 's';
	src->spec = kind == 's' ? 'n' : kind;
}

struct match_ctx {
	struct dt_clause *cl;
	struct dt_session *s;
	int *mult;		/* per cl->probes: descriptions matching it */
};

static int add_probe(struct dt_probe *p, void *arg)
{
	struct match_ctx *m = arg;
	struct dt_clause *cl = m->cl;

	cl->nmatches++;
	for (int i = 0; i < cl->nprobes; i++)
		if (cl->probes[i] == p) {
			m->mult[i]++;
			return 1;
		}
	cl->probes = sd_realloc(cl->probes, sizeof(*cl->probes) *
				(cl->nprobes + 1));
	m->mult = sd_realloc(m->mult, sizeof(*m->mult) *
			     (size_t)(cl->nprobes + 1));
	m->mult[cl->nprobes] = 1;
	cl->probes[cl->nprobes++] = p;
	return 1;
}

/* fbt runs on kprobes: what this kernel lacks, or NULL. */
static const char *fbt_missing(char *buf, size_t len)
{
	if (sbpf_has(SBPF_KPROBES))
		return NULL;
	if (sbpf_has(SBPF_FENTRY))
		snprintf(buf, len, "the fbt provider needs kprobes (this "
			 "version does not use fentry, which this kernel has): "
			 "%s", sbpf_feature_missing(SBPF_KPROBES));
	else
		snprintf(buf, len, "the fbt provider needs kprobes or fentry "
			 "(BPF trampolines), and this kernel has neither: %s; "
			 "%s", sbpf_feature_missing(SBPF_KPROBES),
			 sbpf_feature_missing(SBPF_FENTRY));
	return buf;
}

/* A description that matches nothing: DTrace's words, and on a line of
 * its own why, when this kernel or this version lacks the provider. */
static void no_match(struct dt_session *s, struct dt_pdesc *pd)
{
	static const char *const later[] = {
		"io", "ip", "tcp", "udp",
		"lockstat", "sdt", "cpc", "rawtp", "rawfbt", "lockstat",
	};
	static char why[512];
	const char *prov = pd->prov;

	if (!strcmp(prov, "fbt") && fbt_missing(why, sizeof(why)))
		s->cc.why = why;
	if (!strcmp(prov, "pid"))
		s->cc.why = "the pid provider is per process: pid$target "
			    "(with -c or -p) or pidPID";
	for (size_t i = 0; i < ARRAY_SIZE(later); i++)
		if (!strcmp(prov, later[i])) {
			snprintf(why, sizeof(why), "not supported: the %s "
				 "provider in this version", later[i]);
			s->cc.why = why;
		}
	dt_cerror(&s->cc, &pd->loc, D_PDESC_ZERO, "probe description "
		  "%s:%s:%s:%s does not match any probes", pd->prov, pd->mod,
		  pd->func, pd->name);
}

static struct dt_unit *unit_for(struct dt_session *s, struct dt_probe *p)
{
	char key[64];
	uint64_t arg;

	p->prov->unit_of(p, key, sizeof(key), &arg);
	for (int i = 0; i < s->nunits; i++)
		if (s->units[i]->prov == p->prov &&
		    !strcmp(s->units[i]->key, key))
			return s->units[i];
	struct dt_unit *u = sd_calloc(1, sizeof(*u));

	u->prov = p->prov;
	snprintf(u->key, sizeof(u->key), "%s", key);
	u->arg = arg;
	u->prog_fd = -1;
	s->units = sd_realloc(s->units, sizeof(*s->units) * (s->nunits + 1));
	s->units[s->nunits++] = u;
	/* Units of one kernel event that must run in a set order (sched's
	 * off-cpu before on-cpu) go before their provider's later ones:
	 * programs on one tracepoint run in the order they attach. */
	for (int i = s->nunits - 1; p->prov->ordered_units && i > 0 &&
	     s->units[i - 1]->prov == p->prov &&
	     s->units[i - 1]->arg > u->arg; i--) {
		s->units[i] = s->units[i - 1];
		s->units[i - 1] = u;
	}
	if (p->prov == &dt_prov_dtrace) {
		if (!strcmp(key, "BEGIN"))
			s->begin = u;
		else if (!strcmp(key, "END"))
			s->end = u;
		else
			s->error = u;
	}
	return u;
}

static void unit_add(struct dt_unit *u, struct dt_probe *p,
		     struct dt_clause *cl)
{
	bool have = false;

	for (int i = 0; i < u->nprobes && !have; i++)
		have = u->probes[i] == p;
	if (!have) {
		u->probes = sd_realloc(u->probes, sizeof(*u->probes) *
				       (u->nprobes + 1));
		u->probes[u->nprobes++] = p;
	}
	if (u->nclauses && u->clauses[u->nclauses - 1] == cl)
		return;
	u->clauses = sd_realloc(u->clauses, sizeof(*u->clauses) *
				(u->nclauses + 1));
	u->clauses[u->nclauses++] = cl;
}

/* A probe that k descriptions of one clause match runs the clause k
 * times, as in dtrace-utils (one statement per description): for each
 * further pass, a copy of the clause that enables the probes matched that
 * many times (its guard sees only those), after the clause in their
 * units. */
static void add_repeats(struct dt_session *s, struct dt_clause *cl,
			const int *mult)
{
	for (int k = 1;; k++) {
		struct dt_clause *c = NULL;

		for (int j = 0; j < cl->nprobes; j++) {
			if (mult[j] <= k)
				continue;
			if (!c) {
				c = dt_alloc(&s->cc.arena, sizeof(*c));
				*c = *cl;
				c->probes = dt_alloc(&s->cc.arena,
						     sizeof(*c->probes) *
						     (size_t)cl->nprobes);
				c->nprobes = 0;
			}
			c->probes[c->nprobes++] = cl->probes[j];
		}
		if (!c)
			return;
		for (int j = 0; j < c->nprobes; j++)
			unit_add(unit_for(s, c->probes[j]), c->probes[j], c);
	}
}

/* After the check, the program is its own clauses: the libraries'
 * (first) leave, the others are renumbered, add_repeats' copies too. */
static void drop_library_clauses(struct dt_session *s)
{
	struct dt_prog *p = &s->prog;
	int n = 0, nlib = 0;

	for (int i = 0; i < p->nclauses; i++) {
		struct dt_clause *cl = p->clauses[i];

		if (cl->library) {
			free(cl->probes);
			nlib++;
			continue;
		}
		cl->index = n;
		p->clauses[n++] = cl;
	}
	p->nclauses = n;
	for (int i = 0; nlib && i < s->nunits; i++)
		for (int j = 0; j < s->units[i]->nclauses; j++) {
			struct dt_clause *c = s->units[i]->clauses[j];
			bool copy = true;

			for (int k = 0; k < n && copy; k++)
				copy = p->clauses[k] != c;
			if (copy)
				c->index -= nlib;
		}
}

static int user_clauses(const struct dt_prog *p)
{
	int n = 0;

	for (int i = 0; i < p->nclauses; i++)
		n += !p->clauses[i]->library;
	return n;
}

/* The copies take what the checker found (record layout, actions). */
static void refresh_repeats(struct dt_session *s)
{
	for (int i = 0; i < s->nunits; i++)
		for (int j = 0; j < s->units[i]->nclauses; j++) {
			struct dt_clause *c = s->units[i]->clauses[j];
			const struct dt_clause *o = s->prog.clauses[c->index];
			struct dt_probe **pr = c->probes;
			int n = c->nprobes;

			if (c == o)
				continue;
			*c = *o;
			c->probes = pr;
			c->nprobes = n;
		}
}

static void match_probes(struct dt_session *s)
{
	struct dt_prog *p = &s->prog;

	s->src_matches = sd_calloc((size_t)s->nsrcs, sizeof(int));
	for (int i = 0; i < p->nclauses; i++) {
		struct dt_clause *cl = p->clauses[i];
		struct match_ctx m = { cl, s };

		if (cl->library)
			continue;

		for (int j = 0; j < cl->npds; j++) {
			int n = dt_probes_match(s->provs, &cl->pds[j],
						add_probe, &m);

			if (n == -ESRCH && s->macros.target <= 0 &&
			    !strcmp(cl->pds[j].prov, "pid0")) {
				/* dtrace(1): $target is 0, pid0 matches
				 * nothing; sonde says why */
				s->cc.why = "macro variable $target is 0: "
					    "$target needs -c CMD or -p PID";
				no_match(s, &cl->pds[j]);
				continue;
			}
			if (n == -EDOM) {
				enum dt_errtag tag;
				const char *msg = dt_provs_failure(s->provs,
								   &tag);

				if (tag == D_PROC_BADPID &&
				    s->macros.target <= 0)
					s->cc.why = "macro variable $target is "
						    "0: $target needs -c CMD "
						    "or -p PID";
				dt_cerror(&s->cc, &cl->pds[j].loc, tag, "%s",
					  msg);
			}
			if (n < 0)
				dt_error(&s->cc, &cl->pds[j].loc, "matching "
					 "%s: %s", cl->pds[j].text,
					 strerror(-n));
			if (!n && !s->opt.zdefs && !p->opt.zdefs)
				no_match(s, &cl->pds[j]);
		}
		for (int j = 0; j < cl->nprobes; j++) {
			struct dt_probe *pr = cl->probes[j];

			unit_add(unit_for(s, pr), pr, cl);
		}
		add_repeats(s, cl, m.mult);
		free(m.mult);
	}
	/* "matched N probes", per source, as dtrace-utils counts it
	 * (dtrace_program_exec): each clause's probes, a probe two clauses
	 * enable counted twice. */
	for (int k = 0; k < s->nsrcs; k++) {
		int n = 0;

		for (int c = 0; c < p->nclauses; c++)
			if (p->clauses[c]->loc.src == &s->srcs[k])
				n += p->clauses[c]->nmatches;
		s->src_matches[k] = n;
	}
}

/* Number the maps of the variables that need one. */
static void number_maps(struct dt_session *s)
{
	for (struct dt_var *v = s->prog.vars; v; v = v->next) {
		if (v->scope != DT_SELF && v->scope != DT_ARRAY &&
		    v->scope != DT_AGGVAR)
			continue;
		if (!v->assigned && v->scope != DT_AGGVAR && v->scope != DT_SELF)
			continue;
		v->map = s->nvarmaps;
		s->varmaps = sd_realloc(s->varmaps, sizeof(*s->varmaps) *
					(s->nvarmaps + 1));
		s->varmaps[s->nvarmaps++] = v;
	}
}

static int64_t realtime_offset(void)
{
	struct timespec rt, mono;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return ((int64_t)rt.tv_sec - mono.tv_sec) * 1000000000ll +
	       (rt.tv_nsec - mono.tv_nsec);
}

/* Parse one program (a -s file, a -n text): as dtrace(1) compiles each
 * separately, each must use the last macro argument given (else
 * "extraneous argument"), unless -x argref. */
static void parse_program(struct dt_session *s, const struct dt_src *src)
{
	struct dt_macros *m = &s->macros;

	if (m->argc > 0)
		m->used = dt_alloc(&s->cc.arena, (size_t)m->argc);
	dt_parse(&s->cc, &s->prog, src);
	if (m->argc > 1 && !s->prog.opt.argref && !m->used[m->argc - 1]) {
		const char *end = src->text + src->len;
		struct dt_loc at = { src, 1, 1, NULL };

		for (const char *c = src->text; c < end; c++)
			at.line += *c == '\n';
		dt_cerror(&s->cc, &at, D_MACRO_UNUSED, "extraneous argument "
			  "'%s' ($%d is not referenced)", m->argv[m->argc - 1],
			  m->argc - 1);
	}
	m->used = NULL;
}

static int is_dfile(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 2 && !strcmp(d->d_name + n - 2, ".d");
}

/* -L dir, -x libdir: the D library files (*.d) of each directory, in
 * name order, read before the program's sources, as dtrace-utils loads
 * them (dt_load_libs_dir; a directory that cannot be read is skipped).
 * A library declares (types, inlines, translators, variables); its
 * clauses are checked with the program but never enabled, as
 * dtrace-utils compiles a library without running it. */
static void read_libraries(struct dt_session *s)
{
	if (s->libs_read)
		return;
	s->libs_read = true;
	for (int i = 0; i < s->opt.nlibdirs; i++) {
		struct dirent **ents;
		int n = scandir(s->opt.libdirs[i], &ents, is_dfile, alphasort);

		for (int j = 0; j < n; j++) {
			char path[PATH_MAX];
			size_t len;
			char *t;

			snprintf(path, sizeof(path), "%s/%s",
				 s->opt.libdirs[i], ents[j]->d_name);
			t = sd_read_file(path, &len);
			free(ents[j]);
			if (!t)
				continue;
			s->libs = sd_realloc(s->libs, sizeof(*s->libs) *
					     (size_t)(s->nlibs + 1));
			s->libs[s->nlibs++] = (struct dt_src){
				.name = sd_strdup(path), .text = t, .len = len,
				.is_file = true, .is_library = true,
				.spec = 'n' };
		}
		if (n >= 0)
			free(ents);
	}
}

/* The library files, then the sources. */
static void parse_all(struct dt_session *s)
{
	read_libraries(s);
	dt_parse_libs(s);
	for (int i = 0; i < s->nsrcs; i++) {
		s->cc.cur = &s->srcs[i];
		parse_program(s, &s->srcs[i]);
	}
}

int dt_compile(struct dt_session *s)
{
	struct dt_prog *p = &s->prog;
	struct dt_cg g = { 0 };
	volatile int max_rec = 0;

	memset(p, 0, sizeof(*p));
	p->opt = s->opt;
	p->macros = &s->macros;
	s->cc.status = 0;
	s->cc.hint = NULL;
	s->cc.why = NULL;
	if (setjmp(s->cc.jmp)) {
		dt_cg_free(&g);
		return s->cc.status ? s->cc.status : SD_EXIT_USAGE;
	}
	parse_all(s);
	if (!user_clauses(p)) {
		dt_check_inlines(&s->cc, p);
		/* -x empty: nothing to trace, which the caller reports */
		if (p->opt.empty)
			return 0;
		const struct dt_src *last = s->nsrcs ? &s->srcs[s->nsrcs - 1] :
					    NULL;
		struct dt_loc eof = { last, 1, 0, NULL };

		for (size_t i = 0; last && i < last->len; i++)
			eof.line += last->text[i] == '\n';
		dt_cerror(&s->cc, last ? &eof : NULL, D_EMPTY, "empty D program "
			  "translation unit");
	}
	/* Probes first: args[] is typed by the providers of the probes. */
	match_probes(s);
	dt_check(&s->cc, p);
	refresh_repeats(s);
	drop_library_clauses(s);
	number_maps(s);
	for (int i = 0; i < p->nclauses; i++)
		if (p->clauses[i]->rec_size > max_rec)
			max_rec = p->clauses[i]->rec_size;
	p->max_rec = max_rec;
	g.cc = &s->cc;
	g.p = p;
	g.provs = s->provs;
	p->this_off = DT_SCR_THIS;
	int top = (DT_SCR_THIS + p->this_size + 7) & ~7;

	if (p->uses_strtok) {
		p->strtok_off = top;
		top += (int)sizeof(struct dt_strtok) +
		       ((dt_str_bytes(p) + 7) & ~7);
	}
	if (p->uses_alloca) {
		p->alloca_off = top;
		top += (int)sizeof(struct dt_alloca) +
		       (int)((p->opt.scratchsize + 7) & ~7ull);
	}
	g.rec_base = top;
	g.temp_base = g.rec_base + ((max_rec + 7) & ~7);
	g.temp_max = g.temp_base;
	g.wall_offset = realtime_offset();
	if (p->uses_ppid || p->uses_vtimestamp) {
		g.off_real_parent = dt_btf_member_offset("task_struct",
							 "real_parent");
		g.off_tgid = dt_btf_member_offset("task_struct", "tgid");
		g.off_sum_exec = dt_btf_member_offset("task_struct",
						      "se.sum_exec_runtime");
		if (g.off_real_parent < 0 || g.off_tgid < 0 ||
		    g.off_sum_exec < 0)
			dt_error(&s->cc, NULL, "ppid and vtimestamp need the "
				 "kernel's BTF to find task_struct's fields: "
				 "%s", sbpf_feature_missing(SBPF_BTF));
	}
	for (int i = 0; i < s->nunits; i++)
		dt_cg_unit(&g, s->units[i]);
	s->names_prov = g.names_prov;
	s->need_stacks = g.need_stacks;
	s->scratch_size = (g.temp_max + 7) & ~7;
	/* bcopy() and copyinto() write at a checked offset of up to
	 * scratchsize with a checked size of up to scratchsize: the verifier
	 * wants room for both maxima past the alloca() memory */
	if (p->uses_alloca) {
		int need = p->alloca_off + (int)sizeof(struct dt_alloca) +
			   2 * (int)p->opt.scratchsize;

		if (s->scratch_size < need)
			s->scratch_size = (need + 7) & ~7;
	}
	dt_cg_free(&g);
	return 0;
}

char *dt_compile_message(const struct dt_session *s)
{
	const struct dt_src *src = s->cc.loc.src ? s->cc.loc.src : s->cc.cur;
	char *text = dt_error_text(&s->cc, s->prog.opt.errtags ||
				   s->opt.errtags);

	/* an error in a library is the program's (dtrace-utils loads the
	 * libraries when it compiles it), at "file", line N */
	if (src && src->is_library && s->nsrcs)
		src = &s->srcs[0];
	struct sbuf sb;

	sbuf_init(&sb);
	if (src && src->is_file)
		sbuf_printf(&sb, "dtrace: failed to compile script %s: %s\n",
			    src->name, text);
	else if (src)
		sbuf_printf(&sb, "dtrace: invalid probe specifier %.*s: %s\n",
			    (int)src->len, src->text, text);
	else
		sbuf_printf(&sb, "dtrace: %s\n", text);
	if (s->cc.why)
		sbuf_printf(&sb, "dtrace: %s\n", s->cc.why);
	free(text);
	return sbuf_steal(&sb);
}

void dt_session_free(struct dt_session *s)
{
	for (int i = 0; i < s->nunits; i++) {
		struct dt_unit *u = s->units[i];

		free(u->probes);
		free(u->clauses);
		free(u->insns);
		free(u->locs);
		free(u->fds);
		free(u);
	}
	free(s->units);
	for (int i = 0; i < s->prog.nclauses; i++)
		free(s->prog.clauses[i]->probes);
	free(s->prog.clauses);
	free(s->prog.rodata);
	free(s->varmaps);
	free(s->map_fds);
	free(s->printed);
	free(s->normal);
	free(s->src_matches);
	for (int i = 0; i < s->nlibs; i++) {
		free((char *)s->libs[i].name);
		free((char *)s->libs[i].text);
	}
	free(s->libs);
	for (int i = 0; i < s->nsrcs; i++) {
		free((char *)s->srcs[i].name);
		free((char *)s->srcs[i].text);
	}
	free(s->srcs);
	dt_provs_free(s->provs);
	free(s->cc.msg);
	free(s->cc.text);
	dt_options_free(&s->opt);
	dt_arena_free(&s->cc.arena);
	memset(s, 0, sizeof(*s));
}

struct list_ctx {
	FILE *f;
	uint8_t *seen;
	size_t cap;
	bool verbose;		/* -lv */
};

/* -lv: dtrace(1)'s print_probe_info. */
static void list_verbose(FILE *f, struct dt_probe *p)
{
	const char *d[3], *a[3];
	char buf[128];
	int n = 0;

	dt_probe_attrs(p, d, a);
	fprintf(f, "\n\tProbe Description Attributes\n"
		"\t\tIdentifier Names: %s\n\t\tData Semantics:   %s\n"
		"\t\tDependency Class: %s\n", d[0], d[1], d[2]);
	fprintf(f, "\n\tArgument Attributes\n"
		"\t\tIdentifier Names: %s\n\t\tData Semantics:   %s\n"
		"\t\tDependency Class: %s\n", a[0], a[1], a[2]);
	fprintf(f, "\n\tArgument Types\n");
	for (struct dt_type t; p->prov->args_type &&
	     p->prov->args_type(p, n, &t); n++)
		fprintf(f, "\t\targs[%d]: %s\n", n,
			dt_type_name(&t, buf, sizeof(buf)));
	if (!n)
		fprintf(f, "\t\tNone\n");
	fprintf(f, "\n");
}

static int list_probe(struct dt_probe *p, void *arg)
{
	struct list_ctx *l = arg;

	if (p->id >= l->cap) {
		size_t cap = l->cap;

		sd_grow(&l->seen, &cap, p->id + 1, 1);
		memset(l->seen + l->cap, 0, cap - l->cap);
		l->cap = cap;
	}
	if (!l->seen[p->id]) {
		l->seen[p->id] = 1;
		fprintf(l->f, "%5u %10s %17s %33s %s\n", p->id,
			dt_probe_field(p, 0),
			p->mod, p->func, p->name);
		if (l->verbose)
			list_verbose(l->f, p);
	}
	return 1;
}

int dt_list(struct dt_session *s, FILE *f, char **msg)
{
	struct dt_prog *p = &s->prog;
	struct list_ctx l = { f, NULL, 0, s->verbose };
	struct dt_pdesc all = { .text = "", .prov = "", .mod = "", .func = "",
				.name = "" };

	memset(p, 0, sizeof(*p));
	p->opt = s->opt;
	p->macros = &s->macros;
	if (setjmp(s->cc.jmp)) {
		/* the caller reports it as dtrace(1) does (compile_error) */
		*msg = NULL;
		free(l.seen);
		return s->cc.status ? s->cc.status : SD_EXIT_USAGE;
	}
	parse_all(s);
	fprintf(f, "%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE",
		"FUNCTION", "NAME");
	if (!s->nsrcs)
		dt_probes_match(s->provs, &all, list_probe, &l);
	/* dtrace(1)'s list_stmt: a description that matches nothing is
	 * reported and the listing goes on with the next one; the status
	 * stays 0 (an empty answer to a query, not an error). */
	struct sbuf sb;

	int status = 0;

	sbuf_init(&sb);
	drop_library_clauses(s);
	for (int i = 0; i < p->nclauses; i++)
		for (int j = 0; j < p->clauses[i]->npds; j++) {
			struct dt_pdesc *pd = &p->clauses[i]->pds[j];
			char why[512];

			if (dt_probes_match(s->provs, pd, list_probe, &l) > 0)
				continue;
			sbuf_printf(&sb, "dtrace: failed to match %s:%s:%s:%s: "
				    "No probe matches description\n", pd->prov,
				    pd->mod, pd->func, pd->name);
			/* A probe this kernel has but cannot trace is not
			 * an empty answer: why, and a failure (scripts see
			 * it too). A function the kernel does not have
			 * matches nothing, as with dtrace(1). */
			if (!strcmp(pd->prov, "fbt") &&
			    fbt_missing(why, sizeof(why)) &&
			    dt_fbt_kernel_has(pd)) {
				sbuf_printf(&sb, "dtrace: %s\n", why);
				status = SD_EXIT_FAIL;
			}
		}
	*msg = sb.len ? sbuf_steal(&sb) : NULL;
	sbuf_free(&sb);
	free(l.seen);
	return status;
}
