// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for prof/unwind: LEB128 decoding against the DWARF standard's
 * examples, a walk of this process's own stack from a getcontext() deep in
 * a known call chain (named with lib/elfsym), and walks that must end
 * safely on garbage. */
#include "test.h"
#include "lib/elfsym.h"
#include "lib/util.h"
#include "prof/unwind.h"

#include <pthread.h>
#include <ucontext.h>
#include <unistd.h>

static void leb128(void **state)
{
	static const struct { uint8_t b[3]; size_t n; uint64_t v; } u[] = {
		{ { 0x02 }, 1, 2 }, { { 0x7f }, 1, 127 },
		{ { 0x80, 0x01 }, 2, 128 }, { { 0x81, 0x01 }, 2, 129 },
		{ { 0x82, 0x01 }, 2, 130 }, { { 0xb9, 0x64 }, 2, 12857 },
	};
	static const struct { uint8_t b[3]; size_t n; int64_t v; } s[] = {
		{ { 0x02 }, 1, 2 }, { { 0x7e }, 1, -2 },
		{ { 0xff, 0x00 }, 2, 127 }, { { 0x81, 0x7f }, 2, -127 },
		{ { 0x80, 0x01 }, 2, 128 }, { { 0x80, 0x7f }, 2, -128 },
	};
	const uint8_t cut[] = { 0x80, 0x80 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(u); i++) {
		const uint8_t *p = u[i].b;
		uint64_t v;

		assert_true(unw_uleb(&p, u[i].b + u[i].n, &v));
		assert_int_equal(v, u[i].v);
		assert_ptr_equal(p, u[i].b + u[i].n);
	}
	for (size_t i = 0; i < ARRAY_SIZE(s); i++) {
		const uint8_t *p = s[i].b;
		int64_t v;

		assert_true(unw_sleb(&p, s[i].b + s[i].n, &v));
		assert_int_equal(v, s[i].v);
	}
	{
		const uint8_t *p = cut;
		uint64_t v;

		assert_false(unw_uleb(&p, cut + sizeof(cut), &v));
	}
}

static struct unw_stack my_stack(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;
	struct unw_stack st = { 0, 0 };

	assert_int_equal(pthread_getattr_np(pthread_self(), &a), 0);
	assert_int_equal(pthread_attr_getstack(&a, &addr, &size), 0);
	pthread_attr_destroy(&a);
	st.lo = (uintptr_t)addr;
	st.hi = (uintptr_t)addr + size;
	return st;
}

static uintptr_t frames[64];
static int nframes;
static enum unw_end why;
static volatile int depth_sink;

void unw_test_c(void);
void unw_test_b(void);
void unw_test_a(void);

__attribute__((noinline)) void unw_test_c(void)
{
	ucontext_t uc;
	struct unw_stack st[2] = { my_stack(), { 0, 0 } };

	getcontext(&uc);
	nframes = unw_walk(&uc, st, frames, 64, &why);
	depth_sink++;
}

__attribute__((noinline)) void unw_test_b(void)
{
	unw_test_c();
	depth_sink++;
}

__attribute__((noinline)) void unw_test_a(void)
{
	unw_test_b();
	depth_sink++;
}

static const char *name_of(struct elfsym *e, uintptr_t pc)
{
	char exe[4096], line[4200];
	FILE *f = fopen("/proc/self/maps", "r");
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *name = NULL;

	exe[n > 0 ? n : 0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char path[4096] = "";
		uint64_t addr, delta;

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi, &off,
			   path) < 3 || strcmp(path, exe) || pc < lo || pc >= hi)
			continue;
		if (elfsym_off_to_addr(e, pc - lo + off, &addr))
			name = elfsym_lookup(e, addr, &delta);
	}
	if (f)
		fclose(f);
	return name;
}

static void walks_own_stack(void **state)
{
	struct elfsym *e = elfsym_open("/proc/self/exe");
	const char *want[] = { "unw_test_c", "unw_test_b", "unw_test_a",
			       "walks_own_stack" };

	(void)state;
	assert_non_null(e);
	unw_test_a();
	assert_true(nframes >= 5);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const char *n = name_of(e, frames[i]);

		assert_non_null(n);
		assert_string_equal(n, want[i]);
	}
	/* The walk reaches the outermost frame (_start's CFI ends it). */
	assert_int_equal(why, UNW_END_OK);
	elfsym_close(e);
}

static void garbage_ends_safely(void **state)
{
	uint64_t junk[512];
	ucontext_t uc;
	struct unw_stack st[2] = { { (uintptr_t)junk,
				     (uintptr_t)(junk + 512) }, { 0, 0 } };
	uintptr_t f[64];
	enum unw_end w;
	int n;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(junk); i++)
		junk[i] = 0x4141414141414141ull * (i + 1);
	getcontext(&uc);
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)junk;
	uc.uc_mcontext.gregs[REG_RBP] = (greg_t)(uintptr_t)(junk + 8);
	/* A PC in this function: CFI says where its return address is, and
	 * there only junk lies. */
	n = unw_walk(&uc, st, f, 64, &w);
	assert_true(n >= 1 && n <= 3);
	/* A PC nowhere, a frame pointer out of bounds. */
	uc.uc_mcontext.gregs[REG_RIP] = 0x10;
	uc.uc_mcontext.gregs[REG_RBP] = 0x20;
	n = unw_walk(&uc, st, f, 64, &w);
	assert_int_equal(n, 1);
	/* A frame-pointer loop ends at the frame limit or the bounds. */
	junk[0] = (uint64_t)(uintptr_t)junk;
	junk[1] = 0x10;
	uc.uc_mcontext.gregs[REG_RBP] = (greg_t)(uintptr_t)junk;
	n = unw_walk(&uc, st, f, 64, &w);
	assert_true(n <= 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(leb128),
		cmocka_unit_test(walks_own_stack),
		cmocka_unit_test(garbage_ends_safely),
	};

	return RUN(tests);
}
