// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/symbolizer: this process's own code by symbol and
 * line (against the compiler's __func__ and __LINE__), the vDSO against
 * `nm -D` of its image dumped to a file, a JIT's perf map (overlaps,
 * garbage, growth, a symlink refused), kernel symbols from a crafted
 * kallsyms. */
#include "test.h"
#include "lib/elfsym.h"
#include "lib/symbolizer.h"
#include "lib/util.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

static void own_code(void **state)
{
	struct symbolizer *s = symbolizer_new(SYMBOLIZER_LINES);
	uint64_t pc = (uint64_t)(uintptr_t)own_code + 4;
	struct sym_info r;
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	assert_true(symbolizer_user(s, getpid(), pc, 0, &r));
	assert_string_equal(r.function, "own_code");
	assert_int_equal(r.offset, 4);
	assert_string_equal(r.path, exe);
	assert_string_equal(r.module, strrchr(exe, '/') + 1);
	assert_false(r.kernel);
	assert_true(r.nlines >= 1);
	assert_string_equal(r.lines[r.nlines - 1].function, "own_code");
	assert_non_null(strstr(r.lines[0].file, "test_symbolizer.c"));
	/* without lines asked for: the same name, no lines */
	{
		struct symbolizer *s2 = symbolizer_new(0);

		assert_true(symbolizer_user(s2, getpid(), pc, 0, &r));
		assert_string_equal(r.function, "own_code");
		assert_int_equal(r.nlines, 0);
		symbolizer_free(s2);
	}
	symbolizer_free(s);
}

/* Every function of the vDSO as nm names it at its address: the image is
 * written to a file for nm, the symbolizer reads the process's mapping. */
static void vdso(void **state)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	char path[64], cmd[128], line[512];
	struct symbolizer *s = symbolizer_new(0);
	size_t size, checked = 0;
	FILE *f, *p;

	(void)state;
	if (!base)
		skip();
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	snprintf(path, sizeof(path), "/tmp/sonde-vdso-%d.so", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite((void *)base, 1, size, f), size);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only %s 2>/dev/null", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long addr;
		char type, name[256];
		struct sym_info r;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    (type != 'T' && type != 't' && type != 'W' &&
		     type != 'w'))
			continue;
		name[strcspn(name, "@")] = '\0';	/* @@LINUX_2.6 */
		assert_true(symbolizer_user(s, getpid(), base + addr + 1, 0,
					    &r));
		assert_string_equal(r.module, "[vdso]");
		assert_int_equal(r.offset, 1);
		/* aliases: the global name (__vdso_x), as perf shows it */
		if (type == 'T')
			assert_string_equal(r.function, name);
		checked++;
	}
	pclose(p);
	unlink(path);
	if (!checked)
		skip();		/* no nm */
	symbolizer_free(s);
}

static void write_file(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void perf_map(void **state)
{
	char path[64], text[1024];
	struct symbolizer *s;
	struct sym_info r;
	uint8_t *code = mmap(NULL, 0x3000, PROT_READ | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t a = (uint64_t)(uintptr_t)code;

	(void)state;
	assert_true(code != MAP_FAILED);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	/* the second entry is replaced by a later one over its tail;
	 * garbage and a zero size are skipped */
	snprintf(text, sizeof(text),
		 "%llx 100 jit_first\n"
		 "0x%llx 0x200 LazyCompile:*second /app/x.js:1\n"
		 "garbage\n"
		 "%llx 0 empty\n"
		 "%llx 80 py::third:/x.py\r\n",
		 (unsigned long long)a, (unsigned long long)a + 0x1000,
		 (unsigned long long)a + 0x2000,
		 (unsigned long long)a + 0x1100);
	write_file(path, text, "w");
	s = symbolizer_new(0);
	assert_true(symbolizer_user(s, getpid(), a + 0x10, 0, &r));
	assert_string_equal(r.function, "jit_first");
	assert_int_equal(r.offset, 0x10);
	assert_string_equal(r.path, path);
	assert_string_equal(r.module, strrchr(path, '/') + 1);
	assert_true(symbolizer_user(s, getpid(), a + 0x1010, 0, &r));
	assert_string_equal(r.function, "LazyCompile:*second /app/x.js:1");
	assert_true(symbolizer_user(s, getpid(), a + 0x1110, 0, &r));
	assert_string_equal(r.function, "py::third:/x.py");
	assert_int_equal(r.offset, 0x10);
	assert_true(symbolizer_user(s, getpid(), a + 0x11f0, 0, &r));
	assert_string_equal(r.function, "LazyCompile:*second /app/x.js:1");
	assert_false(symbolizer_user(s, getpid(), a + 0x2000, 0, &r));
	assert_string_equal(r.module, "[anon]");
	assert_int_equal(r.offset, a + 0x2000);
	/* the JIT writes more: read again on a miss */
	snprintf(text, sizeof(text), "%llx 10 late\n",
		 (unsigned long long)a + 0x2000);
	write_file(path, text, "a");
	assert_true(symbolizer_user(s, getpid(), a + 0x2004, 0, &r));
	assert_string_equal(r.function, "late");
	symbolizer_free(s);

	/* a symlink in /tmp is not followed */
	unlink(path);
	{
		char target[64];

		snprintf(target, sizeof(target), "/tmp/sonde-pm-%d", (int)getpid());
		write_file(target, text, "w");
		assert_int_equal(symlink(target, path), 0);
		s = symbolizer_new(0);
		assert_false(symbolizer_user(s, getpid(), a + 0x2004, 0, &r));
		symbolizer_free(s);
		unlink(target);
	}
	unlink(path);
	munmap(code, 0x3000);
}

static void kernel(void **state)
{
	static const char syms[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81001000 T vfs_read\n"
		"ffffffff81002000 T _etext\n"
		"ffffffffc0000000 t drv_irq\t[drv]\n";
	struct ksym_table *t = ksym_parse(syms, strlen(syms));
	struct symbolizer *s = symbolizer_new(0);
	struct sym_info r;

	(void)state;
	symbolizer_use_kernel(s, t, false);
	assert_ptr_equal(symbolizer_kernel_table(s), t);
	assert_true(symbolizer_kernel(s, 0xffffffff81001010ull, &r));
	assert_true(r.kernel);
	assert_string_equal(r.function, "vfs_read");
	assert_ptr_equal(r.module, KSYM_KERNEL);
	assert_int_equal(r.offset, 0x10);
	assert_true(symbolizer_kernel(s, 0xffffffffc0000004ull, &r));
	assert_string_equal(r.module, "drv");
	assert_false(symbolizer_kernel(s, 0xffffffff81002100ull, &r));
	assert_null(r.function);
	assert_int_equal(r.offset, 0xffffffff81002100ull);
	symbolizer_free(s);
	ksym_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(own_code),
		cmocka_unit_test(vdso),
		cmocka_unit_test(perf_map),
		cmocka_unit_test(kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
