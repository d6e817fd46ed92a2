// SPDX-License-Identifier: GPL-2.0-only
/* json — streaming JSON writer. See json.h. A document is written by one
 * thread into the writer's own buffer, which goes to the FILE in one
 * fwrite per top-level value (or per JSON_BUF bytes): a stdio call per
 * key, comma and number was most of kdump --format json's time. */
#include "json.h"
#include "util.h"

#include <math.h>
#include <string.h>

void json_init(struct json *j, FILE *f, bool pretty)
{
	/* Not the buffer: it is written before it is read. */
	j->f = f;
	j->depth = 0;
	memset(j->first, 0, sizeof(j->first));
	j->first[0] = true;
	j->pretty = pretty;
	j->after_key = false;
	j->len = 0;
}

void json_flush(struct json *j)
{
	if (j->len)
		fwrite_unlocked(j->buf, 1, j->len, j->f);
	j->len = 0;
}

static void put(struct json *j, const char *s, size_t n)
{
	if (n > JSON_BUF - j->len) {
		json_flush(j);
		if (n >= JSON_BUF) {
			fwrite_unlocked(s, 1, n, j->f);
			return;
		}
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
}

static void putch(struct json *j, char c)
{
	if (j->len == JSON_BUF)
		json_flush(j);
	j->buf[j->len++] = c;
}

/* A value is complete: at the top level, out it goes. */
static void done(struct json *j)
{
	if (!j->depth)
		json_flush(j);
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	putch(j, '\n');
	for (int i = 0; i < j->depth; i++)
		put(j, "  ", 2);
}

/* Called before every value and key: a comma unless first in container. */
static void sep(struct json *j)
{
	if (!j->first[j->depth])
		putch(j, ',');
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
	putch(j, c);
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
	putch(j, c);
	done(j);
}

void json_obj_begin(struct json *j) { open(j, '{'); }
void json_obj_end(struct json *j) { close(j, '}'); }
void json_arr_begin(struct json *j) { open(j, '['); }
void json_arr_end(struct json *j) { close(j, ']'); }

static void put_string(struct json *j, const char *s, size_t n);
static void put_cstring(struct json *j, const char *s);

void json_key(struct json *j, const char *key)
{
	sep(j);
	put_cstring(j, key);
	if (j->pretty)
		put(j, ": ", 2);
	else
		putch(j, ':');
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

/* Bytes a string cannot hold as they are: controls, '"', '\\', and
 * those of 0x7f and up (DEL, or UTF-8 to check). */
static const unsigned char special[256] = {
	[0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f ... 0xff] = 1,
};

static void put_string(struct json *j, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0;		/* where the bytes not yet written start */

	/* The usual string, plain ASCII that fits: copied as it is checked. */
	if (n + 2 <= JSON_BUF - j->len) {
		char *d = j->buf + j->len + 1;
		size_t i;

		for (i = 0; i < n && !special[s[i]]; i++)
			d[i] = (char)s[i];
		if (i == n) {
			d[-1] = '"';
			d[n] = '"';
			j->len += n + 2;
			return;
		}
	}
	putch(j, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		const char *esc = NULL;
		size_t l;

		/* Plain ASCII and valid UTF-8 go out in runs. */
		if (!special[c]) {
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
			put(j, (const char *)s + run, i - run);
		if (esc) {
			put(j, esc, 2);
		} else if (c < 0x20 || c == 0x7f) {
			static const char hx[] = "0123456789abcdef";
			char u[6] = { '\\', 'u', '0', '0', hx[c >> 4], hx[c & 15] };

			put(j, u, 6);
		} else {
			put(j, "\\ufffd", 6);
		}
		run = ++i;
	}
	if (n > run)
		put(j, (const char *)s + run, n - run);
	putch(j, '"');
}

/* A NUL-terminated string: measured as it is copied (keys, names). */
static void put_cstring(struct json *j, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t room = JSON_BUF - j->len;

	if (room > 2) {
		char *d = j->buf + j->len + 1;

		for (size_t i = 0; i < room - 2; i++) {
			unsigned char c = s[i];

			if (special[c]) {
				if (c)
					break;
				d[-1] = '"';
				d[i] = '"';
				j->len += i + 2;
				return;
			}
			d[i] = (char)c;
		}
	}
	put_string(j, str, strlen(str));
}

void json_write_string(FILE *f, const char *s, size_t n)
{
	struct json j;

	j.f = f;
	j.len = 0;
	put_string(&j, s, n);
	json_flush(&j);
}

void json_str(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	value(j);
	put_cstring(j, s);
	done(j);
}

void json_strn(struct json *j, const char *s, size_t n)
{
	value(j);
	put_string(j, s, n);
	done(j);
}

/* A number, bare or (quoted) as a string. */
static void put_dec(struct json *j, uint64_t v, bool neg, bool quoted)
{
	char b[24], *end = b + sizeof(b) - 1, *p;

	*end = '"';
	p = sd_u64_dec(end, v);
	if (neg)
		*--p = '-';
	if (quoted) {
		*--p = '"';
		end++;
	}
	put(j, p, (size_t)(end - p));
	done(j);
}

void json_u64(struct json *j, uint64_t v)
{
	value(j);
	put_dec(j, v, false, false);
}

void json_i64(struct json *j, int64_t v)
{
	value(j);
	put_dec(j, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, false);
}

void json_u64_str(struct json *j, uint64_t v)
{
	value(j);
	put_dec(j, v, false, true);
}

void json_i64_str(struct json *j, int64_t v)
{
	value(j);
	put_dec(j, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, true);
}

void json_double(struct json *j, double v, int decimals)
{
	value(j);
	if (!isfinite(v)) {
		put(j, "null", 4);
	} else {
		char b[352];	/* DBL_MAX's digits, and the decimals */
		int n = snprintf(b, sizeof(b), "%.*f", decimals, v);

		if (n >= (int)sizeof(b)) {
			json_flush(j);
			fprintf(j->f, "%.*f", decimals, v);
		} else if (n > 0) {
			put(j, b, n);
		}
	}
	done(j);
}

void json_bool(struct json *j, bool v)
{
	value(j);
	if (v)
		put(j, "true", 4);
	else
		put(j, "false", 5);
	done(j);
}

void json_null(struct json *j)
{
	value(j);
	put(j, "null", 4);
	done(j);
}

void json_end(struct json *j)
{
	putch(j, '\n');
	json_flush(j);
}
