// SPDX-License-Identifier: GPL-2.0-only
/* json — a small streaming JSON writer: objects, arrays, strings with full
 * escaping (invalid UTF-8 is replaced, never passed through), integers and
 * doubles. Commas and nesting are tracked for the caller. */
#ifndef SONDE_JSON_H
#define SONDE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32
#define JSON_BUF 4096

/* What is written is kept in buf and reaches f when a top-level value is
 * complete (a container closed to depth 0, a scalar at depth 0), at
 * json_end or json_flush, or when buf is full: the caller may write to f
 * itself between top-level values, inside one only after json_flush. */
struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
	bool pretty;
	bool after_key;	/* a key was written; its value comes next */
	size_t len;	/* bytes in buf not yet written to f */
	char buf[JSON_BUF];
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
/* Inside an object: emit the key, then a value call follows. */
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);
void json_strn(struct json *j, const char *s, size_t n);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
/* The number's decimal digits as a string ("1795729268299257998"): for
 * 64-bit values a double-based reader would round. */
void json_u64_str(struct json *j, uint64_t v);
void json_i64_str(struct json *j, int64_t v);
void json_double(struct json *j, double v, int decimals);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* Finish the document with a newline (and write it out). */
void json_end(struct json *j);
/* Write out what is buffered (see struct json). */
void json_flush(struct json *j);

/* Whether s[0..n) is valid UTF-8 (json_strn replaces what is not). */
bool json_utf8_valid(const char *s, size_t n);

/* Write s as a JSON string literal (quotes included) to f. */
void json_write_string(FILE *f, const char *s, size_t n);

#endif
