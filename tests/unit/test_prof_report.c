// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for prof/report: folded stacks and the table from a small
 * profile built by hand (inlined frames expanded, samples merged, self and
 * total per function, threads by their tid label, Rust names readable). */
#include "test.h"
#include "prof/prof.h"

static void build(struct pprof *p)
{
	struct pprof_line l[2];
	struct pprof_label a[2], b[2];
	uint64_t fmain, fwork, finl, loc[3];
	int64_t v1[2] = { 3, 30000000 }, v2[2] = { 1, 10000000 };

	pprof_init(p);
	pprof_add_type(p, "samples", "count");
	pprof_add_type(p, "cpu", "nanoseconds");
	pprof_set_period(p, "cpu", "nanoseconds", 10000000);
	p->duration_ns = 1000000000;
	fmain = pprof_function(p, "main", NULL, "/src/m.c", 0);
	fwork = pprof_function(p, "work", NULL, "/src/w.c", 0);
	finl = pprof_function(p, "mix", NULL, "/src/w.h", 0);
	l[0] = (struct pprof_line){ finl, 3, 0 };
	l[1] = (struct pprof_line){ fwork, 9, 0 };
	loc[0] = pprof_location(p, 0, 0x100, l, 2);	/* mix inlined in work */
	l[0] = (struct pprof_line){ fmain, 20, 0 };
	loc[1] = pprof_location(p, 0, 0x200, l, 1);
	loc[2] = pprof_location(p, 0, 0x300, NULL, 0);	/* unknown */
	a[0] = (struct pprof_label){ pprof_str(p, "thread"), pprof_str(p, "w1"),
				     0, 0 };
	a[1] = (struct pprof_label){ pprof_str(p, "tid"), 0, 7, 0 };
	b[0] = (struct pprof_label){ pprof_str(p, "thread"), pprof_str(p, "w2"),
				     0, 0 };
	b[1] = (struct pprof_label){ pprof_str(p, "tid"), 0, 8, 0 };
	pprof_add_sample(p, loc, 2, v1, a, 2);
	pprof_add_sample(p, loc, 2, v1, b, 2);
	pprof_add_sample(p, loc + 1, 1, v2, a, 2);
	pprof_add_sample(p, loc + 2, 1, v2, b, 2);
}

static void folded(FILE *f, void *arg)
{
	prof_write_folded(arg, f, DEMANGLE_ALL);
}

static void table(FILE *f, void *arg)
{
	prof_write_table(arg, f, 0, DEMANGLE_ALL);
}

static void folded_stacks(void **state)
{
	struct pprof p;
	char *out;

	(void)state;
	build(&p);
	out = capture(folded, &p);
	assert_string_equal(out,
		"0x300 1\n"
		"main 1\n"
		"main;work;mix 6\n");
	free(out);
	pprof_free(&p);
}

static void top_table(void **state)
{
	struct pprof p;
	char *out;

	(void)state;
	build(&p);
	out = capture(table, &p);
	assert_string_equal(out,
		"Function | File |    Self | Self share |   Total | Total share\n"
		"---------+------+---------+------------+---------+------------\n"
		"mix      | w.h  | 60.0 ms |    75.00 % | 60.0 ms |     75.00 %\n"
		"main     | m.c  | 10.0 ms |    12.50 % | 70.0 ms |     87.50 %\n"
		"work     | w.c  |    0 ns |     0.00 % | 60.0 ms |     75.00 %\n"
		"\n"
		"Thread | TID | Samples |     CPU |   Share\n"
		"-------+-----+---------+---------+--------\n"
		"w1     |   7 |       4 | 40.0 ms | 50.00 %\n"
		"w2     |   8 |       4 | 40.0 ms | 50.00 %\n"
		"\n"
		"# 8 samples, 80.0 ms CPU in 2 threads over 1.00 s (100 Hz)\n");
	free(out);
	pprof_free(&p);
}

/* Rust functions: one as sonde writes it (name demangled, system_name the
 * symbol), one as a profiler that does not demangle writes it (both the
 * symbol): the reports show both readable. */
static void rust_names(void **state)
{
	struct pprof p;
	struct pprof_line l;
	uint64_t loc[2];
	int64_t v[2] = { 2, 20000000 };
	char *out;

	(void)state;
	pprof_init(&p);
	pprof_add_type(&p, "samples", "count");
	pprof_add_type(&p, "cpu", "nanoseconds");
	l = (struct pprof_line){ pprof_function(&p, "<hot::Spinner<u64>>::spin",
		"_RNvMCs7fattgR6AAa_3hotINtB2_7SpinneryE4spinB2_", "", 0), 0, 0 };
	loc[0] = pprof_location(&p, 0, 0x100, &l, 1);
	l = (struct pprof_line){ pprof_function(&p,
		"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h0123456789abcdefE",
		NULL, "", 0), 0, 0 };
	loc[1] = pprof_location(&p, 0, 0x200, &l, 1);
	pprof_add_sample(&p, loc, 2, v, NULL, 0);
	out = capture(folded, &p);
	assert_string_equal(out, "std::rt::lang_start::{{closure}};"
			    "<hot::Spinner<u64>>::spin 2\n");
	free(out);
	out = capture(table, &p);
	assert_non_null(strstr(out, "\n<hot::Spinner<u64>>::spin        |"));
	assert_non_null(strstr(out, "\nstd::rt::lang_start::{{closure}} |"));
	assert_null(strstr(out, "_ZN"));
	free(out);
	pprof_free(&p);
}

/* A readable name longer than a kilobyte (400 path elements) is shown
 * whole, not left mangled. */
static void rust_long_name(void **state)
{
	struct pprof p;
	struct pprof_line l;
	uint64_t loc;
	int64_t v[2] = { 1, 10000000 };
	char sym[2048], want[2048], *out;
	size_t n = 0, w = 0;

	(void)state;
	n += (size_t)snprintf(sym, sizeof(sym), "_ZN");
	for (int i = 0; i < 400; i++) {
		n += (size_t)snprintf(sym + n, sizeof(sym) - n, "3foo");
		w += (size_t)snprintf(want + w, sizeof(want) - w, "%sfoo",
				      i ? "::" : "");
	}
	snprintf(sym + n, sizeof(sym) - n, "17h0123456789abcdefE");
	pprof_init(&p);
	pprof_add_type(&p, "samples", "count");
	l = (struct pprof_line){ pprof_function(&p, sym, NULL, "", 0), 0, 0 };
	loc = pprof_location(&p, 0, 0x100, &l, 1);
	pprof_add_sample(&p, &loc, 1, v, NULL, 0);
	out = capture(folded, &p);
	assert_int_equal(strlen(want), 1998);
	assert_true(strlen(out) == strlen(want) + 3);
	assert_memory_equal(out, want, strlen(want));
	free(out);
	pprof_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(folded_stacks),
		cmocka_unit_test(top_table),
		cmocka_unit_test(rust_names),
		cmocka_unit_test(rust_long_name),
	};

	return RUN(tests);
}
