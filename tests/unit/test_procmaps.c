// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/procmaps: maps lines, time-versioned mappings across
 * mmap, exec and fork, and /proc of this very process. */
#include "test.h"
#include "lib/procmaps.h"

#include <unistd.h>

static void parse_lines(void **state)
{
	uint64_t s, e, off;
	const char *path;

	(void)state;
	assert_true(procmaps_parse_line(
		"55d4a8e00000-55d4a8e21000 r-xp 00002000 fe:01 1234   "
		"/usr/bin/dd", &s, &e, &off, &path));
	assert_int_equal(s, 0x55d4a8e00000ull);
	assert_int_equal(e, 0x55d4a8e21000ull);
	assert_int_equal(off, 0x2000);
	assert_string_equal(path, "/usr/bin/dd");
	assert_true(procmaps_parse_line(
		"7ffd1c5f0000-7ffd1c5f2000 r-xp 00000000 00:00 0 [vdso]",
		&s, &e, &off, &path));
	assert_string_equal(path, "[vdso]");
	assert_true(procmaps_parse_line(
		"7f0000000000-7f0000001000 rwxp 00000000 00:00 0",
		&s, &e, &off, &path));
	assert_string_equal(path, "");
	assert_false(procmaps_parse_line(
		"55d4a8e00000-55d4a8e21000 r--p 00000000 fe:01 1234 /x",
		&s, &e, &off, &path));
	assert_false(procmaps_parse_line("garbage", &s, &e, &off, &path));
}

static void versions_in_time(void **state)
{
	struct procmaps pm;
	uint32_t file;
	uint64_t off;
	const pid_t pid = 0x7ffffff0;	/* no such process: nothing from /proc */

	(void)state;
	procmaps_init(&pm);
	procmaps_mmap(&pm, pid, 0x1000, 0x1000, 0x3000, "/bin/old", 100);
	assert_true(procmaps_find(&pm, pid, 0x1010, 150, &file, &off));
	assert_string_equal(procmaps_file(&pm, file), "/bin/old");
	assert_int_equal(off, 0x3010);
	{
		struct procmaps_map m;

		/* The same mapping with its bounds. */
		assert_true(procmaps_lookup(&pm, pid, 0x1fff, 150, &m));
		assert_int_equal(m.start, 0x1000);
		assert_int_equal(m.end, 0x2000);
		assert_int_equal(m.pgoff, 0x3000);
		assert_int_equal(m.file, file);
		assert_false(procmaps_lookup(&pm, pid, 0x2000, 150, &m));
	}
	/* Before the mmap happened, nothing was there. */
	assert_false(procmaps_find(&pm, pid, 0x1010, 50, &file, &off));

	/* exec at 200, the new image maps the same range at 210. */
	procmaps_exec(&pm, pid, 200);
	procmaps_mmap(&pm, pid, 0x1000, 0x2000, 0, "/bin/new", 210);
	assert_true(procmaps_find(&pm, pid, 0x1010, 199, &file, &off));
	assert_string_equal(procmaps_file(&pm, file), "/bin/old");
	assert_false(procmaps_find(&pm, pid, 0x1010, 205, &file, &off));
	assert_int_equal(file, PROCMAPS_ANON);
	assert_true(procmaps_find(&pm, pid, 0x2010, 300, &file, &off));
	assert_string_equal(procmaps_file(&pm, file), "/bin/new");
	assert_int_equal(off, 0x1010);

	/* A child inherits the mappings current at the fork. */
	procmaps_fork(&pm, pid, pid + 1, 400);
	assert_true(procmaps_find(&pm, pid + 1, 0x1010, 390, &file, &off));
	assert_string_equal(procmaps_file(&pm, file), "/bin/new");

	/* Anonymous code stays anonymous; paths are interned once. */
	procmaps_mmap(&pm, pid, 0x9000, 0x1000, 0, "", 500);
	assert_false(procmaps_find(&pm, pid, 0x9000, 600, &file, &off));
	procmaps_mmap(&pm, pid, 0xa000, 0x1000, 0, "/bin/old", 500);
	assert_int_equal(pm.nfiles, 3);	/* [anon], old, new */
	procmaps_free(&pm);
}

/* Records from several CPUs' rings are read CPU by CPU: the new program's
 * mmap (later, on another CPU) can be read before its exec. The exec ends
 * only what was mapped before it. */
static void exec_read_after_its_mmaps(void **state)
{
	struct procmaps pm;
	uint32_t file;
	uint64_t off;
	const pid_t pid = 0x7ffffff1;

	(void)state;
	procmaps_init(&pm);
	procmaps_mmap(&pm, pid, 0x1000, 0x1000, 0, "/bin/old", 100);
	procmaps_mmap(&pm, pid, 0x5000, 0x1000, 0, "/bin/new", 210);
	procmaps_exec(&pm, pid, 200);
	assert_true(procmaps_find(&pm, pid, 0x5010, UINT64_MAX - 1, &file,
				  &off));
	assert_string_equal(procmaps_file(&pm, file), "/bin/new");
	assert_false(procmaps_find(&pm, pid, 0x1010, UINT64_MAX - 1, &file,
				   &off));
	assert_true(procmaps_find(&pm, pid, 0x1010, 150, &file, &off));
	procmaps_free(&pm);
}

static void self_from_proc(void **state)
{
	struct procmaps pm;
	uint32_t file;
	uint64_t off;
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	procmaps_init(&pm);
	/* Never seen: loaded from /proc/PID/maps on first use. */
	assert_true(procmaps_find(&pm, getpid(),
				  (uint64_t)(uintptr_t)self_from_proc, 1,
				  &file, &off));
	assert_string_equal(procmaps_file(&pm, file), exe);
	procmaps_free(&pm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_lines),
		cmocka_unit_test(versions_in_time),
		cmocka_unit_test(exec_read_after_its_mmaps),
		cmocka_unit_test(self_from_proc),
	};
	return RUN(tests);
}
