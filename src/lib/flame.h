// SPDX-License-Identifier: GPL-2.0-only
/* flame — call stacks as folded text (flamegraph.pl / speedscope input) and
 * as a self-contained interactive flame-graph SVG (click to zoom, search,
 * hover for details), rendered without Perl or a browser. */
#ifndef SONDE_FLAME_H
#define SONDE_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct flame_stack {
	const char **frames;	/* root first */
	size_t n;
	uint64_t count;
};

/* Sort stacks frame by frame (the order flamegraph.pl draws siblings in)
 * and merge equal stacks, adding their counts. Returns the new count. */
size_t flame_sort(struct flame_stack *s, size_t n);

/* "root;child;leaf count\n" per stack; ';' inside a frame becomes ':' and
 * newlines become spaces so every line stays parseable. */
void flame_write_folded(FILE *f, const struct flame_stack *s, size_t n);

/* An SVG flame graph of sorted stacks (flame_sort first). */
void flame_write_svg(FILE *f, const struct flame_stack *s, size_t n,
		     const char *title, const char *subtitle);

#endif
