// SPDX-License-Identifier: GPL-2.0-only
/* test.h — what every cmocka unit test includes: cmocka itself and a few
 * helpers for capturing output. */
#ifndef SONDE_TEST_H
#define SONDE_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Run fn(f, arg) on an in-memory FILE and return what it wrote (free it). */
static inline char *capture(void (*fn)(FILE *f, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

/* The whole of a file as a string (free it), or NULL. */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

#define RUN(tests) cmocka_run_group_tests_name(__FILE__, tests, NULL, NULL)

#endif
