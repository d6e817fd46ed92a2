// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/dwarf, with eu-addr2line as the oracle: every address
 * of a function with two levels of inlining, in an executable and in a
 * relocatable object (as kernel modules are), must give the same function
 * names, files and lines, level by level. */
#include "test.h"
#include "lib/demangle.h"
#include "lib/dwarf.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>

struct level {
	char func[128];
	char file[1024];
	int line;
};

/* Run eu-addr2line -a -f -i on many addresses at once and split its
 * output per address: "0x..." then pairs of "func[ inlined at ...]" and
 * "file:line[:col]". */
static int oracle(const char *file, const char *section,
		  const uint64_t *addrs, int n, struct level (*out)[8],
		  int *nlev)
{
	char *cmd = NULL, line[1024];
	size_t len = 0;
	FILE *m = open_memstream(&cmd, &len), *p;
	int cur = -1;

	fprintf(m, "eu-addr2line -a -f -i %s%s -e '%s'",
		section ? "-j " : "", section ? section : "", file);
	for (int i = 0; i < n; i++)
		fprintf(m, " 0x%llx", (unsigned long long)addrs[i]);
	fclose(m);
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return -1;
	for (int i = 0; i < n; i++)
		nlev[i] = 0;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0x", 2)) {
			cur++;
			continue;
		}
		if (cur < 0 || cur >= n || nlev[cur] >= 8)
			continue;
		struct level *l = &out[cur][nlev[cur]];

		if (!l->func[0]) {
			sscanf(line, "%127s", l->func);
		} else {
			char *c = strrchr(line, ':');

			/* file:line:col or file:line */
			if (c && strchr(line, ':') != c) {
				*c = '\0';
				c = strrchr(line, ':');
			}
			if (c) {
				*c = '\0';
				l->line = atoi(c + 1);
			}
			snprintf(l->file, sizeof(l->file), "%s", line);
			nlev[cur]++;
		}
	}
	/* It exits 1 when some address has no function ("??"). */
	return pclose(p) <= 256 ? cur + 1 : -1;
}

static void compare(struct dsym *d, const char *file, const char *section,
		    uint64_t base, uint64_t start, uint64_t end)
{
	int n = (int)(end - start);
	uint64_t *addrs = calloc(n, sizeof(*addrs));
	struct level (*want)[8] = calloc(n, sizeof(*want));
	int *nlev = calloc(n, sizeof(*nlev)), inlined_seen = 0;

	for (int i = 0; i < n; i++)
		addrs[i] = start + i;
	assert_int_equal(oracle(file, section, addrs, n, want, nlev), n);
	for (int i = 0; i < n; i++) {
		struct dsym_loc got[8];
		int k = dsym_lookup(d, base + addrs[i], got, 8);

		if (!strcmp(want[i][0].func, "??")) {
			/* Alignment padding after the function: outside its
			 * symbol and every DWARF scope. eu-addr2line prints
			 * "??" (and, from elsewhere, a chain); sonde must
			 * just not name a function. */
			assert_true(k <= 1);
			assert_true(k == 0 || !got[0].func);
			continue;
		}
		assert_int_equal(k, nlev[i]);
		for (int j = 0; j < k; j++) {
			char a[1024], b[1024];

			assert_non_null(got[j].func);
			assert_string_equal(got[j].func, want[i][j].func);
			assert_non_null(got[j].file);
			snprintf(a, sizeof(a), "%s", got[j].file);
			snprintf(b, sizeof(b), "%s", want[i][j].file);
			assert_string_equal(basename(a), basename(b));
			assert_int_equal(got[j].line, want[i][j].line);
			assert_int_equal(got[j].inlined, j + 1 < k);
		}
		assert_int_equal(got[k - 1].func_off, addrs[i] - start);
		if (k == 3)
			inlined_seen++;
	}
	/* The fixture really has leaf inlined in middle inlined in outer. */
	assert_true(inlined_seen > 0);
	free(addrs);
	free(want);
	free(nlev);
}

static void executable_matches_addr2line(void **state)
{
	const char *why;
	struct dsym *d = dsym_open(INLINE_EXE, &why);
	uint64_t outer, plain;

	(void)state;
	assert_non_null(d);
	assert_true(dsym_has_dwarf(d));
	assert_int_equal(strlen(dsym_build_id(d)), 40);
	assert_int_equal(dsym_symbol_addr(d, "outer", &outer), 0);
	assert_int_equal(dsym_symbol_addr(d, "plain", &plain), 0);
	assert_true(plain > outer && plain - outer < 4096);
	compare(d, INLINE_EXE, NULL, 0, outer, plain);
	dsym_close(d);
}

static void relocatable_object_by_section(void **state)
{
	struct dsym *d = dsym_open(INLINE_OBJ, NULL);
	uint64_t text, outer, plain;

	(void)state;
	assert_non_null(d);
	/* In an ET_REL file symbols are section-relative: look up through
	 * the offline layout, compare with eu-addr2line -j .text. */
	assert_int_equal(dsym_section_addr(d, ".text", &text), 0);
	assert_int_equal(dsym_symbol_addr(d, "outer", &outer), 0);
	assert_int_equal(dsym_symbol_addr(d, "plain", &plain), 0);
	compare(d, INLINE_OBJ, ".text", text, outer - text, plain - text);
	assert_int_equal(dsym_section_addr(d, ".no_such_section", &text),
			 -ENOENT);
	dsym_close(d);
}

static void bad_files(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_null(dsym_open("/nonexistent/vmlinux", &why));
	assert_null(dsym_open("/proc/self/status", &why));
	assert_non_null(why);
}

static void address_outside(void **state)
{
	struct dsym *d = dsym_open(INLINE_EXE, NULL);
	struct dsym_loc l[4];

	(void)state;
	assert_int_equal(dsym_lookup(d, 0x10, l, 4), 0);
	assert_int_equal(dsym_lookup(d, 0x7fffffffffffull, l, 4), 0);
	dsym_close(d);
}

#ifdef SPIN_EXE
struct find {
	const char *want;
	uint64_t addr, size;
};

static void find_readable(const char *name, uint64_t addr, uint64_t size,
			  void *arg)
{
	struct find *f = arg;
	char buf[256];

	if (demangle_rust(name, buf, sizeof(buf)) > 0 &&
	    !strcmp(buf, f->want)) {
		f->addr = addr;
		f->size = size;
	}
}
#endif

/* A Rust function, whose DIE is nested in a namespace and a struct, keeps
 * its own level under the ones inlined into it (the walk into namespaces
 * once returned its levels in the wrong order, dropping the function).
 * Every level carries its linkage name (std's inlined functions have their
 * path only there). Oracle: binutils' addr2line -f -i, which walks these
 * (eu-addr2line gives no chain here) and names each level by its linkage
 * name; DW_AT_name is the last path element alone, so lines compare. */
static void function_in_namespace(void **state)
{
#ifdef SPIN_EXE
	struct find f = { "<spin::Spinner<u64>>::spin", 0, 0 };
	struct dsym *d = dsym_open(SPIN_EXE, NULL);
	int inl = 0;

	(void)state;
	assert_non_null(d);
	dsym_symbols(d, find_readable, &f);
	assert_true(f.size > 0);
	for (uint64_t a = f.addr; a < f.addr + f.size; a++) {
		struct dsym_loc got[8];
		int want[8], nwant = 0, k = dsym_lookup(d, a, got, 8);
		char cmd[512], line[1024], buf[256], names[8][512];
		FILE *p;

		snprintf(cmd, sizeof(cmd), "addr2line -f -i -e '%s' 0x%llx",
			 SPIN_EXE, (unsigned long long)a);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (nwant < 8 && fgets(names[nwant], sizeof(names[0]), p) &&
		       fgets(line, sizeof(line), p)) {
			char *c = strrchr(line, ':');

			assert_non_null(c);
			names[nwant][strcspn(names[nwant], "\n")] = '\0';
			want[nwant++] = atoi(c + 1);
		}
		assert_int_equal(pclose(p), 0);
		assert_int_equal(k, nwant);
		for (int j = 0; j < k; j++) {
			assert_int_equal(got[j].line, want[j]);
			assert_int_equal(got[j].inlined, j + 1 < k);
			assert_non_null(got[j].linkage);
			assert_string_equal(got[j].linkage, names[j]);
		}
		assert_true(demangle_rust(got[k - 1].func, buf, sizeof(buf)) > 0);
		assert_string_equal(buf, f.want);
		inl += k > 1;
	}
	assert_true(inl > 0);
	dsym_close(d);
#else
	(void)state;
	skip();
#endif
}

/* Every address of every function, looked up through lib/dwarf's own
 * line-program reader and through libdw's line table: the same levels,
 * names, files, lines and columns (libdw is the oracle; eu-addr2line
 * above checks libdw's answers). gcc's DWARF 5 and 4, the relocatable
 * object (sections laid out by libdwfl) and rustc's. */
struct span {
	uint64_t lo, hi;
};

static void text_span(const char *name, uint64_t addr, uint64_t size,
		      void *arg)
{
	struct span *s = arg;

	(void)name;
	if (!size)
		return;
	if (!s->lo || addr < s->lo)
		s->lo = addr;
	if (addr + size > s->hi)
		s->hi = addr + size;
}

static void same_lines(const char *path, uint64_t most)
{
	struct dsym *direct = dsym_open(path, NULL);
	struct dsym *table = dsym_open(path, NULL);
	struct span sp = { 0, 0 };
	unsigned checked = 0, with_lines = 0;
	uint64_t step;

	assert_non_null(direct);
	assert_non_null(table);
	dsym_set_direct_lines(direct, UINT_MAX);
	dsym_set_direct_lines(table, 0);
	assert_true(dsym_symbols(direct, text_span, &sp) > 0);
	assert_true(sp.hi > sp.lo);
	/* Every byte of a small program; at most `most` addresses spread
	 * over a large one (each direct lookup reads its CU's program). */
	step = (sp.hi - sp.lo) / most + 1;
	for (uint64_t a = sp.lo; a < sp.hi; a += step) {
		struct dsym_loc x[8], y[8];
		int n = dsym_lookup(direct, a, x, 8);

		assert_int_equal(n, dsym_lookup(table, a, y, 8));
		for (int i = 0; i < n; i++) {
			if (x[i].line != y[i].line || x[i].col != y[i].col ||
			    !x[i].file != !y[i].file)
				print_message("%s %#llx level %d: %s:%d:%d, "
					      "libdw %s:%d:%d\n", path,
					      (unsigned long long)a, i,
					      x[i].file, x[i].line, x[i].col,
					      y[i].file, y[i].line, y[i].col);
			if (!x[i].file || !y[i].file) {
				assert_ptr_equal(x[i].file, y[i].file);
			} else {
				assert_string_equal(x[i].file, y[i].file);
				with_lines++;
			}
			assert_int_equal(x[i].line, y[i].line);
			assert_int_equal(x[i].col, y[i].col);
		}
		checked++;
	}
	assert_true(checked > 100 && with_lines > 50);
	dsym_close(direct);
	dsym_close(table);
}

static void direct_lines_match_libdw(void **state)
{
	char *paths = strdup(INLINE_VARIANTS), *p, *save = NULL;

	(void)state;
	same_lines(INLINE_EXE, 20000);
	same_lines(INLINE_OBJ, 20000);
	for (p = strtok_r(paths, ":", &save); p; p = strtok_r(NULL, ":", &save))
		same_lines(p, 20000);
#ifdef SPIN_EXE
	same_lines(SPIN_EXE, 1500);	/* std inlined: CUs of 100,000 rows */
#endif
	free(paths);
}

/* clang writes no .debug_aranges, where libdw 0.188 looks CUs up: the
 * CU is found by its own ranges then. Every address of outer() in
 * clang's DWARF 4 and 5 builds against llvm-symbolizer (the oracle):
 * the same levels, names, files, lines and columns. */
static int llvm_oracle(const char *file, uint64_t start, int n,
		       struct level (*out)[8], int *nlev, int (*cols)[8])
{
	char cmd[2048], line[1024];
	FILE *p;
	int cur = 0, half = 0;

	snprintf(cmd, sizeof(cmd), "for a in $(seq %llu %llu); do printf "
		 "'0x%%x\\n' $a; done | llvm-symbolizer --obj='%s' 2>/dev/null"
		 " || for a in $(seq %llu %llu); do printf '0x%%x\\n' $a; "
		 "done | llvm-symbolizer-14 --obj='%s'",
		 (unsigned long long)start, (unsigned long long)start + n - 1,
		 file, (unsigned long long)start,
		 (unsigned long long)start + n - 1, file);
	if (!(p = popen(cmd, "r")))
		return -1;
	memset(nlev, 0, n * sizeof(*nlev));
	while (fgets(line, sizeof(line), p) && cur < n) {
		struct level *l;
		char *c;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0]) {		/* the next address */
			cur++;
			half = 0;
			continue;
		}
		if (nlev[cur] >= 8)
			continue;
		l = &out[cur][nlev[cur]];
		if (!half) {
			snprintf(l->func, sizeof(l->func), "%.127s", line);
			half = 1;
			continue;
		}
		/* file:line:col */
		c = strrchr(line, ':');
		if (c) {
			*c = '\0';
			cols[cur][nlev[cur]] = atoi(c + 1);
			c = strrchr(line, ':');
		}
		if (c) {
			*c = '\0';
			l->line = atoi(c + 1);
		}
		snprintf(l->file, sizeof(l->file), "%s", line);
		nlev[cur]++;
		half = 0;
	}
	pclose(p);
	return cur;
}

static void clang_matches_llvm_symbolizer(void **state)
{
	char *paths = strdup(INLINE_VARIANTS), *p, *save = NULL;
	int tested = 0;

	(void)state;
	for (p = strtok_r(paths, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		struct dsym *d;
		uint64_t outer, plain;
		struct level (*want)[8];
		int (*cols)[8], *nlev, n, inlined_seen = 0;

		if (!strstr(p, "clang"))
			continue;
		d = dsym_open(p, NULL);
		assert_non_null(d);
		assert_int_equal(dsym_symbol_addr(d, "outer", &outer), 0);
		assert_int_equal(dsym_symbol_addr(d, "plain", &plain), 0);
		n = (int)(plain - outer);
		want = calloc(n, sizeof(*want));
		cols = calloc(n, sizeof(*cols));
		nlev = calloc(n, sizeof(*nlev));
		assert_int_equal(llvm_oracle(p, outer, n, want, nlev, cols), n);
		for (int i = 0; i < n; i++) {
			struct dsym_loc got[8];
			int k = dsym_lookup(d, outer + i, got, 8);

			if (!strcmp(want[i][0].func, "??")) {
				assert_true(k <= 1);
				continue;
			}
			assert_int_equal(k, nlev[i]);
			for (int j = 0; j < k; j++) {
				char a[1024], b[1024];

				assert_string_equal(got[j].func,
						    want[i][j].func);
				assert_non_null(got[j].file);
				snprintf(a, sizeof(a), "%s", got[j].file);
				snprintf(b, sizeof(b), "%s", want[i][j].file);
				assert_string_equal(basename(a), basename(b));
				assert_int_equal(got[j].line, want[i][j].line);
				assert_int_equal(got[j].col, cols[i][j]);
			}
			inlined_seen += k == 3;
		}
		assert_true(inlined_seen > 0);
		free(want);
		free(cols);
		free(nlev);
		dsym_close(d);
		tested++;
	}
	free(paths);
	if (!tested)
		skip();		/* no clang: no clang-built fixture */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(executable_matches_addr2line),
		cmocka_unit_test(direct_lines_match_libdw),
		cmocka_unit_test(clang_matches_llvm_symbolizer),
		cmocka_unit_test(relocatable_object_by_section),
		cmocka_unit_test(bad_files),
		cmocka_unit_test(address_outside),
		cmocka_unit_test(function_in_namespace),
	};
	return RUN(tests);
}
