// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/flame: sorting and merging stacks, folded output and
 * the flame-graph SVG's frames. */
#include "test.h"
#include "lib/flame.h"

struct args {
	struct flame_stack *s;
	size_t n;
};

static void folded(FILE *f, void *arg)
{
	struct args *a = arg;

	flame_write_folded(f, a->s, a->n);
}

static void svg(FILE *f, void *arg)
{
	struct args *a = arg;

	flame_write_svg(f, a->s, a->n, "t<&>", "sub");
}

static const char *s1[] = { "main", "read", "vfs_read" };
static const char *s2[] = { "main", "write" };
static const char *s3[] = { "main", "read", "vfs_read" };
static const char *s4[] = { "a;b", "c\nd" };

static void sort_merge_and_fold(void **state)
{
	struct flame_stack s[] = {
		{ s2, 2, 5 }, { s1, 3, 2 }, { s3, 3, 1 }, { s4, 2, 7 },
	};
	struct args a = { s, 4 };
	char *out;

	(void)state;
	a.n = flame_sort(s, 4);
	assert_int_equal(a.n, 3);
	out = capture(folded, &a);
	assert_string_equal(out,
		"a:b;c d 7\n"
		"main;read;vfs_read 3\n"
		"main;write 5\n");
	free(out);
}

static void svg_frames(void **state)
{
	struct flame_stack s[] = { { s1, 3, 3 }, { s2, 2, 1 } };
	struct args a = { s, 2 };
	char *out, *p;
	int groups = 0;

	(void)state;
	a.n = flame_sort(s, 2);
	out = capture(svg, &a);
	assert_non_null(strstr(out, "<?xml"));
	assert_non_null(strstr(out, "t&lt;&amp;&gt;"));
	assert_non_null(strstr(out, "<title>all (4 samples, 100.00%)</title>"));
	assert_non_null(strstr(out,
			       "<title>vfs_read (3 samples, 75.00%)</title>"));
	assert_non_null(strstr(out, "<title>write (1 samples, 25.00%)</title>"));
	/* all, main, read, vfs_read, write */
	for (p = out; (p = strstr(p, "<g><title>")); p++)
		groups++;
	assert_int_equal(groups, 5);
	/* main spans the full width: 1200 - 2 * 10. */
	assert_non_null(strstr(out, "width=\"1180.0\""));
	assert_non_null(strstr(out, "</svg>\n"));
	free(out);
}

static void svg_empty(void **state)
{
	struct args a = { NULL, 0 };
	char *out;

	(void)state;
	out = capture(svg, &a);
	assert_null(strstr(out, "<g><title>"));
	assert_non_null(strstr(out, "</svg>"));
	free(out);
}

/* A label cut to fit is cut between characters: "München" in a frame
 * four characters wide reads "Mü..", never half of the ü's two bytes. */
static void svg_label_utf8(void **state)
{
	static const char *wide[] = { "main" }, *narrow[] = { "München" };
	struct flame_stack s[] = { { wide, 1, 97 }, { narrow, 1, 3 } };
	struct args a = { s, 2 };
	char *out;

	(void)state;
	a.n = flame_sort(s, 2);
	out = capture(svg, &a);
	assert_non_null(strstr(out, ">M\xc3\xbc..</text>"));
	assert_non_null(strstr(out, "<title>M\xc3\xbcnchen (3 samples"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sort_merge_and_fold),
		cmocka_unit_test(svg_frames),
		cmocka_unit_test(svg_empty),
		cmocka_unit_test(svg_label_utf8),
	};
	return RUN(tests);
}
