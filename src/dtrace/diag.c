// SPDX-License-Identifier: GPL-2.0-only
/* diag — the compiler's arena and its diagnostics: every pass allocates
 * from one arena freed at the end, and an error unwinds (longjmp) to the
 * caller of the pass with "file:line:col: message", the source line and a
 * caret under the column. */
#include "ast.h"
#include "../lib/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dt_chunk {
	struct dt_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

#define CHUNK (64 * 1024)

void *dt_alloc(struct dt_arena *a, size_t n)
{
	struct dt_chunk *c = a->head;

	n = (n + 15) & ~(size_t)15;
	if (!c || c->used + n > c->cap) {
		size_t cap = n > CHUNK ? n : CHUNK;

		c = sd_malloc(sizeof(*c) + cap);
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;

	c->used += n;
	memset(p, 0, n);
	return p;
}

char *dt_strndup(struct dt_arena *a, const char *s, size_t n)
{
	char *d = dt_alloc(a, n + 1);

	memcpy(d, s, n);
	return d;
}

char *dt_strdup(struct dt_arena *a, const char *s)
{
	return dt_strndup(a, s, strlen(s));
}

void dt_arena_free(struct dt_arena *a)
{
	struct dt_chunk *c = a->head, *n;

	for (; c; c = n) {
		n = c->next;
		free(c);
	}
	a->head = NULL;
}

char *dt_format_diag(const struct dt_loc *loc, const char *msg)
{
	struct sbuf sb;
	const char *text, *ls, *le;
	int line;

	sbuf_init(&sb);
	if (!loc || !loc->src || loc->line <= 0) {
		sbuf_printf(&sb, "%s\n", msg);
		return sbuf_steal(&sb);
	}
	sbuf_printf(&sb, "%s:%d:%d: %s\n", loc->src->name, loc->line, loc->col,
		    msg);
	text = loc->src->text;
	ls = text;
	for (line = 1; line < loc->line && ls < text + loc->src->len; ls++)
		if (*ls == '\n')
			line++;
	le = ls;
	while (le < text + loc->src->len && *le != '\n')
		le++;
	sbuf_printf(&sb, "    %.*s\n    ", (int)(le - ls), ls);
	/* Keep tabs so the caret lines up under tab-indented source. */
	for (int i = 1; i < loc->col && ls + i - 1 < le; i++)
		sbuf_putc(&sb, ls[i - 1] == '\t' ? '\t' : ' ');
	sbuf_puts(&sb, "^\n");
	return sbuf_steal(&sb);
}

void dt_error(struct dt_cc *cc, const struct dt_loc *loc, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	free(cc->msg);
	cc->msg = dt_format_diag(loc, msg);
	if (!cc->status)
		cc->status = SD_EXIT_USAGE;
	longjmp(cc->jmp, 1);
}
