// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/ksym: kallsyms and System.map parsing, aliases,
 * modules, non-code symbols, chunked input, lookups at the edges. */
#include "test.h"
#include "lib/ksym.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 t startup_alias\n"
	"ffffffff81001000 t __do_one_alias\n"
	"ffffffff81001000 T do_one\n"
	"ffffffff81002000 D some_data\n"
	"ffffffff81002000 t dup_name\n"
	"ffffffff81002800 r some_rodata\n"
	"ffffffff81003000 t dup_name\n"
	"ffffffff81004000 W weak_fn\n"
	"ffffffff81005000 T _etext\n"
	"ffffffff82000000 T _sinittext\n"
	"ffffffff82001000 T _einittext\n"
	"ffffffff83000000 B some_bss\n"
	"ffffffffc0000000 t mod_fn\t[mymod]\n"
	"ffffffffc0000100 T mod_fn2\t[mymod]\n"
	"ffffffffc0001000 t bpf_prog_6deef7357e7b4530_sd_fw\t[bpf]\n"
	"ffffffffc0002000 t mod3_fn\t[othermod 0123456789abcdef]\n";

static struct ksym_table *parse(const char *s)
{
	return ksym_parse(s, strlen(s));
}

static void expect(const struct ksym_table *t, uint64_t addr,
		   const char *name, const char *module, uint64_t off)
{
	struct ksym s;

	if (!name) {
		assert_false(ksym_lookup(t, addr, &s));
		return;
	}
	assert_true(ksym_lookup(t, addr, &s));
	assert_string_equal(s.name, name);
	assert_string_equal(s.module, module);
	assert_int_equal(addr - s.addr, off);
}

static void parses_code_symbols_only(void **state)
{
	struct ksym_table *t = parse(kallsyms);

	(void)state;
	/* 18 lines: 3 data/bss/rodata dropped, 3 aliases collapsed. */
	assert_int_equal(t->n, 12);
	assert_int_equal(t->aliases, 3);
	assert_false(t->hidden);
	expect(t, 0xffffffff81002000, "dup_name", "kernel", 0);
	expect(t, 0xffffffff81002900, "dup_name", "kernel", 0x900);
	ksym_free(t);
}

static void aliases_pick_best_name(void **state)
{
	struct ksym_table *t = parse(kallsyms);

	(void)state;
	/* Global beats local; fewer underscores win; then the last in file
	 * order, as perf names them (__pi___x86_indirect_thunk_rax and
	 * __x86_indirect_thunk_rax, in that order, are perf's latter). */
	expect(t, 0xffffffff81001010, "do_one", "kernel", 0x10);
	expect(t, 0xffffffff81000000, "_text", "kernel", 0);
	ksym_free(t);
}

static void duplicate_names_kept(void **state)
{
	struct ksym_table *t = parse(kallsyms);
	struct ksym s;

	(void)state;
	expect(t, 0xffffffff81003004, "dup_name", "kernel", 4);
	assert_true(ksym_by_name(t, "dup_name", &s));
	assert_int_equal(s.addr, 0xffffffff81002000);
	assert_false(ksym_by_name(t, "some_data", &s));
	ksym_free(t);
}

static void end_markers_and_edges(void **state)
{
	struct ksym_table *t = parse(kallsyms);

	(void)state;
	expect(t, 0xffffffff80ffffff, NULL, NULL, 0);
	expect(t, 0xffffffff81004fff, "weak_fn", "kernel", 0xfff);
	expect(t, 0xffffffff81005000, NULL, NULL, 0);	/* _etext */
	expect(t, 0xffffffff81ffffff, NULL, NULL, 0);
	expect(t, 0xffffffff82000010, "_sinittext", "kernel", 0x10);
	expect(t, 0xffffffff82001000, NULL, NULL, 0);	/* _einittext */
	expect(t, 0, NULL, NULL, 0);
	ksym_free(t);
}

static void modules(void **state)
{
	struct ksym_table *t = parse(kallsyms);
	struct ksym s;

	(void)state;
	expect(t, 0xffffffffc0000010, "mod_fn", "mymod", 0x10);
	expect(t, 0xffffffffc0000fff, "mod_fn2", "mymod", 0xeff);
	expect(t, 0xffffffffc0001010, "bpf_prog_6deef7357e7b4530_sd_fw",
	       "bpf", 0x10);
	assert_true(ksym_lookup(t, 0xffffffffc0001010, &s));
	assert_ptr_equal(s.module, KSYM_BPF);
	assert_true(ksym_lookup(t, 0xffffffff81001000, &s));
	assert_ptr_equal(s.module, KSYM_KERNEL);
	/* "[mod buildid]": the build-id is not part of the name. */
	expect(t, 0xffffffffc0002000, "mod3_fn", "othermod", 0);
	/* The last symbol of a module reaches at most 1 MiB. */
	expect(t, 0xffffffffc0002000 + 0xfffff, "mod3_fn", "othermod", 0xfffff);
	expect(t, 0xffffffffc0002000 + 0x100000, NULL, NULL, 0);
	ksym_free(t);
}

static void chunked_input_equals_whole(void **state)
{
	struct ksym_table *whole = parse(kallsyms);
	size_t len = strlen(kallsyms);

	(void)state;
	for (size_t chunk = 1; chunk <= len; chunk += chunk < 64 ? 1 : 37) {
		struct ksym_table *t = ksym_new();

		for (size_t off = 0; off < len; off += chunk)
			ksym_parse_chunk(t, kallsyms + off,
					 off + chunk > len ? len - off : chunk);
		ksym_parse_end(t);
		assert_int_equal(t->n, whole->n);
		for (size_t i = 0; i < t->n; i++) {
			struct ksym a, b;

			ksym_get(t, i, &a);
			ksym_get(whole, i, &b);
			assert_int_equal(a.addr, b.addr);
			assert_string_equal(a.name, b.name);
			assert_string_equal(a.module, b.module);
		}
		ksym_free(t);
	}
	ksym_free(whole);
}

static void unsorted_input_sorted(void **state)
{
	struct ksym_table *t = parse("ffffffff81003000 t c\n"
				     "ffffffff81001000 t a\n"
				     "ffffffff81002000 t b\n");

	(void)state;
	expect(t, 0xffffffff81001fff, "a", "kernel", 0xfff);
	expect(t, 0xffffffff81002001, "b", "kernel", 1);
	expect(t, 0xffffffff81003001, "c", "kernel", 1);
	ksym_free(t);
}

static void hidden_addresses(void **state)
{
	struct ksym_table *t = parse("0000000000000000 T _stext\n"
				     "0000000000000000 t foo\n"
				     "0000000000000000 t bar\t[mod]\n");

	(void)state;
	assert_true(t->hidden);
	expect(t, 0, NULL, NULL, 0);
	expect(t, 0xffffffff81000000, NULL, NULL, 0);
	ksym_free(t);
}

static void system_map_and_garbage(void **state)
{
	static const char map[] =
		"ffffffff81000000 T _text\r\n"
		"not a symbol line\n"
		"ffffffff8100100 T short_addr_is_fine\n"
		"zzzzzzzzzzzzzzzz T bad_hex\n"
		"ffffffff81001000 T\n"
		"ffffffff81001000 TT two_letters\n"
		"1ffffffff81001000 T seventeen_digits\n"
		"\n"
		"ffffffff81002000 t after_blank   \n"
		"ffffffff81003000 t no_newline_at_end";
	struct ksym_table *t = parse(map);
	char *big = malloc(4096);

	(void)state;
	expect(t, 0xffffffff81000001, "_text", "kernel", 1);
	expect(t, 0xffffffff8100100, "short_addr_is_fine", "kernel", 0);
	expect(t, 0xffffffff81002001, "after_blank", "kernel", 1);
	expect(t, 0xffffffff81003001, "no_newline_at_end", "kernel", 1);
	assert_int_equal(t->n, 4);
	ksym_free(t);

	/* An overlong line split across chunks is skipped, not truncated
	 * into a symbol. */
	memset(big, 'x', 4095);
	big[4095] = '\0';
	memcpy(big, "ffffffff81000000 t ", 19);
	t = ksym_new();
	ksym_parse_chunk(t, big, 2000);
	ksym_parse_chunk(t, big + 2000, 2095);
	ksym_parse_chunk(t, "\nffffffff81001000 t ok\n", 23);
	ksym_parse_end(t);
	assert_int_equal(t->n, 1);
	expect(t, 0xffffffff81001000, "ok", "kernel", 0);
	ksym_free(t);
	free(big);
}

static void empty_input(void **state)
{
	struct ksym_table *t = parse("");

	(void)state;
	assert_int_equal(t->n, 0);
	assert_false(t->hidden);
	expect(t, 0xffffffff81000000, NULL, NULL, 0);
	ksym_free(t);
	assert_null(ksym_load("/nonexistent/kallsyms"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_code_symbols_only),
		cmocka_unit_test(aliases_pick_best_name),
		cmocka_unit_test(duplicate_names_kept),
		cmocka_unit_test(end_markers_and_edges),
		cmocka_unit_test(modules),
		cmocka_unit_test(chunked_input_equals_whole),
		cmocka_unit_test(unsorted_input_sorted),
		cmocka_unit_test(hidden_addresses),
		cmocka_unit_test(system_map_and_garbage),
		cmocka_unit_test(empty_input),
	};
	return RUN(tests);
}
