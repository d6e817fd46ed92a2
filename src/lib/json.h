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

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];
	bool pretty;
	bool after_key;	/* a key was written; its value comes next */
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
void json_double(struct json *j, double v, int decimals);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* Finish the document with a newline. */
void json_end(struct json *j);

/* Whether s[0..n) is valid UTF-8 (json_strn replaces what is not). */
bool json_utf8_valid(const char *s, size_t n);

/* Write s as a JSON string literal (quotes included) to f. */
void json_write_string(FILE *f, const char *s, size_t n);

#endif
