// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/table: the seed tool's exact layout. */
#include "test.h"
#include "lib/table.h"

static const char *hdr[] = { "Module", "Method", "Calls", "Share" };
static const enum table_align al[] = { TABLE_LEFT, TABLE_LEFT, TABLE_RIGHT,
				       TABLE_RIGHT };

static void print(FILE *f, void *arg)
{
	table_print(arg, f);
}

/* osxkerneltracer's README output, row for row. */
static void seed_layout(void **state)
{
	static const char *rows[][4] = {
		{ "kernel", "machine_idle+0x1fd", "72179", "98.5271 %" },
		{ "kernel", "0xffffff8013552880+0x313", "349", " 0.4764 %" },
		{ "vmmon", "Task_Switch+0xed1", "169", " 0.2307 %" },
		{ "kernel", "lck_rw_lock_exclusive+0x24", "5", " 0.0068 %" },
	};
	static const char expected[] =
		"Module | Method                     | Calls |      Share\n"
		"-------+----------------------------+-------+-----------\n"
		"kernel | machine_idle+0x1fd         | 72179 |  98.5271 %\n"
		"kernel | 0xffffff8013552880+0x313   |   349 |   0.4764 %\n"
		"vmmon  | Task_Switch+0xed1          |   169 |   0.2307 %\n"
		"kernel | lck_rw_lock_exclusive+0x24 |     5 |   0.0068 %\n";
	struct table t;
	char *out;

	(void)state;
	table_init(&t, 4, hdr, al);
	for (size_t i = 0; i < 4; i++) {
		char share[32];
		const char *cells[4] = { rows[i][0], rows[i][1], rows[i][2],
					 share };

		/* sonde hot formats shares as "%8.4f %" */
		snprintf(share, sizeof(share), "%8.4f %%", atof(rows[i][3]));
		table_add(&t, cells);
	}
	out = capture(print, &t);
	assert_string_equal(out, expected);
	free(out);
	table_free(&t);
}

static void header_only_and_wide_cells(void **state)
{
	struct table t;
	char *out;
	const char *cells[4] = { "a-very-long-module-name", "f", "1234567",
				 "100.0000 %" };

	(void)state;
	table_init(&t, 4, hdr, al);
	out = capture(print, &t);
	assert_string_equal(out, "Module | Method | Calls | Share\n"
				 "-------+--------+-------+------\n");
	free(out);
	table_add(&t, cells);
	out = capture(print, &t);
	assert_string_equal(out,
		"Module                  | Method |   Calls |      Share\n"
		"------------------------+--------+---------+-----------\n"
		"a-very-long-module-name | f      | 1234567 | 100.0000 %\n");
	free(out);
	table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(seed_layout),
		cmocka_unit_test(header_only_and_wide_cells),
	};
	return RUN(tests);
}
