// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for sonde hot's report: aggregation by PC, function and
 * module, ordering, top-N, unknown addresses, folded stacks and the JSON
 * document, from synthetic samples and a synthetic kallsyms; Rust symbols
 * shown demangled where people read them. */
#include "test.h"
#include "hot/report.h"

#include <sys/stat.h>
#include <unistd.h>

static const char syms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T vfs_read\n"
	"ffffffff81002000 T vfs_write\n"
	"ffffffff81003000 T entry_SYSCALL_64\n"
	"ffffffff81004000 T _etext\n"
	"ffffffffc0000000 t drv_irq\t[drv]\n";

struct fixture {
	struct hot_opts o;
	struct hot_data d;
	struct hot_ksyms ks;
	bool cpus[2];
	char path[64];
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	fx->cpus[0] = fx->cpus[1] = true;
	fx->o = (struct hot_opts){ .duration_ns = 2000000000ull, .freq = 997,
				   .event = "cpu-clock", .cpus = fx->cpus,
				   .ncpus = 2 };
	hot_data_init(&fx->d);
	fx->d.st.elapsed_ns = 2000000000ull;
	fx->d.st.ncpus_sampled = 2;
	fx->ks.tab = ksym_parse(syms, strlen(syms));
	snprintf(fx->path, sizeof(fx->path), "/tmp/sonde-test-%d.out",
		 (int)getpid());
	fx->o.out_path = fx->path;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	unlink(fx->path);
	hot_data_free(&fx->d);
	ksym_free(fx->ks.tab);
	free(fx);
	return 0;
}

static void add(struct fixture *fx, int count, uint32_t n, ...)
{
	uint64_t f[16];
	va_list ap;

	va_start(ap, n);
	for (uint32_t i = 0; i < n; i++)
		f[i] = va_arg(ap, uint64_t);
	va_end(ap);
	for (int i = 0; i < count; i++)
		hot_data_add(&fx->d, f, n);
	fx->d.st.kept += count;
}

static char *run(struct fixture *fx)
{
	assert_int_equal(hot_report(&fx->o, &fx->d, &fx->ks), 0);
	return slurp(fx->path);
}

/* vfs_read+0x10 x5, vfs_read+0x20 x3, vfs_write+0x8 x3, drv_irq+0x4 x1,
 * and one address past _etext. */
static void load_profile(struct fixture *fx)
{
	add(fx, 5, 1, 0xffffffff81001010ull);
	add(fx, 3, 1, 0xffffffff81001020ull);
	add(fx, 3, 1, 0xffffffff81002008ull);
	add(fx, 1, 1, 0xffffffffc0000004ull);
	add(fx, 1, 1, 0xffffffff81004100ull);
}

static void table_by_pc(void **state)
{
	struct fixture *fx = *state;
	char *out;

	load_profile(fx);
	out = run(fx);
	assert_string_equal(out,
		"Module | Method             | Calls |      Share\n"
		"-------+--------------------+-------+-----------\n"
		"kernel | vfs_read+0x10      |     5 |  38.4615 %\n"
		"kernel | vfs_read+0x20      |     3 |  23.0769 %\n"
		"kernel | vfs_write+0x8      |     3 |  23.0769 %\n"
		"drv    | drv_irq+0x4        |     1 |   7.6923 %\n"
		"kernel | 0xffffffff81004100 |     1 |   7.6923 %\n"
		"\n"
		"# 13 samples in 2.00 s on 2 CPUs (cpu-clock, 997 Hz); "
		"lost 0, throttled 0, unknown 1\n");
	free(out);
}

static void table_by_function_and_top(void **state)
{
	struct fixture *fx = *state;
	char *out;

	load_profile(fx);
	fx->o.agg = HOT_AGG_FUNC;
	fx->o.top = 2;
	fx->d.st.idle = 7;
	out = run(fx);
	assert_string_equal(out,
		"Module | Method    | Calls |      Share\n"
		"-------+-----------+-------+-----------\n"
		"kernel | vfs_read  |     8 |  61.5385 %\n"
		"kernel | vfs_write |     3 |  23.0769 %\n"
		"\n"
		"# 13 samples in 2.00 s on 2 CPUs (cpu-clock, 997 Hz); "
		"dropped 7 idle; lost 0, throttled 0, unknown 1; "
		"top 2 of 4 rows\n");
	free(out);
}

static void table_by_module(void **state)
{
	struct fixture *fx = *state;
	char *out;

	load_profile(fx);
	fx->o.agg = HOT_AGG_MODULE;
	out = run(fx);
	assert_string_equal(out,
		"Module | Calls |      Share\n"
		"-------+-------+-----------\n"
		"kernel |    12 |  92.3077 %\n"
		"drv    |     1 |   7.6923 %\n"
		"\n"
		"# 13 samples in 2.00 s on 2 CPUs (cpu-clock, 997 Hz); "
		"lost 0, throttled 0, unknown 1\n");
	free(out);
}

static void folded_stacks(void **state)
{
	struct fixture *fx = *state;
	char *out;

	/* Leaf first, callers as return address - 1. */
	add(fx, 4, 3, 0xffffffff81001010ull, 0xffffffff81003040ull - 1,
	    0xffffffffc0000020ull - 1);
	add(fx, 2, 2, 0xffffffff81002000ull, 0xffffffff81003040ull - 1);
	add(fx, 1, 2, 0xffffffff81001020ull, 0xffffffff81003040ull - 1);
	fx->o.stacks = true;
	fx->o.format = HOT_FMT_FOLDED;
	out = run(fx);
	assert_string_equal(out,
		"drv`drv_irq;entry_SYSCALL_64;vfs_read 4\n"
		"entry_SYSCALL_64;vfs_read 1\n"
		"entry_SYSCALL_64;vfs_write 2\n");
	free(out);
}

static void json_document(void **state)
{
	struct fixture *fx = *state;
	char *out;

	add(fx, 3, 2, 0xffffffff81001010ull, 0xffffffff81003040ull - 1);
	add(fx, 1, 1, 0xffffffffc0000004ull);
	fx->o.stacks = true;
	fx->o.format = HOT_FMT_JSON;
	fx->o.agg = HOT_AGG_FUNC;
	fx->d.st.lost = 2;
	out = run(fx);
	assert_string_equal(out,
		"{\n"
		"  \"tool\": \"sonde hot\",\n"
		"  \"schema\": 1,\n"
		"  \"event\": \"cpu-clock\",\n"
		"  \"frequency_hz\": 997,\n"
		"  \"duration_ns\": 2000000000,\n"
		"  \"cpus\": [\n    0,\n    1\n  ],\n"
		"  \"aggregate\": \"function\",\n"
		"  \"samples\": 4,\n"
		"  \"dropped_idle\": 0,\n"
		"  \"dropped_other_processes\": 0,\n"
		"  \"lost\": 2,\n"
		"  \"throttled\": 0,\n"
		"  \"unknown\": 0,\n"
		"  \"interrupted\": false,\n"
		"  \"rows\": [\n"
		"    {\n"
		"      \"module\": \"kernel\",\n"
		"      \"method\": \"vfs_read\",\n"
		"      \"calls\": 3,\n"
		"      \"share\": 75.0000\n"
		"    },\n"
		"    {\n"
		"      \"module\": \"drv\",\n"
		"      \"method\": \"drv_irq\",\n"
		"      \"calls\": 1,\n"
		"      \"share\": 25.0000\n"
		"    }\n"
		"  ],\n"
		"  \"stacks\": [\n"
		"    {\n"
		"      \"frames\": [\n"
		"        \"drv`drv_irq\"\n"
		"      ],\n"
		"      \"count\": 1\n"
		"    },\n"
		"    {\n"
		"      \"frames\": [\n"
		"        \"entry_SYSCALL_64\",\n"
		"        \"vfs_read\"\n"
		"      ],\n"
		"      \"count\": 3\n"
		"    }\n"
		"  ]\n"
		"}\n");
	free(out);
}

static void empty_profile(void **state)
{
	struct fixture *fx = *state;
	char *out;

	out = run(fx);
	assert_string_equal(out,
		"Module | Method | Calls | Share\n"
		"-------+--------+-------+------\n"
		"\n"
		"# 0 samples in 2.00 s on 2 CPUs (cpu-clock, 997 Hz); "
		"lost 0, throttled 0, unknown 0\n");
	free(out);
}

static void unwritable_output(void **state)
{
	struct fixture *fx = *state;

	fx->o.out_path = "/nonexistent/dir/out";
	assert_int_not_equal(hot_report(&fx->o, &fx->d, &fx->ks), 0);
	fx->o.out_path = fx->path;
}

/* Rust-for-Linux symbols: v0 in the kernel and in a module, one behind the
 * kernel's __cfi_ prefix, two legacy instances of one generic function
 * (their hashes differ, their readable names do not) and a char constant
 * ';' in generic arguments. Readable forms as llvm-cxxfilt prints them
 * (test_demangle checks the demangler against it). */
static const char rust_syms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81003000 T entry_SYSCALL_64\n"
	"ffffffff81004ff0 T __cfi__RNvMNtNtCs43vyB533jt3_6kernel5alloc9allocatorNtB2_11ReallocFunc4call\n"
	"ffffffff81005000 T _RNvMNtNtCs43vyB533jt3_6kernel5alloc9allocatorNtB2_11ReallocFunc4call\n"
	"ffffffff81006000 T _ZN4core3ptr13drop_in_place17h0123456789abcdefE\n"
	"ffffffff81007000 T _ZN4core3ptr13drop_in_place17hfedcba9876543210E\n"
	"ffffffff81008000 T _RINvCs1234_3foo3barKc3b_E\n"
	"ffffffff81009000 T _etext\n"
	"ffffffffc0000000 t _RNvXs1_CscPPBqWtAqum_11ashmem_rustNtB5_6AshmemNtNtCs43vyB533jt3_6kernel10miscdevice10MiscDevice4mmap\t[ashmem_rust]\n";

#define K_CALL 0xffffffff81005000ull
#define K_CFI 0xffffffff81004ff0ull
#define K_DROP1 0xffffffff81006000ull
#define K_DROP2 0xffffffff81007000ull
#define K_SEMI 0xffffffff81008000ull
#define K_ENTRY 0xffffffff81003000ull
#define M_MMAP 0xffffffffc0000000ull

static void load_rust(struct fixture *fx)
{
	ksym_free(fx->ks.tab);
	fx->ks.tab = ksym_parse(rust_syms, strlen(rust_syms));
	add(fx, 6, 3, K_CALL + 0x10, M_MMAP + 0x40 - 1, K_ENTRY + 0x40 - 1);
	add(fx, 4, 2, K_DROP1 + 0x8, M_MMAP + 0x40 - 1);
	add(fx, 3, 2, K_DROP2 + 0x8, M_MMAP + 0x40 - 1);
	add(fx, 2, 1, K_SEMI + 0x4);
	add(fx, 1, 1, K_CFI + 0x4);
}

/* The table shows readable names; rows stay apart by symbol, so the two
 * drop_in_place instances are two rows. */
static void rust_table_by_function(void **state)
{
	struct fixture *fx = *state;
	char *out;

	load_rust(fx);
	fx->o.agg = HOT_AGG_FUNC;
	out = run(fx);
	assert_string_equal(out,
		"Module | Method                                              | Calls |      Share\n"
		"-------+-----------------------------------------------------+-------+-----------\n"
		"kernel | <kernel::alloc::allocator::ReallocFunc>::call       |     6 |  37.5000 %\n"
		"kernel | core::ptr::drop_in_place                            |     4 |  25.0000 %\n"
		"kernel | core::ptr::drop_in_place                            |     3 |  18.7500 %\n"
		"kernel | foo::bar::<';'>                                     |     2 |  12.5000 %\n"
		"kernel | __cfi_<kernel::alloc::allocator::ReallocFunc>::call |     1 |   6.2500 %\n"
		"\n"
		"# 16 samples in 2.00 s on 2 CPUs (cpu-clock, 997 Hz); "
		"lost 0, throttled 0, unknown 0\n");
	free(out);
}

static void rust_table_by_pc(void **state)
{
	struct fixture *fx = *state;
	char *out;

	load_rust(fx);
	fx->o.top = 1;
	out = run(fx);
	assert_non_null(strstr(out, "kernel | "
		"<kernel::alloc::allocator::ReallocFunc>::call+0x10 |     6 |"));
	free(out);
}

/* Folded stacks are read by people (and flamegraph.pl): readable names,
 * stacks equal once demangled merged, and the ';' of a char constant
 * turned into ':' so the line keeps its frames. Spaces inside a frame are
 * fine: the count is the last field. */
static void rust_folded(void **state)
{
	struct fixture *fx = *state;
	char *out;

	load_rust(fx);
	fx->o.stacks = true;
	fx->o.format = HOT_FMT_FOLDED;
	out = run(fx);
	assert_string_equal(out,
		"__cfi_<kernel::alloc::allocator::ReallocFunc>::call 1\n"
		"ashmem_rust`<ashmem_rust::Ashmem as kernel::miscdevice::MiscDevice>::mmap;core::ptr::drop_in_place 7\n"
		"entry_SYSCALL_64;ashmem_rust`<ashmem_rust::Ashmem as kernel::miscdevice::MiscDevice>::mmap;"
		"<kernel::alloc::allocator::ReallocFunc>::call 6\n"
		"foo::bar::<':'> 2\n");
	free(out);
}

/* JSON keeps the symbols (what lookups match) and adds the readable name
 * to rows. */
static void rust_json(void **state)
{
	struct fixture *fx = *state;
	char *out;

	load_rust(fx);
	fx->o.agg = HOT_AGG_FUNC;
	fx->o.top = 1;
	fx->o.stacks = true;
	fx->o.format = HOT_FMT_JSON;
	out = run(fx);
	assert_non_null(strstr(out,
		"      \"method\": \"_RNvMNtNtCs43vyB533jt3_6kernel5alloc9allocatorNtB2_11ReallocFunc4call\",\n"
		"      \"demangled\": \"<kernel::alloc::allocator::ReallocFunc>::call\",\n"
		"      \"calls\": 6,\n"));
	assert_null(strstr(out, "\"core::ptr::drop_in_place\""));
	assert_non_null(strstr(out,
		"        \"_ZN4core3ptr13drop_in_place17hfedcba9876543210E\"\n"));
	free(out);
}

/* The flame graph shows the readable names, XML-escaped. */
static void rust_svg(void **state)
{
	struct fixture *fx = *state;
	char path[80], *out;

	load_rust(fx);
	snprintf(path, sizeof(path), "%s.svg", fx->path);
	fx->o.svg_path = path;
	fx->o.stacks = true;
	free(run(fx));
	out = slurp(path);
	unlink(path);
	assert_non_null(strstr(out, "<title>ashmem_rust`&lt;ashmem_rust::Ashmem "
			       "as kernel::miscdevice::MiscDevice&gt;::mmap ("
			       "7 samples"));
	assert_non_null(strstr(out, "<title>core::ptr::drop_in_place (7 samples"));
	assert_null(strstr(out, "_RNv"));
	free(out);
}

/* sonde's own samples and, without --user, user-mode ones are dropped
 * and counted: the footer and JSON say how many (nothing when none). */
static void own_and_user_samples(void **state)
{
	struct fixture *fx = *state;
	char *out;

	load_profile(fx);
	fx->d.st.own = 4;
	fx->d.st.user = 39;
	fx->o.top = 1;
	out = run(fx);
	assert_non_null(strstr(out,
		"\n# 13 samples in 2.00 s on 2 CPUs (cpu-clock, 997 Hz); "
		"lost 0, throttled 0, unknown 1, own 4; user mode 75.0 % (not "
		"shown without --user); top 1 of 5 rows\n"));
	free(out);
	fx->o.format = HOT_FMT_JSON;
	out = run(fx);
	assert_non_null(strstr(out, "  \"unknown\": 1,\n"
				    "  \"dropped_own\": 4,\n"
				    "  \"dropped_user_mode\": 39,\n"));
	free(out);
}

/* A write that fails at the end (no space: /dev/full) keeps the output
 * in $TMPDIR and says where. */
static void full_disk_rescue(void **state)
{
	struct fixture *fx = *state;
	char dir[64], *kept;
	const char *old = getenv("TMPDIR");
	FILE *saved = stderr, *err;
	char *msg = NULL, *path;
	size_t len = 0;

	load_profile(fx);
	snprintf(dir, sizeof(dir), "/tmp/sonde-rescue-%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);
	setenv("TMPDIR", dir, 1);
	fx->o.out_path = "/dev/full";
	err = open_memstream(&msg, &len);
	stderr = err;
	assert_int_not_equal(hot_report(&fx->o, &fx->d, &fx->ks), 0);
	stderr = saved;
	fclose(err);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	path = strstr(msg, "; it is in ");
	assert_non_null(path);
	path += strlen("; it is in ");
	path[strcspn(path, " ")] = '\0';
	assert_true(!strncmp(path, dir, strlen(dir)));
	kept = slurp(path);
	assert_non_null(kept);
	assert_non_null(strstr(kept, "kernel | vfs_read+0x10"));
	free(kept);
	unlink(path);
	rmdir(dir);
	free(msg);
	fx->o.out_path = fx->path;
}

/* Counts by name: the table's rows (a module's function gets
 * " [module]", as pprof names it), or go tool pprof -top's flat column.
 * Rows that read alike (two legacy Rust instances) add up: pprof merges
 * functions by name. */
struct named { char name[256]; unsigned long n; };

static void add_named(struct named *v, size_t *n, const char *name,
		      unsigned long count)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(v[i].name, name)) {
			v[i].n += count;
			return;
		}
	snprintf(v[*n].name, sizeof(v[*n].name), "%s", name);
	v[(*n)++].n = count;
}

static void table_counts(const char *table, struct named *v, size_t *n)
{
	const char *l = table;

	*n = 0;
	while ((l = strchr(l, '\n')) && *++l) {
		char mod[64], fn[256];
		unsigned long calls;

		if (sscanf(l, "%63s | %255[^|]| %lu |", mod, fn, &calls) != 3)
			continue;
		fn[strcspn(fn, "\0")] = '\0';
		while (*fn && fn[strlen(fn) - 1] == ' ')
			fn[strlen(fn) - 1] = '\0';
		if (strcmp(mod, "kernel")) {
			char full[330];

			snprintf(full, sizeof(full), "%s [%s]", fn, mod);
			add_named(v, n, full, calls);
		} else {
			add_named(v, n, fn, calls);
		}
	}
}

/* --format pprof as go tool pprof reads it: -top's functions and flat
 * counts equal the table by function; -traces has the chains, root last;
 * -tags the labels. */
static void pprof_matches_table(void **state)
{
	struct fixture *fx = *state;
	struct named want[16], got[16];
	size_t nwant, ngot = 0;
	char cmd[512], line[512], all[8192] = "";
	char *table;
	size_t len = 0;
	FILE *p;

	if (system("command -v go >/dev/null 2>&1"))
		skip();
	load_rust(fx);
	fx->o.agg = HOT_AGG_FUNC;
	table = run(fx);
	table_counts(table, want, &nwant);
	free(table);
	fx->o.format = HOT_FMT_PPROF;
	fx->o.stacks = true;
	free(run(fx));
	snprintf(cmd, sizeof(cmd), "go tool pprof -top -nodecount=100 "
		 "-sample_index=samples -symbolize=none %s 2>/dev/null",
		 fx->path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long flat;
		char name[400];

		if (sscanf(line, " %lu %*s %*s %*s %*s %399[^\n]", &flat,
			   name) == 2 && flat)
			add_named(got, &ngot, name, flat);
	}
	pclose(p);
	assert_int_equal(ngot, nwant);
	assert_true(nwant >= 4);
	for (size_t i = 0; i < nwant; i++) {
		size_t j;

		for (j = 0; j < ngot && strcmp(got[j].name, want[i].name); j++)
			;
		if (j == ngot)
			fail_msg("%s: not in go tool pprof -top", want[i].name);
		assert_int_equal(got[j].n, want[i].n);
	}
	snprintf(cmd, sizeof(cmd), "go tool pprof -traces -symbolize=none %s "
		 "2>/dev/null; go tool pprof -tags -symbolize=none %s 2>/dev/null",
		 fx->path, fx->path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p) && len + strlen(line) < sizeof(all))
		len += (size_t)snprintf(all + len, sizeof(all) - len, "%s", line);
	pclose(p);
	/* leaf first, each frame on its own line (indentation dropped) */
	{
		char *w = all;

		for (const char *r = all; *r; r++)
			if (*r != ' ' || (w > all && w[-1] != ' ' && w[-1] != '\n'))
				*w++ = *r;
		*w = '\0';
	}
	assert_non_null(strstr(all,
		"<kernel::alloc::allocator::ReallocFunc>::call\n"
		"<ashmem_rust::Ashmem as "
		"kernel::miscdevice::MiscDevice>::mmap [ashmem_rust]\n"
		"entry_SYSCALL_64\n"));
	/* the thread's name label (swapper: pid 0 here) */
	assert_non_null(strstr(all, "comm: Total 16.0ms\n16.0ms ( 100%): swapper"));
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(table_by_pc),
		T(table_by_function_and_top),
		T(table_by_module),
		T(folded_stacks),
		T(json_document),
		T(empty_profile),
		T(unwritable_output),
		T(rust_table_by_function),
		T(rust_table_by_pc),
		T(rust_folded),
		T(rust_json),
		T(rust_svg),
		T(own_and_user_samples),
		T(full_disk_rescue),
		T(pprof_matches_table),
	};
	return RUN(tests);
}
