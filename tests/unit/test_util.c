// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/util: durations, integers, CPU lists, string buffers,
 * regions. */
#include "test.h"
#include "lib/cli.h"
#include "lib/util.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <errno.h>

static void duration_units(void **state)
{
	static const struct {
		const char *in;
		uint64_t ns;
	} ok[] = {
		{ "5s", 5000000000ull },	{ "500ms", 500000000ull },
		{ "10s", 10000000000ull },	{ "1m", 60000000000ull },
		{ "2h", 7200000000000ull },	{ "250us", 250000ull },
		{ "7ns", 7 },			{ "1.5s", 1500000000ull },
		{ "3", 3000000000ull },		{ "0.25", 250000000ull },
		{ ".5s", 500000000ull },	{ "0s", 0 },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		uint64_t ns = 1;

		assert_int_equal(sd_parse_duration(ok[i].in, &ns), 0);
		assert_int_equal(ns, ok[i].ns);
	}
}

static void duration_rejects(void **state)
{
	static const char *bad[] = {
		"", "s", "5x", "5 s", " 5s", "-1s", "+1s", "inf", "nan",
		"0x10s", "5ss", "1e400s", "99999999999h", "5sm", "ms",
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint64_t ns = 42;

		assert_int_equal(sd_parse_duration(bad[i], &ns), -EINVAL);
		assert_int_equal(ns, 42);
	}
	assert_int_equal(sd_parse_duration(NULL, NULL), -EINVAL);
}

static void duration_format(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(sd_fmt_duration(5000000000ull, b, sizeof(b)),
			    "5.00 s");
	assert_string_equal(sd_fmt_duration(512000000ull, b, sizeof(b)),
			    "512.0 ms");
	assert_string_equal(sd_fmt_duration(12300, b, sizeof(b)), "12.3 us");
	assert_string_equal(sd_fmt_duration(999, b, sizeof(b)), "999 ns");
}

static void u64_parse(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(sd_parse_u64("997", 1, 1000, &v), 0);
	assert_int_equal(v, 997);
	assert_int_equal(sd_parse_u64("0x10", 0, 100, &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(sd_parse_u64("1001", 1, 1000, &v), -EINVAL);
	assert_int_equal(sd_parse_u64("0", 1, 1000, &v), -EINVAL);
	assert_int_equal(sd_parse_u64("-1", 0, 1000, &v), -EINVAL);
	assert_int_equal(sd_parse_u64("12abc", 0, 1000, &v), -EINVAL);
	assert_int_equal(sd_parse_u64("", 0, 1000, &v), -EINVAL);
	assert_int_equal(sd_parse_u64("99999999999999999999999", 0,
				      UINT64_MAX, &v), -EINVAL);
}

static void size_parse(void **state)
{
	static const struct {
		const char *in;
		uint64_t v;
	} ok[] = {
		{ "0", 0 }, { "4096", 4096 }, { "4k", 4096 }, { "4K", 4096 },
		{ "8m", 8 << 20 }, { "1G", 1ull << 30 }, { "2t", 2ull << 40 },
		{ "0x10", 16 }, { "0x10k", 16 << 10 },
		{ "16777215t", 16777215ull << 40 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const struct {
		const char *in;
		int err;
	} bad[] = {
		{ "", -EINVAL }, { "k", -EINVAL }, { "-1", -EINVAL },
		{ " 4k", -EINVAL }, { "4kb", -EINVAL }, { "4x", -EINVAL },
		{ "1.5k", -EINVAL }, { "+4", -EINVAL },
		{ "16777216t", -ERANGE }, { "17179869184g", -ERANGE },
		{ "18446744073709551616", -ERANGE },
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		v = 1;
		assert_int_equal(sd_parse_size(ok[i].in, &v), 0);
		assert_true(v == ok[i].v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		v = 42;
		assert_int_equal(sd_parse_size(bad[i].in, &v), bad[i].err);
		assert_int_equal(v, 42);
	}
	assert_int_equal(sd_parse_size(NULL, &v), -EINVAL);
}

/* Runs sd_getopt_error() on what getopt_long makes of argv and returns the
 * line it printed on stderr. */
static char *getopt_line(char **argv, int argc, char *buf, size_t len)
{
	static const struct option lo[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "svg", required_argument, NULL, 0x100 },
		{ NULL, 0, NULL, 0 },
	};
	FILE *f = tmpfile();
	int saved = dup(2), c, rc = -1;

	assert_non_null(f);
	fflush(stderr);
	dup2(fileno(f), 2);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:d:vh", lo, NULL)) != -1)
		if (c == '?' || c == ':') {
			rc = sd_getopt_error(c, argv, lo);
			break;
		}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(rc, SD_EXIT_USAGE);
	rewind(f);
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	/* Exactly one line. */
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
	return buf;
}

static void getopt_errors(void **state)
{
	static const struct {
		const char *args[3];
		const char *line;
	} cases[] = {
		{ { "-q" }, "unknown option '-q'" },
		{ { "-vq" }, "unknown option '-q'" },
		{ { "--bogus" }, "unknown option '--bogus'" },
		{ { "--bogus=3" }, "unknown option '--bogus'" },
		{ { "--verbose=3" }, "option '--verbose' takes no value" },
		{ { "-d" }, "option '-d' needs a value" },
		{ { "-vd" }, "option '-d' needs a value" },
		{ { "--duration" }, "option '--duration' needs a value" },
		{ { "--svg" }, "option '--svg' needs a value" },
		{ { "-v", "--" , "-x" }, NULL },
	};
	char buf[512], want[600];

	(void)state;
	sd_set_prog("sonde test");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[5] = { "sonde-test" };
		int argc = 1;

		for (int j = 0; j < 3 && cases[i].args[j]; j++)
			argv[argc++] = (char *)cases[i].args[j];
		if (!cases[i].line)
			continue;
		snprintf(want, sizeof(want),
			 "sonde test: %s (see sonde test --help)\n",
			 cases[i].line);
		assert_string_equal(getopt_line(argv, argc, buf, sizeof(buf)),
				    want);
	}
}

static void nearest_word(void **state)
{
	static const char *const cmds[] = { "hot", "prof", "dtrace", "kptrace",
					    "ktrace", "kdump", "agent" };
	const size_t n = ARRAY_SIZE(cmds);

	(void)state;
	assert_string_equal(sd_nearest("kdumb", cmds, n), "kdump");
	assert_string_equal(sd_nearest("dtarce", cmds, n), "dtrace");
	assert_string_equal(sd_nearest("htop", cmds, n), "hot");
	assert_string_equal(sd_nearest("porf", cmds, n), "prof");
	assert_string_equal(sd_nearest("ktrac", cmds, n), "ktrace");
	assert_string_equal(sd_nearest("kd", cmds, n), "kdump");
	assert_null(sd_nearest("x", cmds, n));
	assert_null(sd_nearest("frobnicate", cmds, n));
	assert_int_equal(sd_edit_distance("kitten", "sitting", 5), 3);
	assert_int_equal(sd_edit_distance("ab", "ba", 5), 1);
	assert_int_equal(sd_edit_distance("", "abc", 1), 2);
}

static void cpulist(void **state)
{
	bool set[8];

	(void)state;
	memset(set, 0, sizeof(set));
	assert_int_equal(sd_parse_cpulist("0,2-3,7", set, 8), 0);
	assert_true(set[0] && !set[1] && set[2] && set[3] && !set[4] &&
		    !set[5] && !set[6] && set[7]);
	memset(set, 0, sizeof(set));
	assert_int_equal(sd_parse_cpulist("0-1\n", set, 8), 0);
	assert_true(set[0] && set[1] && !set[2]);
	assert_int_equal(sd_parse_cpulist("8", set, 8), -ERANGE);
	assert_int_equal(sd_parse_cpulist("3-1", set, 8), -EINVAL);
	assert_int_equal(sd_parse_cpulist("1,", set, 8), -EINVAL);
	assert_int_equal(sd_parse_cpulist("a", set, 8), -EINVAL);
	assert_int_equal(sd_parse_cpulist("", set, 8), -EINVAL);
	assert_int_equal(sd_parse_cpulist("1--2", set, 8), -EINVAL);
}

static void sbuf_ops(void **state)
{
	struct sbuf sb;
	char *s;

	(void)state;
	sbuf_init(&sb);
	for (int i = 0; i < 1000; i++)
		sbuf_printf(&sb, "%d,", i);
	assert_int_equal(sb.len, strlen(sb.buf));
	assert_memory_equal(sb.buf, "0,1,2,", 6);
	assert_memory_equal(sb.buf + sb.len - 8, "998,999,", 8);
	/* A format longer than the room left: formatted again, whole. */
	sbuf_reset(&sb);
	sbuf_puts(&sb, "x");
	sbuf_printf(&sb, "%s|%0*d", "y", (int)sb.cap + 100, 7);
	assert_int_equal(sb.len, strlen(sb.buf));
	assert_memory_equal(sb.buf, "xy|000", 6);
	assert_int_equal(sb.buf[sb.len - 1], '7');
	sbuf_reset(&sb);
	sbuf_puts(&sb, "a");
	sbuf_putc(&sb, 'b');
	sbuf_put(&sb, "cdef", 2);
	s = sbuf_steal(&sb);
	assert_string_equal(s, "abcd");
	assert_null(sb.buf);
	free(s);
}

static void u64_dec(void **state)
{
	char b[24], *end = b + sizeof(b) - 1, *p;
	static const struct { uint64_t v; const char *s; } cases[] = {
		{ 0, "0" }, { 9, "9" }, { 10, "10" }, { 99, "99" },
		{ 100, "100" }, { 101, "101" }, { 999999, "999999" },
		{ 1795729268299257998ull, "1795729268299257998" },
		{ UINT64_MAX, "18446744073709551615" },
	};

	(void)state;
	*end = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		p = sd_u64_dec(end, cases[i].v);
		assert_string_equal(p, cases[i].s);
	}
}

static void region_grows(void **state)
{
	struct region r;
	size_t off = 0;

	(void)state;
	region_init(&r, 100);
	for (int i = 0; i < 100000; i++) {
		off = region_append(&r, sizeof(int));
		memcpy(r.base + off, &i, sizeof(i));
	}
	assert_int_equal(off, 99999 * sizeof(int));
	for (int i = 0; i < 100000; i += 997) {
		int v;

		memcpy(&v, r.base + i * sizeof(int), sizeof(v));
		assert_int_equal(v, i);
	}
	region_free(&r);
}

static void read_file(void **state)
{
	size_t len;
	char *s;

	(void)state;
	s = sd_read_file("/proc/self/stat", &len);
	assert_non_null(s);
	assert_int_equal(strlen(s), len);
	free(s);
	errno = 0;
	assert_null(sd_read_file("/nonexistent/x", &len));
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(duration_units),
		cmocka_unit_test(duration_rejects),
		cmocka_unit_test(duration_format),
		cmocka_unit_test(u64_parse),
		cmocka_unit_test(size_parse),
		cmocka_unit_test(getopt_errors),
		cmocka_unit_test(nearest_word),
		cmocka_unit_test(cpulist),
		cmocka_unit_test(sbuf_ops),
		cmocka_unit_test(u64_dec),
		cmocka_unit_test(region_grows),
		cmocka_unit_test(read_file),
	};
	return RUN(tests);
}
