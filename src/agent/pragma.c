// SPDX-License-Identifier: GPL-2.0-only
/* pragma — what a D script tells sonde agent about its metrics, in lines
 * the D compiler ignores (it ignores every #pragma but `#pragma D`):
 *
 *   #pragma sonde metric reads labels(comm, syscall) help("read calls")
 *   #pragma sonde metric @ name(node_reads) type(gauge)
 *
 * and Prometheus' rules for metric and label names, which names given
 * here or derived from a script are made to follow. */
#include "agent.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *sanitize(const char *s, bool colon)
{
	size_t n = strlen(s);
	char *out = sd_malloc(n + 2), *o = out;

	if (!n || isdigit((unsigned char)s[0]))
		*o++ = '_';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		*o++ = isalnum(c) || c == '_' || (colon && c == ':') ?
		       (char)c : '_';
	}
	*o = '\0';
	return out;
}

char *ag_metric_name(const char *s)
{
	return sanitize(s, true);
}

char *ag_label_name(const char *s)
{
	return sanitize(s, false);
}

struct cursor {
	const char *p;
	const char *path;
	int line;
	char *err;
	size_t len;
};

static int fail(struct cursor *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct cursor *c, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, c->len, "%s:%d: #pragma sonde: ", c->path,
			 c->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < c->len)
		vsnprintf(c->err + n, c->len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void blanks(struct cursor *c)
{
	while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r')
		c->p++;
}

/* An identifier-like word (letters, digits, '_', and ':' or '-' that the
 * name rules then replace); malloc'd, NULL when there is none. */
static char *word(struct cursor *c)
{
	const char *s;

	blanks(c);
	s = c->p;
	while (isalnum((unsigned char)*c->p) || *c->p == '_' || *c->p == ':' ||
	       *c->p == '-' || *c->p == '.')
		c->p++;
	return c->p > s ? sd_strndup(s, (size_t)(c->p - s)) : NULL;
}

/* "text" with \" and \\ escapes; malloc'd, NULL on a syntax error. */
static char *quoted(struct cursor *c)
{
	struct sbuf sb;

	blanks(c);
	if (*c->p != '"')
		return NULL;
	sbuf_init(&sb);
	for (c->p++; *c->p && *c->p != '"' && *c->p != '\n'; c->p++) {
		if (*c->p == '\\' && (c->p[1] == '"' || c->p[1] == '\\'))
			c->p++;
		sbuf_putc(&sb, *c->p);
	}
	if (*c->p != '"') {
		sbuf_free(&sb);
		return NULL;
	}
	c->p++;
	sbuf_putc(&sb, '\0');
	return sbuf_steal(&sb);
}

static bool expect(struct cursor *c, char ch)
{
	blanks(c);
	if (*c->p != ch)
		return false;
	c->p++;
	return true;
}

static void free_one(struct ag_pragma *p)
{
	free(p->agg);
	free(p->name);
	free(p->help);
	for (int i = 0; i < p->nlabels; i++)
		free(p->labels[i]);
	free(p->labels);
}

static int labels(struct cursor *c, struct ag_pragma *p)
{
	size_t cap = 0;

	p->nlabels = 0;
	if (!expect(c, '('))
		return fail(c, "labels: expected '(' and label names");
	blanks(c);
	if (*c->p == ')') {
		c->p++;
		return 0;
	}
	for (;;) {
		char *w = word(c), *l;

		if (!w)
			return fail(c, "labels: expected a label name");
		l = ag_label_name(w);
		free(w);
		if (!strncmp(l, "__", 2)) {
			fail(c, "label '%s': names starting with __ are "
			     "reserved by Prometheus", l);
			free(l);
			return -1;
		}
		if (!strcmp(l, "le") || !strcmp(l, "quantile")) {
			fail(c, "label '%s' is reserved for histogram buckets "
			     "and quantiles", l);
			free(l);
			return -1;
		}
		for (int i = 0; i < p->nlabels; i++)
			if (!strcmp(p->labels[i], l)) {
				fail(c, "label '%s' given twice", l);
				free(l);
				return -1;
			}
		sd_grow(&p->labels, &cap, (size_t)p->nlabels + 1,
			sizeof(*p->labels));
		p->labels[p->nlabels++] = l;
		if (expect(c, ')'))
			return 0;
		if (!expect(c, ','))
			return fail(c, "labels: expected ',' or ')'");
	}
}

/* After "#pragma sonde": "metric AGG clause...". */
static int one(struct cursor *c, struct ag_pragma *p)
{
	char *w = word(c);

	if (!w || strcmp(w, "metric")) {
		fail(c, "unknown directive '%s' (sonde agent knows "
		     "'metric')", w ? w : "");
		free(w);
		return -1;
	}
	free(w);
	blanks(c);
	/* "@" alone is the anonymous aggregation */
	if (*c->p == '@' && !isalnum((unsigned char)c->p[1]) &&
	    c->p[1] != '_') {
		c->p++;
		p->agg = sd_strdup("");
	} else {
		if (*c->p == '@')
			c->p++;
		p->agg = word(c);
		if (!p->agg)
			return fail(c, "metric: expected an aggregation name "
				    "(reads, @reads, or @ alone)");
	}
	if (*p->agg && !isalpha((unsigned char)p->agg[0]) && p->agg[0] != '_')
		return fail(c, "metric: '%s' is not an aggregation name",
			    p->agg);
	for (;;) {
		blanks(c);
		if (!*c->p || *c->p == '\n')
			return 0;
		if (!(w = word(c)))
			return fail(c, "unexpected '%.*s'",
				    (int)strcspn(c->p, " \t\r\n"), c->p);
		if (!strcmp(w, "labels")) {
			free(w);
			if (p->nlabels >= 0)
				return fail(c, "labels given twice");
			if (labels(c, p))
				return -1;
			continue;
		}
		if (!strcmp(w, "help") || !strcmp(w, "name") ||
		    !strcmp(w, "type")) {
			bool help = w[0] == 'h', type = w[0] == 't';
			char *arg;

			free(w);
			if (!expect(c, '('))
				return fail(c, "expected '(' after %s",
					    help ? "help" : type ? "type" :
					    "name");
			arg = help ? quoted(c) : word(c);
			if (!arg || !expect(c, ')')) {
				free(arg);
				return fail(c, help ? "help: expected "
					    "(\"text\")" : type ? "type: "
					    "expected (counter) or (gauge)" :
					    "name: expected (metric_name)");
			}
			if (help) {
				if (p->help) {
					free(arg);
					return fail(c, "help given twice");
				}
				p->help = arg;
			} else if (type) {
				if (p->type >= 0 || (strcmp(arg, "counter") &&
						     strcmp(arg, "gauge"))) {
					fail(c, "type: '%s' (counter or gauge, "
					     "once)", arg);
					free(arg);
					return -1;
				}
				p->type = arg[0] == 'c' ? AG_COUNTER : AG_GAUGE;
				free(arg);
			} else {
				if (p->name) {
					free(arg);
					return fail(c, "name given twice");
				}
				p->name = ag_metric_name(arg);
				free(arg);
			}
			continue;
		}
		fail(c, "unknown clause '%s' (labels, help, name, type)", w);
		free(w);
		return -1;
	}
}

int ag_pragmas_parse(const char *path, const char *text,
		     struct ag_pragma **out, int *n, char *err, size_t len)
{
	struct cursor c = { .path = path, .line = 1, .err = err, .len = len };
	struct ag_pragma *v = NULL;
	size_t cap = 0;
	bool comment = false;
	int count = 0;

	*out = NULL;
	*n = 0;
	for (const char *line = text; line && *line; c.line++) {
		const char *eol = strchr(line, '\n'), *s = line;
		const char *next = eol ? eol + 1 : NULL;

		/* skip what block comments hide (strings are not looked at:
		 * a pragma line has none before its '#') */
		while (s < (eol ? eol : s + strlen(s))) {
			const char *e = eol ? eol : s + strlen(s);

			if (comment) {
				const char *end = strstr(s, "*/");

				if (!end || end >= e) {
					s = e;
					break;
				}
				comment = false;
				s = end + 2;
				continue;
			}
			while (s < e && (*s == ' ' || *s == '\t'))
				s++;
			if (s + 1 < e && s[0] == '/' && s[1] == '*') {
				comment = true;
				continue;
			}
			break;
		}
		if (!comment && s == line + strspn(line, " \t") &&
		    !strncmp(s, "#pragma", 7)) {
			struct ag_pragma p = { .nlabels = -1, .type = -1,
					       .line = c.line };
			char *w;

			c.p = s + 7;
			w = word(&c);
			if (w && !strcmp(w, "sonde")) {
				if (one(&c, &p)) {
					free(w);
					free_one(&p);
					ag_pragmas_free(v, count);
					return -1;
				}
				for (int i = 0; i < count; i++)
					if (!strcmp(v[i].agg, p.agg)) {
						fail(&c, "@%s described twice "
						     "(line %d)", p.agg,
						     v[i].line);
						free(w);
						free_one(&p);
						ag_pragmas_free(v, count);
						return -1;
					}
				sd_grow(&v, &cap, (size_t)count + 1,
					sizeof(*v));
				v[count++] = p;
			}
			free(w);
		} else if (!comment) {
			/* a block comment opened later on the line */
			const char *e = eol ? eol : s + strlen(s);

			for (const char *q = s; q + 1 < e; q++) {
				if (q[0] == '/' && q[1] == '/')
					break;
				if (q[0] == '/' && q[1] == '*') {
					const char *end = strstr(q + 2, "*/");

					if (!end || end >= e) {
						comment = true;
						break;
					}
					q = end + 1;
				}
			}
		}
		line = next;
	}
	*out = v;
	*n = count;
	return 0;
}

void ag_pragmas_free(struct ag_pragma *p, int n)
{
	for (int i = 0; i < n; i++)
		free_one(&p[i]);
	free(p);
}
