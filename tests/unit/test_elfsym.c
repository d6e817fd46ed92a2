// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/elfsym: this test binary's own functions found by
 * file offset, the vDSO, and files that are not ELF. */
#include "test.h"
#include "lib/elfsym.h"
#include "lib/procmaps.h"

#include <errno.h>
#include <unistd.h>

/* Not static and not inlined, so .symtab names it. */
__attribute__((noinline)) int elfsym_test_marker(int x);
__attribute__((noinline)) int elfsym_test_marker(int x)
{
	return x * 3 + 1;
}

static void own_function_by_offset(void **state)
{
	struct procmaps pm;
	struct elfsym *e;
	uint64_t addr = (uint64_t)(uintptr_t)elfsym_test_marker + 2;
	uint64_t off, vaddr, delta;
	uint32_t file;
	const char *name;

	(void)state;
	procmaps_init(&pm);
	assert_true(procmaps_find(&pm, getpid(), addr, 1, &file, &off));
	e = elfsym_open(procmaps_file(&pm, file));
	assert_non_null(e);
	assert_true(elfsym_count(e) > 10);
	assert_true(elfsym_off_to_addr(e, off, &vaddr));
	name = elfsym_lookup(e, vaddr, &delta);
	assert_non_null(name);
	assert_string_equal(name, "elfsym_test_marker");
	assert_int_equal(delta, 2);
	assert_int_equal(strlen(elfsym_build_id(e)) % 2, 0);
	elfsym_close(e);
	procmaps_free(&pm);
}

/* A weak alias and a local function of this binary: their bindings. */
#pragma weak elfsym_test_alias = elfsym_test_marker
int elfsym_test_alias(int x);
static __attribute__((noinline, used)) int elfsym_test_local(int x)
{
	return x + 7;
}

static void binding_ranks(void **state)
{
	struct elfsym *e = elfsym_open("/proc/self/exe");
	uint64_t a, sz;
	const char *n;
	int seen = 0;

	(void)state;
	assert_non_null(e);
	for (size_t i = 0; (n = elfsym_get(e, i, &a, &sz)); i++) {
		int want = !strcmp(n, "elfsym_test_marker") ? 2 :
			   !strcmp(n, "elfsym_test_alias") ? 1 :
			   !strcmp(n, "elfsym_test_local") ? 0 : -2;

		if (want == -2)
			continue;
		assert_int_equal(elfsym_binding_rank(e, i), want);
		seen++;
	}
	assert_int_equal(seen, 3);
	assert_int_equal(elfsym_binding_rank(e, (size_t)-1), -1);
	assert_int_equal(elfsym_test_local(1) + elfsym_test_alias(0), 9);
	elfsym_close(e);
}

static void vdso(void **state)
{
	struct elfsym *e = elfsym_open_vdso();
	uint64_t delta;

	(void)state;
	if (!e)
		skip();
	assert_true(elfsym_count(e) > 0);
	/* No address below the image's first symbol resolves. */
	assert_null(elfsym_lookup(e, 0, &delta));
	elfsym_close(e);
}

static void not_elf(void **state)
{
	(void)state;
	errno = 0;
	assert_null(elfsym_open("/proc/self/status"));
	assert_int_equal(errno, ENOEXEC);
	assert_null(elfsym_open("/nonexistent"));
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_function_by_offset),
		cmocka_unit_test(binding_ranks),
		cmocka_unit_test(vdso),
		cmocka_unit_test(not_elf),
	};
	(void)elfsym_test_marker(1);
	return RUN(tests);
}
