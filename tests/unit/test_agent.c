// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for sonde agent's naming and exposition: Prometheus' name
 * rules, `#pragma sonde metric` parsing and its errors, label escaping and
 * UTF-8 repair, the text format against OpenMetrics, Accept negotiation. */
#include "test.h"
#include "agent/agent.h"

static void names_follow_prometheus_rules(void **state)
{
	char *s;

	(void)state;
	s = ag_metric_name("9to5-reads.per:cpu");
	assert_string_equal(s, "_9to5_reads_per:cpu");
	free(s);
	s = ag_label_name("syscall:name");
	assert_string_equal(s, "syscall_name");
	free(s);
	s = ag_label_name("");
	assert_string_equal(s, "_");
	free(s);
	s = ag_metric_name("caf\xc3\xa9");
	assert_string_equal(s, "caf__");
	free(s);
}

static void pragmas_parse(void **state)
{
	const char *text =
		"/* #pragma sonde metric hidden\n"
		"   still a comment */\n"
		"#pragma D option quiet\n"
		"  #pragma sonde metric @reads labels(comm, syscall-name) "
		"help(\"read() \\\"calls\\\" \\\\ by comm\")\n"
		"#pragma sonde metric @ name(node_reads) type(gauge)\n"
		"#pragma ident \"x\"\n"
		"syscall::read:entry { @reads[execname, probefunc] = count(); }\n";
	struct ag_pragma *p;
	char err[256];
	int n;

	(void)state;
	if (ag_pragmas_parse("r.d", text, &p, &n, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(n, 2);
	assert_string_equal(p[0].agg, "reads");
	assert_int_equal(p[0].line, 4);
	assert_int_equal(p[0].nlabels, 2);
	assert_string_equal(p[0].labels[0], "comm");
	assert_string_equal(p[0].labels[1], "syscall_name");
	assert_string_equal(p[0].help, "read() \"calls\" \\ by comm");
	assert_null(p[0].name);
	assert_int_equal(p[0].type, -1);
	assert_string_equal(p[1].agg, "");
	assert_string_equal(p[1].name, "node_reads");
	assert_int_equal(p[1].type, AG_GAUGE);
	assert_int_equal(p[1].nlabels, -1);
	ag_pragmas_free(p, n);
}

static void pragma_errors_name_file_and_line(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "\n#pragma sonde metrics r\n", "r.d:2: #pragma sonde: unknown "
		  "directive 'metrics' (sonde agent knows 'metric')" },
		{ "#pragma sonde metric r labels(a, a)\n",
		  "r.d:1: #pragma sonde: label 'a' given twice" },
		{ "#pragma sonde metric r labels(__x)\n",
		  "r.d:1: #pragma sonde: label '__x': names starting with __ "
		  "are reserved by Prometheus" },
		{ "#pragma sonde metric r labels(quantile)\n",
		  "r.d:1: #pragma sonde: label 'quantile' is reserved for "
		  "histogram buckets and quantiles" },
		{ "#pragma sonde metric r labels(a b)\n",
		  "r.d:1: #pragma sonde: labels: expected ',' or ')'" },
		{ "#pragma sonde metric r help(\"open\n",
		  "r.d:1: #pragma sonde: help: expected (\"text\")" },
		{ "#pragma sonde metric r type(histogram)\n",
		  "r.d:1: #pragma sonde: type: 'histogram' (counter or gauge, "
		  "once)" },
		{ "#pragma sonde metric r\n#pragma sonde metric @r\n",
		  "r.d:2: #pragma sonde: @r described twice (line 1)" },
		{ "#pragma sonde metric r labels(a) labels(b)\n",
		  "r.d:1: #pragma sonde: labels given twice" },
		{ "#pragma sonde metric r ?\n",
		  "r.d:1: #pragma sonde: unexpected '?'" },
	};
	struct ag_pragma *p;
	char err[256];
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(ag_pragmas_parse("r.d", cases[i].text, &p, &n,
						  err, sizeof(err)), -1);
		assert_string_equal(err, cases[i].msg);
		assert_null(p);
	}
}

static void labels_escaped_and_utf8(void **state)
{
	char *names[] = { "comm", "fd", "neg" };
	const char *vals[] = {
		"a\\b\"c\nd \xc3\xa9 \xff \xc0\xaf \xed\xa0\x80 \xf0\x9f\x98\x80 "
		"\xe2\x82", NULL, NULL,
	};
	int64_t ints[] = { 0, 18, -3 };
	bool sign[] = { false, false, true };
	struct sbuf sb;

	(void)state;
	sbuf_init(&sb);
	ag_expo_labelset(&sb, names, vals, ints, sign, 3);
	sbuf_putc(&sb, '\0');
	assert_string_equal(sb.buf,
		"comm=\"a\\\\b\\\"c\\nd \xc3\xa9 \xef\xbf\xbd \xef\xbf\xbd"
		"\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
		"\xf0\x9f\x98\x80 \xef\xbf\xbd\xef\xbf\xbd\","
		"fd=\"18\",neg=\"-3\"");
	sbuf_free(&sb);
}

static void text_and_openmetrics(void **state)
{
	struct ag_expo t = { .om = false }, o = { .om = true };
	char le[64];

	(void)state;
	sbuf_init(&t.sb);
	sbuf_init(&o.sb);
	for (int i = 0; i < 2; i++) {
		struct ag_expo *e = i ? &o : &t;

		ag_expo_head(e, "sonde_reads_total", AG_COUNTER,
			     "a \"quoted\"\nhelp \\");
		ag_expo_sample_int(e, "sonde_reads_total", NULL, "comm=\"dd\"",
				   NULL, 42);
		ag_expo_head(e, "sonde_sz", AG_HISTOGRAM, "h");
		ag_expo_le(e, 4095, false, le, sizeof(le));
		ag_expo_sample_int(e, "sonde_sz", "_bucket", "", le, 3);
		ag_expo_le(e, 0, true, le, sizeof(le));
		ag_expo_sample_int(e, "sonde_sz", "_bucket", NULL, le, 3);
		ag_expo_sample(e, "sonde_sz", "_sum", NULL, NULL, 0.1);
		ag_expo_sample(e, "sonde_avg", NULL, "a=\"1\"", NULL, 1.0 / 3);
		ag_expo_sample(e, "sonde_avg", NULL, NULL, NULL, 0.0 / 0.0);
		ag_expo_end(e);
		sbuf_putc(&e->sb, '\0');
	}
	assert_string_equal(t.sb.buf,
		"# HELP sonde_reads_total a \"quoted\"\\nhelp \\\\\n"
		"# TYPE sonde_reads_total counter\n"
		"sonde_reads_total{comm=\"dd\"} 42\n"
		"# HELP sonde_sz h\n"
		"# TYPE sonde_sz histogram\n"
		"sonde_sz_bucket{le=\"4095\"} 3\n"
		"sonde_sz_bucket{le=\"+Inf\"} 3\n"
		"sonde_sz_sum 0.1\n"
		"sonde_avg{a=\"1\"} 0.3333333333333333\n"
		"sonde_avg NaN\n");
	assert_string_equal(o.sb.buf,
		"# HELP sonde_reads a \\\"quoted\\\"\\nhelp \\\\\n"
		"# TYPE sonde_reads counter\n"
		"sonde_reads_total{comm=\"dd\"} 42\n"
		"# HELP sonde_sz h\n"
		"# TYPE sonde_sz histogram\n"
		"sonde_sz_bucket{le=\"4095.0\"} 3\n"
		"sonde_sz_bucket{le=\"+Inf\"} 3\n"
		"sonde_sz_sum 0.1\n"
		"sonde_avg{a=\"1\"} 0.3333333333333333\n"
		"sonde_avg NaN\n"
		"# EOF\n");
	sbuf_free(&t.sb);
	sbuf_free(&o.sb);
}

static void accept_negotiation(void **state)
{
	(void)state;
	/* what Prometheus 2.42 sends */
	assert_true(ag_expo_wants_om(
		"application/openmetrics-text;version=1.0.0,"
		"application/openmetrics-text;version=0.0.1;q=0.75,"
		"text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	assert_false(ag_expo_wants_om(NULL));
	assert_false(ag_expo_wants_om("*/*"));
	assert_false(ag_expo_wants_om("text/plain;version=0.0.4"));
	assert_false(ag_expo_wants_om(
		"text/plain;q=0.9, application/openmetrics-text; q=0.5"));
	assert_true(ag_expo_wants_om(" Application/OpenMetrics-Text ;q=0.8 "));
	assert_false(ag_expo_wants_om("application/openmetrics-text;q=0"));
	assert_string_equal(ag_expo_content_type(false),
			    "text/plain; version=0.0.4; charset=utf-8");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_follow_prometheus_rules),
		cmocka_unit_test(pragmas_parse),
		cmocka_unit_test(pragma_errors_name_file_and_line),
		cmocka_unit_test(labels_escaped_and_utf8),
		cmocka_unit_test(text_and_openmetrics),
		cmocka_unit_test(accept_negotiation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
