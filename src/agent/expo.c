// SPDX-License-Identifier: GPL-2.0-only
/* expo — the two exposition formats a Prometheus server scrapes: the text
 * format 0.0.4 and OpenMetrics 1.0.0 (asked for by Accept), which differ
 * in a counter family's name (OpenMetrics drops _total from # TYPE), the
 * spelling of bucket bounds ("7.0"), HELP escaping and the closing
 * "# EOF". Label values are escaped and made valid UTF-8: a comm or a
 * string key may hold any bytes, and one invalid byte makes Prometheus
 * reject the whole scrape. */
#include "agent.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *ag_expo_content_type(bool om)
{
	return om ? "application/openmetrics-text; version=1.0.0; "
		    "charset=utf-8" :
		    "text/plain; version=0.0.4; charset=utf-8";
}

/* The q-value of one media range's parameters (";q=0.5;version=...");
 * 1 when absent. */
static double qvalue(const char *params, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (params[i] != ';')
			continue;
		i++;
		while (i < n && (params[i] == ' ' || params[i] == '\t'))
			i++;
		if (i + 1 < n && (params[i] == 'q' || params[i] == 'Q') &&
		    params[i + 1] == '=')
			return strtod(params + i + 2, NULL);
	}
	return 1;
}

bool ag_expo_wants_om(const char *accept)
{
	double om = -1, text = -1;

	if (!accept)
		return false;
	for (const char *p = accept; *p;) {
		size_t n = strcspn(p, ","), t;
		const char *s = p;

		while (*s == ' ' || *s == '\t')
			s++;
		t = strcspn(s, ";,");
		if (t > (size_t)(p + n - s))
			t = (size_t)(p + n - s);
		while (t && (s[t - 1] == ' ' || s[t - 1] == '\t'))
			t--;
		double q = qvalue(s + t, (size_t)(p + n - (s + t)));

		if (t == 28 && !strncasecmp(s, "application/openmetrics-text", t))
			om = q > om ? q : om;
		else if ((t == 10 && !strncasecmp(s, "text/plain", t)) ||
			 (t == 6 && !strncasecmp(s, "text/*", t)) ||
			 (t == 3 && !strncmp(s, "*/*", t)))
			text = q > text ? q : text;
		p += n;
		if (*p == ',')
			p++;
	}
	return om > 0 && om >= text;
}

/* Family name: OpenMetrics names a counter's family without _total. */
static void put_family(struct ag_expo *e, const char *name, enum ag_type t)
{
	size_t n = strlen(name);

	if (e->om && t == AG_COUNTER && n > 6 && !strcmp(name + n - 6, "_total"))
		n -= 6;
	sbuf_put(&e->sb, name, n);
}

static const char *type_name(enum ag_type t)
{
	return t == AG_COUNTER ? "counter" : t == AG_GAUGE ? "gauge" :
	       "histogram";
}

/* Escape \ and newline (and " in OpenMetrics' HELP and every label
 * value); replace bytes that are not UTF-8 by U+FFFD. */
static void put_escaped(struct sbuf *sb, const char *s, bool quote)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned char c = *p;
		int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 :
			  (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len > 0;
		uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f :
			      len == 3 ? c & 0x0f : c & 0x07;

		for (int i = 1; ok && i < len; i++) {
			ok = (p[i] & 0xc0) == 0x80;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		/* overlong forms, surrogates and values past U+10FFFF */
		if (ok && ((len == 2 && cp < 0x80) ||
			   (len == 3 && (cp < 0x800 ||
					 (cp >= 0xd800 && cp <= 0xdfff))) ||
			   (len == 4 && (cp < 0x10000 || cp > 0x10ffff))))
			ok = false;
		if (!ok) {
			sbuf_put(sb, "\xef\xbf\xbd", 3);
			p++;
			continue;
		}
		if (c == '\\')
			sbuf_put(sb, "\\\\", 2);
		else if (c == '\n')
			sbuf_put(sb, "\\n", 2);
		else if (c == '"' && quote)
			sbuf_put(sb, "\\\"", 2);
		else
			sbuf_put(sb, (const char *)p, (size_t)len);
		p += len;
	}
}

void ag_expo_head(struct ag_expo *e, const char *name, enum ag_type t,
		  const char *help)
{
	sbuf_puts(&e->sb, "# HELP ");
	put_family(e, name, t);
	sbuf_putc(&e->sb, ' ');
	put_escaped(&e->sb, help, e->om);
	sbuf_puts(&e->sb, "\n# TYPE ");
	put_family(e, name, t);
	sbuf_putc(&e->sb, ' ');
	sbuf_puts(&e->sb, type_name(t));
	sbuf_putc(&e->sb, '\n');
}

void ag_expo_labelset(struct sbuf *out, char *const *names,
		      const char *const *values, const int64_t *ints,
		      const bool *sign, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sbuf_putc(out, ',');
		sbuf_puts(out, names[i]);
		sbuf_puts(out, "=\"");
		if (values[i])
			put_escaped(out, values[i], true);
		else if (sign && sign[i])
			sbuf_printf(out, "%lld", (long long)ints[i]);
		else
			sbuf_printf(out, "%llu", (unsigned long long)ints[i]);
		sbuf_putc(out, '"');
	}
}

static void put_labels(struct ag_expo *e, const char *name,
		       const char *suffix, const char *labels,
		       const char *extra)
{
	bool l = labels && *labels, x = extra && *extra;

	sbuf_puts(&e->sb, name);
	if (suffix)
		sbuf_puts(&e->sb, suffix);
	if (l || x) {
		sbuf_putc(&e->sb, '{');
		if (l)
			sbuf_puts(&e->sb, labels);
		if (l && x)
			sbuf_putc(&e->sb, ',');
		if (x)
			sbuf_puts(&e->sb, extra);
		sbuf_putc(&e->sb, '}');
	}
	sbuf_putc(&e->sb, ' ');
}

void ag_expo_sample(struct ag_expo *e, const char *name, const char *suffix,
		    const char *labels, const char *extra, double value)
{
	char buf[40];

	put_labels(e, name, suffix, labels, extra);
	if (isnan(value)) {
		sbuf_puts(&e->sb, "NaN\n");
		return;
	}
	if (isinf(value)) {
		sbuf_puts(&e->sb, value > 0 ? "+Inf\n" : "-Inf\n");
		return;
	}
	/* the shortest text that reads back as the same double */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, value);
		if (strtod(buf, NULL) == value)
			break;
	}
	sbuf_puts(&e->sb, buf);
	sbuf_putc(&e->sb, '\n');
}

void ag_expo_sample_int(struct ag_expo *e, const char *name,
			const char *suffix, const char *labels,
			const char *extra, int64_t value)
{
	put_labels(e, name, suffix, labels, extra);
	sbuf_printf(&e->sb, "%lld\n", (long long)value);
}

void ag_expo_le(struct ag_expo *e, int64_t bound, bool inf, char *buf,
		size_t len)
{
	if (inf)
		snprintf(buf, len, "le=\"+Inf\"");
	else
		snprintf(buf, len, e->om ? "le=\"%lld.0\"" : "le=\"%lld\"",
			 (long long)bound);
}

void ag_expo_end(struct ag_expo *e)
{
	if (e->om)
		sbuf_puts(&e->sb, "# EOF\n");
}
