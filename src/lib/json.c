// SPDX-License-Identifier: GPL-2.0-only
/* json — streaming JSON writer. See json.h. A document is written by one
 * thread: stdio's per-call locking is left out (the *_unlocked calls). */
#include "json.h"

#include <math.h>
#include <string.h>

void json_init(struct json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true;
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	putc_unlocked('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs_unlocked("  ", j->f);
}

/* Called before every value and key: a comma unless first in container. */
static void sep(struct json *j)
{
	if (!j->first[j->depth])
		putc_unlocked(',', j->f);
	j->first[j->depth] = false;
	if (j->depth > 0)
		indent(j);
}

/* A value right after a key takes no separator. */
static void value(struct json *j)
{
	if (j->after_key)
		j->after_key = false;
	else
		sep(j);
}

static void open(struct json *j, char c)
{
	value(j);
	putc_unlocked(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	putc_unlocked(c, j->f);
}

void json_obj_begin(struct json *j) { open(j, '{'); }
void json_obj_end(struct json *j) { close(j, '}'); }
void json_arr_begin(struct json *j) { open(j, '['); }
void json_arr_end(struct json *j) { close(j, ']'); }

void json_key(struct json *j, const char *key)
{
	sep(j);
	json_write_string(j->f, key, strlen(key));
	fputs_unlocked(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

/* Length of a valid UTF-8 sequence starting at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

bool json_utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n;) {
		size_t l = s[i] < 0x80 ? 1 : utf8_len(s + i, n - i);

		if (!l)
			return false;
		i += l;
	}
	return true;
}

void json_write_string(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0;		/* where the bytes not yet written start */

	putc_unlocked('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		const char *esc = NULL;
		size_t l;

		/* Plain ASCII and valid UTF-8 go out in runs, one fwrite
		 * each (one per character made long strings, data_hex, half
		 * of kdump --format json's time). */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		}
		l = esc || c < 0x20 || c == 0x7f ? 0 : utf8_len(s + i, n - i);
		if (l) {
			i += l;
			continue;
		}
		if (i > run)
			fwrite_unlocked(s + run, 1, i - run, f);
		if (esc)
			fputs_unlocked(esc, f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputs_unlocked("\\ufffd", f);
		run = ++i;
	}
	if (n > run)
		fwrite_unlocked(s + run, 1, n - run, f);
	putc_unlocked('"', f);
}

void json_str(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_strn(j, s, strlen(s));
}

void json_strn(struct json *j, const char *s, size_t n)
{
	value(j);
	json_write_string(j->f, s, n);
}

/* v's decimal digits, after a '-' when neg. */
static void put_dec(FILE *f, uint64_t v, bool neg)
{
	char b[24], *p = b + sizeof(b);

	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	if (neg)
		*--p = '-';
	fwrite_unlocked(p, 1, (size_t)(b + sizeof(b) - p), f);
}

void json_u64(struct json *j, uint64_t v)
{
	value(j);
	put_dec(j->f, v, false);
}

void json_i64(struct json *j, int64_t v)
{
	value(j);
	put_dec(j->f, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

void json_double(struct json *j, double v, int decimals)
{
	value(j);
	if (!isfinite(v))
		fputs_unlocked("null", j->f);
	else
		fprintf(j->f, "%.*f", decimals, v);
}

void json_bool(struct json *j, bool v)
{
	value(j);
	fputs_unlocked(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	value(j);
	fputs_unlocked("null", j->f);
}

void json_end(struct json *j)
{
	putc_unlocked('\n', j->f);
}
