// SPDX-License-Identifier: GPL-2.0-only
/* fmt — printf-style format strings of D. See fmt.h. */
#include "fmt.h"
#include "../lib/demangle.h"
#include "../lib/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum dt_fmt_arg dt_fmt_wants(char conv)
{
	switch (conv) {
	case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
	case 'c': case 'p': case 'Y': case 'T': case 'a': case 'A':
		return FMT_INT;
	case 's': case 'S':
		return FMT_STR;
	case 'k':
		return FMT_STACK;
	case 'e': case 'E': case 'f': case 'g': case 'G':
		return FMT_FLOAT;
	default:
		return FMT_NONE;
	}
}

/* dtrace-utils' conversion names (dt_printf.c's table): the length
 * modifiers and the letter. */
static const char *const dtrace_convs[] = {
	"a", "A", "c", "C", "d", "e", "E", "f", "g", "G", "hd", "hi", "ho",
	"hu", "hx", "hX", "i", "k", "lc", "ld", "li", "lo", "lu", "ls", "lx",
	"lX", "lld", "lli", "llo", "llu", "llx", "llX", "Le", "LE", "Lf",
	"Lg", "LG", "o", "p", "s", "S", "T", "u", "wc", "ws", "x", "X", "Y",
};

/* Whether name is a conversion: DTrace's, or (sonde) C's other integer
 * length modifiers (hh, j, z, t, q) before d i u o x X. */
static bool known_conv(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(dtrace_convs); i++)
		if (!strcmp(dtrace_convs[i], name))
			return true;
	return n >= 2 && strchr("diuoxX", name[n - 1]) &&
	       strspn(name, "hljztq") == n - 1;
}

/* Parsed as dtrace-utils' dt_printf_create does, with its errors (the
 * conversion counted from 1, "%%" included). */
int dt_fmt_parse(const char *fmt, struct dt_fmt *out, char *err, size_t len)
{
	const char *s = fmt, *lit = fmt;
	size_t cap = 0;
	int num = 0;

	memset(out, 0, sizeof(*out));
	for (;;) {
		struct dt_conv c = { .width = -1, .prec = -1 };
		int nf = 0, nn = 0;
		bool dot = false;

		while (*s && *s != '%')
			s++;
		if (*s == '%' && s[1] == '%') {
			/* Keep "%%" in the literal; the printer halves it. */
			num++;
			s += 2;
			continue;
		}
		c.text = lit;
		c.text_len = (size_t)(s - lit);
		if (!*s) {
			sd_grow(&out->convs, &cap, out->n + 1, sizeof(c));
			out->convs[out->n++] = c;
			return 0;
		}
		num++;
		s++;
		for (;; s++) {
			char ch = *s;

			if (ch >= '0' && ch <= '9') {
				int v;

				if (!dot && ch == '0' && c.width < 0 &&
				    !strchr(c.flags, '0')) {
					if (nf < (int)sizeof(c.flags) - 1)
						c.flags[nf++] = '0';
					continue;
				}
				v = (int)strtol(s, (char **)&s, 10);
				s--;
				if (dot)
					c.prec = v;
				else
					c.width = v;
				continue;
			}
			if (ch && strchr("-+ #'", ch)) {
				if (nf < (int)sizeof(c.flags) - 1 &&
				    !strchr(c.flags, ch))
					c.flags[nf++] = ch;
				continue;
			}
			if (ch == '*') {
				if (dot ? c.prec == -2 : c.width == -2) {
					snprintf(err, len, "format conversion "
						 "#%d has more than one '*' "
						 "specified for the output %s",
						 num, dot ? "precision" :
						 "width");
					goto fail;
				}
				if (dot)
					c.prec = -2;
				else
					c.width = -2;
				out->nargs++;
				continue;
			}
			if (ch == '.') {
				if (dot) {
					snprintf(err, len, "format conversion "
						 "#%d has more than one '.' "
						 "specified", num);
					goto fail;
				}
				dot = true;
				c.prec = 0;
				continue;
			}
			if (ch == '?') {
				c.width = 16;
				continue;
			}
			if (ch == '@') {
				c.agg = true;
				continue;
			}
			if (ch == '$') {
				snprintf(err, len, "format conversion #%d uses "
					 "unsupported positional format (%%n$)",
					 num);
				goto fail;
			}
			if (ch == '%') {
				snprintf(err, len, "format conversion #%d cannot "
					 "be combined with other format flags: "
					 "%%%%", num);
				goto fail;
			}
			if (ch && strchr("hlLwjztq", ch)) {
				if (nn < (int)sizeof(c.name) - 2)
					c.name[nn++] = ch;
				continue;
			}
			if (!ch) {
				if (nn && strspn(c.name, "jztq") == (size_t)nn)
					snprintf(err, len, "format conversion "
						 "#%d is undefined: %%%s", num,
						 c.name);
				else
					snprintf(err, len, "format conversion "
						 "#%d name expected before end "
						 "of format string", num);
				goto fail;
			}
			c.name[nn++] = ch;
			c.name[nn] = '\0';
			c.conv = ch;
			s++;
			break;
		}
		if (!known_conv(c.name)) {
			snprintf(err, len, "format conversion #%d is undefined: "
				 "%%%s", num, c.name);
			goto fail;
		}
		if (dt_fmt_wants(c.conv) == FMT_NONE) {
			snprintf(err, len, "not supported: %%%s conversion in "
				 "this version", c.name);
			goto fail;
		}
		if (!c.agg)
			out->nargs++;
		c.num = num;
		sd_grow(&out->convs, &cap, out->n + 1, sizeof(c));
		out->convs[out->n++] = c;
		lit = s;
	}
fail:
	dt_fmt_free(out);
	return -1;
}

void dt_fmt_free(struct dt_fmt *f)
{
	free(f->convs);
	f->convs = NULL;
	f->n = 0;
}

static void put_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fputc(s[i], f);
		if (s[i] == '%' && i + 1 < n && s[i + 1] == '%')
			i++;
	}
}

static int64_t sval(const struct dt_fmt_val *v)
{
	switch (v->size) {
	case 1: return (int8_t)v->v;
	case 2: return (int16_t)v->v;
	case 4: return (int32_t)v->v;
	default: return (int64_t)v->v;
	}
}

static uint64_t uval(const struct dt_fmt_val *v)
{
	switch (v->size) {
	case 1: return (uint8_t)v->v;
	case 2: return (uint16_t)v->v;
	case 4: return (uint32_t)v->v;
	default: return v->v;
	}
}

/* %S: the string with C's escapes for what does not print. */
static char *escaped(const char *s)
{
	struct sbuf sb;

	sbuf_init(&sb);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '\n': sbuf_puts(&sb, "\\n"); break;
		case '\t': sbuf_puts(&sb, "\\t"); break;
		case '\r': sbuf_puts(&sb, "\\r"); break;
		case '\\': sbuf_puts(&sb, "\\\\"); break;
		case '"': sbuf_puts(&sb, "\\\""); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				sbuf_printf(&sb, "\\%03o", c);
			else
				sbuf_putc(&sb, (char)c);
		}
	}
	if (!sb.buf)
		sbuf_putc(&sb, '\0');
	return sbuf_steal(&sb);
}

/* %k: a newline, then each frame on a line of its own, as dtrace(1)'s
 * pfprint_stack: %-Nk indents the frames by N (instead of stackindent),
 * %Nk right-aligns each in N columns. */
static void print_stack(FILE *f, const struct dt_conv *c, int width,
			const char *frames)
{
	bool left = strchr(c->flags, '-') != NULL;

	fputc('\n', f);
	while (*frames) {
		const char *nl = strchr(frames, '\n'), *sym = frames;
		int n, indent;

		if (!nl)
			nl = frames + strlen(frames);
		while (sym < nl && *sym == ' ')
			sym++;
		n = (int)(nl - sym);
		indent = left ? (width > 0 ? width : 0) : (int)(sym - frames);
		fprintf(f, "%*s%*.*s\n", indent, "", left ? 0 : width, n, sym);
		frames = *nl ? nl + 1 : nl;
	}
}

void dt_fmt_print(FILE *f, const struct dt_fmt *fmt,
		  const struct dt_fmt_val *vals, int nvals,
		  const struct dt_fmt_val *aggvals, int naggs)
{
	int ai = 0, cur = 0;

	for (int i = 0; i < fmt->n; i++) {
		const struct dt_conv *c = &fmt->convs[i];
		const struct dt_fmt_val *v;
		char spec[48], *p = spec;
		int width = c->width, prec = c->prec;

		put_text(f, c->text, c->text_len);
		if (!c->conv)
			break;
		if (width == -2)
			width = ai < nvals ? (int)sval(&vals[ai++]) : 0;
		if (prec == -2)
			prec = ai < nvals ? (int)sval(&vals[ai++]) : -1;
		if (c->agg) {
			v = aggvals && naggs ? &aggvals[cur] : NULL;
			if (cur < naggs - 1)
				cur++;
		}
		else
			v = ai < nvals ? &vals[ai++] : NULL;
		if (!v)
			continue;
		if (v->print) {
			v->print(f, v->ctx);
			continue;
		}
		*p++ = '%';
		p = stpcpy(p, c->flags);
		/* as dtrace-utils' dt_printf_format: a negative width (from
		 * '*') left-justifies, a zero width or precision is none
		 * ("%.0s" prints the whole string) */
		if (width < -2 || (c->width == -2 && width < 0)) {
			if (!strchr(c->flags, '-'))
				*p++ = '-';
			width = -width;
		}
		if (width > 0)
			p += sprintf(p, "%d", width);
		if (prec > 0)
			p += sprintf(p, ".%d", prec);
		switch (c->conv) {
		case 'd': case 'i':
			/* as dtrace-utils' pfcheck_dint: an unsigned value
			 * prints as %u */
			if (!v->is_str && !v->sign) {
				strcpy(p, "llu");
				fprintf(f, spec, (unsigned long long)uval(v));
				break;
			}
			strcpy(p, "lld");
			fprintf(f, spec, (long long)(v->is_str ? 0 : sval(v)));
			break;
		case 'u': case 'o': case 'x': case 'X':
			p[0] = 'l';
			p[1] = 'l';
			p[2] = c->conv;
			p[3] = '\0';
			fprintf(f, spec, (unsigned long long)uval(v));
			break;
		case 'c':
			strcpy(p, "c");
			fprintf(f, spec, (int)(unsigned char)v->v);
			break;
		case 'p':
			/* DTrace prints pointers as 0x-prefixed hex. */
			strcpy(p, "llx");
			fputs("0x", f);
			fprintf(f, spec, (unsigned long long)uval(v));
			break;
		case 's': case 'a': case 'A':	/* %a, %A: named by consume.c */
			strcpy(p, "s");
			fprintf(f, spec, v->is_str ? v->s : "");
			break;
		case 'k':
			print_stack(f, c, width, v->is_str ? v->s : "");
			break;
		case 'e': case 'E': case 'f': case 'g': case 'G': {
			/* a float or a double, as dtrace-utils' pfprint_fp:
			 * the value's bits, read by its size */
			double d;

			if (v->size == 4) {
				uint32_t b32 = (uint32_t)v->v;
				float fl;

				memcpy(&fl, &b32, sizeof(fl));
				d = fl;
			} else {
				memcpy(&d, &v->v, sizeof(d));
			}
			p[0] = c->conv;
			p[1] = '\0';
			fprintf(f, spec, d);
			break;
		}
		case 'S': {
			char *e = escaped(v->is_str ? v->s : "");

			strcpy(p, "s");
			fprintf(f, spec, e);
			free(e);
			break;
		}
		case 'Y':
		case 'T': {
			/* %Y: walltimestamp, "2026 Nov 22 07:28:39" (UTC as
			 * DTrace prints it on a machine set to UTC); %T: RFC
			 * 822 time, as dtrace-utils' pfprint_time822: "Sun,
			 * 25 Jan 2004 13:00:00 PST", its year the ISO 8601
			 * week-based one (%G) as there: 0 in US/Pacific is
			 * "Wed, 31 Dec 1970 16:00:00 PST" */
			time_t t = (time_t)(sval(v) / 1000000000);
			struct tm tm;
			char buf[64];

			localtime_r(&t, &tm);
			strftime(buf, sizeof(buf), c->conv == 'Y' ?
				 "%Y %b %e %T" : "%a, %d %b %G %T %Z", &tm);
			strcpy(p, "s");
			fprintf(f, spec, buf);
			break;
		}
		}
	}
}

void dt_fmt_symbol(struct sbuf *sb, const char *mod, const char *fn,
		   uint64_t off, unsigned demangle)
{
	size_t n = strcspn(fn, "@");
	char *cut = NULL, *buf = NULL;

	if (mod)
		sbuf_printf(sb, "%s`", mod);
	if (fn[n])
		fn = cut = sd_strndup(fn, n);
	if (demangle) {
		buf = sd_malloc(DEMANGLE_MAX);
		fn = demangle_name(fn, demangle, buf, DEMANGLE_MAX);
	}
	sbuf_puts(sb, fn);
	if (off)
		sbuf_printf(sb, "+0x%" PRIx64, off);
	free(buf);
	free(cut);
}
