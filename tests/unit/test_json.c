// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/json: nesting, commas, escaping, invalid UTF-8. */
#include "test.h"
#include "lib/json.h"

static void doc(FILE *f, void *arg)
{
	struct json j;

	(void)arg;
	json_init(&j, f, false);
	json_obj_begin(&j);
	json_key(&j, "a");
	json_u64(&j, 18446744073709551615ull);
	json_key(&j, "b");
	json_arr_begin(&j);
	json_i64(&j, -5);
	json_i64(&j, INT64_MIN);
	json_u64(&j, 0);
	json_double(&j, 1.5, 2);
	json_bool(&j, true);
	json_null(&j);
	json_obj_begin(&j);
	json_obj_end(&j);
	json_arr_begin(&j);
	json_arr_end(&j);
	json_arr_end(&j);
	json_key(&j, "s");
	json_str(&j, "q\"b\\n\n\t\x01\x7f é \xff\xc3 \xed\xa0\x80 \xf0\x9f\x98\x80");
	json_key(&j, "nul");
	json_strn(&j, "a\0b", 3);
	json_obj_end(&j);
	json_end(&j);
}

static void compact_document(void **state)
{
	char *out = capture(doc, NULL);

	(void)state;
	assert_string_equal(out,
		"{\"a\":18446744073709551615,\"b\":[-5,-9223372036854775808,0,1.50,true,null,{},[]],"
		"\"s\":\"q\\\"b\\\\n\\n\\t\\u0001\\u007f é \\ufffd\\ufffd "
		"\\ufffd\\ufffd\\ufffd 😀\",\"nul\":\"a\\u0000b\"}\n");
	free(out);
}

static void pretty(FILE *f, void *arg)
{
	struct json j;

	(void)arg;
	json_init(&j, f, true);
	json_obj_begin(&j);
	json_key(&j, "x");
	json_arr_begin(&j);
	json_u64(&j, 1);
	json_u64(&j, 2);
	json_arr_end(&j);
	json_key(&j, "e");
	json_arr_begin(&j);
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

static void pretty_document(void **state)
{
	char *out = capture(pretty, NULL);

	(void)state;
	assert_string_equal(out, "{\n  \"x\": [\n    1,\n    2\n  ],\n"
				 "  \"e\": []\n}\n");
	free(out);
}

/* Buffered output: a top-level value is in the FILE once complete, before
 * json_end; strings longer than the buffer, numbers as strings. */
static void buffered(FILE *f, void *arg)
{
	struct json j;
	static char big[3 * JSON_BUF + 7];
	long at;

	(void)arg;
	memset(big, 'x', sizeof(big) - 1);
	big[100] = '\n';
	big[JSON_BUF - 1] = '"';
	json_init(&j, f, false);
	json_obj_begin(&j);
	json_key(&j, "u");
	json_u64_str(&j, UINT64_MAX);
	json_key(&j, "i");
	json_i64_str(&j, INT64_MIN);
	json_key(&j, "z");
	json_i64_str(&j, 0);
	json_obj_end(&j);
	at = ftell(f);
	assert_int_equal(at, (long)strlen("{\"u\":\"18446744073709551615\","
					  "\"i\":\"-9223372036854775808\","
					  "\"z\":\"0\"}"));
	fputc('\n', f);	/* the caller's own bytes between values */
	json_init(&j, f, false);
	json_str(&j, big);
	assert_int_equal(ftell(f), at + 1 + (long)sizeof(big) + 1 + 2);
	json_end(&j);
}

static void buffered_output(void **state)
{
	char *out = capture(buffered, NULL);
	size_t at, n;

	(void)state;
	for (at = 0; out[at] && out[at] != '\n'; at++)
		;
	assert_int_equal(out[at++], '\n');
	n = strlen(out + at);
	assert_int_equal(n, 3 * JSON_BUF + 6 + 2 + 2 + 1);
	assert_memory_equal(out + at, "\"xxx", 4);
	assert_memory_equal(out + at + 101, "\\n", 2);
	assert_memory_equal(out + at + JSON_BUF + 1, "\\\"", 2);
	assert_memory_equal(out + at + n - 3, "x\"\n", 3);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(compact_document),
		cmocka_unit_test(pretty_document),
		cmocka_unit_test(buffered_output),
	};
	return RUN(tests);
}
