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

static _Noreturn void verror(struct dt_cc *cc, const struct dt_loc *loc,
			     enum dt_errtag tag, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	free(cc->msg);
	free(cc->text);
	cc->msg = dt_format_diag(loc, msg);
	cc->text = sd_strdup(msg);
	cc->tag = tag;
	if (loc && loc->src)
		cc->loc = *loc;
	else
		cc->loc = (struct dt_loc){ cc->cur, 0, 0 };
	if (!cc->status)
		cc->status = SD_EXIT_FAIL;
	longjmp(cc->jmp, 1);
}

void dt_error(struct dt_cc *cc, const struct dt_loc *loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(cc, loc, D_UNKNOWN, fmt, ap);
}

void dt_cerror(struct dt_cc *cc, const struct dt_loc *loc, enum dt_errtag tag,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(cc, loc, tag, fmt, ap);
}

static const char *const tag_names[] = {
#define DT_ERRTAG_NAME(t) #t,
	DT_ERRTAGS(DT_ERRTAG_NAME)
#undef DT_ERRTAG_NAME
};

const char *dt_errtag_name(enum dt_errtag tag)
{
	return (unsigned)tag < D_NTAGS ? tag_names[tag] : "D_UNKNOWN";
}

char *dt_error_text(const struct dt_cc *cc, bool errtags)
{
	struct sbuf sb;
	const struct dt_src *src = cc->loc.src;
	int line = cc->loc.line > 0 && cc->loc.dline > 0 ? cc->loc.dline :
		   cc->loc.line;

	sbuf_init(&sb);
	if (errtags && cc->tag != D_UNKNOWN)
		sbuf_printf(&sb, "[%s] ", dt_errtag_name(cc->tag));
	/* dtrace(1) numbers the lines of a script file, not of -n's text */
	if (cc->loc.file && line > 0)
		sbuf_printf(&sb, "\"%s\", line %d: ", cc->loc.file, line);
	else if (src && src->is_library && line > 0)
		sbuf_printf(&sb, "\"%s\", line %d: ", src->name, line);
	else if (src && src->is_file && line > 0)
		sbuf_printf(&sb, "line %d: ", line);
	else if (src && !src->is_file && cc->region)
		sbuf_printf(&sb, "in %s: ", cc->region);
	sbuf_puts(&sb, cc->text ? cc->text : "compilation failed");
	return sbuf_steal(&sb);
}
