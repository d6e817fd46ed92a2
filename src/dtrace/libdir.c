// SPDX-License-Identifier: GPL-2.0-only
/* libdir — the order D library directories (-L, -x libdir; read by
 * compile.c) are compiled in, as dtrace-utils' dt_load_libs_dir orders
 * them: the .d files of a directory go before the program in the order
 * their "#pragma D depends_on library" lines make (a topological sort of
 * the directory's files); a dependency that is not in the directory or a
 * cycle is an error; a library whose own dependencies are absent (a
 * module, a provider, a library that was skipped) is skipped without a
 * word, as dtrace(1) does. With DTRACE_DEBUG set, the order is reported
 * on stderr in libdtrace's words ("library PATH sorted (START/FINISH)"). */
#include "dtrace.h"
#include "../lib/util.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct dlib {
	const struct dt_src *src;	/* name: its path */
	char **deps;		/* paths of the libraries it depends on */
	int ndeps;
	int *dependents;	/* indexes of the libraries depending on it */
	int ndependents;
	int start, finish;	/* depth-first visit times */
};

static int lib_find(struct dlib *libs, int n, const char *path)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(libs[i].src->name, path))
			return i;
	return -1;
}

/* dt_topo_sort: a depth-first walk along the dependents; a library is
 * put at the head of the order when its walk finishes. */
static void topo_visit(struct dlib *libs, int i, int *count, int *order,
		       int *norder, bool debug)
{
	struct dlib *l = &libs[i];

	l->start = ++*count;
	for (int j = 0; j < l->ndependents; j++)
		if (!libs[l->dependents[j]].start)
			topo_visit(libs, l->dependents[j], count, order, norder,
				   debug);
	l->finish = ++*count;
	order[(*norder)++] = i;
	if (debug)
		fprintf(stderr, "libdtrace DEBUG %ld: library %s sorted "
			"(%d/%d)\n", (long)time(NULL), l->src->name, l->start,
			l->finish);
}

/* Compile one library; false when it is skipped (D_PRAGMA_DEPEND). A
 * library declares (types, inlines, translators, variables); its clauses
 * are checked, never enabled. */
static bool load_one(struct dt_session *s, struct dlib *l)
{
	struct dt_cc *cc = &s->cc;
	int nc = s->prog.nclauses;
	jmp_buf outer;

	memcpy(outer, cc->jmp, sizeof(outer));
	if (setjmp(cc->jmp)) {
		memcpy(cc->jmp, outer, sizeof(outer));
		if (cc->tag != D_PRAGMA_DEPEND)
			longjmp(cc->jmp, 1);
		free(cc->msg);
		free(cc->text);
		cc->msg = cc->text = NULL;
		cc->status = 0;
		cc->tag = D_UNKNOWN;
		memset(&cc->loc, 0, sizeof(cc->loc));
		return false;
	}
	cc->cur = l->src;
	dt_parse(cc, &s->prog, l->src);
	memcpy(cc->jmp, outer, sizeof(outer));
	for (int c = nc; c < s->prog.nclauses; c++)
		s->prog.clauses[c]->library = true;	/* checked, not enabled */
	return true;
}

/* The n libraries of directory dir (srcs: their files, in name order). */
static void load_dir(struct dt_session *s, const char *dir,
		     const struct dt_src *srcs, int n)
{
	struct dt_cc *cc = &s->cc;
	struct dt_prog *p = &s->prog;
	struct dlib *libs;
	int count = 0, norder = 0, *order;
	bool debug = getenv("DTRACE_DEBUG") != NULL;

	libs = dt_alloc(&cc->arena, sizeof(*libs) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		libs[i].src = &srcs[i];
	/* the dependencies, by path in the same directory */
	for (int i = 0; i < n; i++) {
		char **names;
		int nnames;

		cc->cur = libs[i].src;
		dt_parse_lib_deps(cc, libs[i].src, &names, &nnames);
		libs[i].deps = dt_alloc(&cc->arena, sizeof(char *) *
					(size_t)(nnames + 1));
		for (int j = 0; j < nnames; j++) {
			char *d = dt_alloc(&cc->arena, strlen(dir) +
					   strlen(names[j]) + 2);

			sprintf(d, "%s/%s", dir, names[j]);
			libs[i].deps[libs[i].ndeps++] = d;
		}
	}
	cc->cur = NULL;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < libs[i].ndeps; j++) {
			int d = lib_find(libs, n, libs[i].deps[j]);
			struct dlib *dl;
			int *nd;

			if (d < 0)
				dt_cerror(cc, NULL, D_UNKNOWN, "Invalid library "
					  "dependency in %s: %s", libs[i].src->name,
					  libs[i].deps[j]);
			dl = &libs[d];
			nd = dt_alloc(&cc->arena, sizeof(int) *
				      (size_t)(dl->ndependents + 1));
			if (dl->ndependents)
				memcpy(nd, dl->dependents, sizeof(int) *
				       (size_t)dl->ndependents);
			nd[dl->ndependents++] = i;
			dl->dependents = nd;
		}
	order = dt_alloc(&cc->arena, sizeof(int) * (size_t)(n + 1));
	for (int i = 0; i < n; i++)
		if (!libs[i].start)
			topo_visit(libs, i, &count, order, &norder, debug);
	/* a dependent finishing after what it depends on: a cycle */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < libs[i].ndependents; j++)
			if (libs[libs[i].dependents[j]].finish >
			    libs[i].finish)
				dt_cerror(cc, NULL, D_UNKNOWN, "Cyclic dependency "
					  "detected: %s => %s", libs[i].src->name,
					  libs[libs[i].dependents[j]].src->name);
	/* compiled last-finished first: what is depended on comes first */
	for (int k = norder - 1; k >= 0; k--) {
		struct dlib *l = &libs[order[k]];

		if (!load_one(s, l))
			continue;
		const char **nl = dt_alloc(&cc->arena, sizeof(*nl) *
					   (size_t)(p->ndlibs + 1));

		if (p->ndlibs)
			memcpy(nl, p->dlibs, sizeof(*nl) * (size_t)p->ndlibs);
		nl[p->ndlibs++] = l->src->name;
		p->dlibs = nl;
	}
	cc->cur = NULL;
}

void dt_parse_libs(struct dt_session *s)
{
	for (int i = 0, j; i < s->nlibs; i = j) {
		const char *name = s->libs[i].name,
			   *slash = strrchr(name, '/');
		size_t dl = slash ? (size_t)(slash - name) : 0;
		char *dir = dt_strndup(&s->cc.arena, name, dl);

		for (j = i + 1; j < s->nlibs; j++)
			if (strncmp(s->libs[j].name, name, dl + 1) ||
			    strchr(s->libs[j].name + dl + 1, '/'))
				break;
		load_dir(s, dir, &s->libs[i], j - i);
	}
}
