// SPDX-License-Identifier: GPL-2.0-only
/* table — the seed tools' text table: columns padded to their widest cell,
 * separated by " | ", a dashed rule under the header joined with "-+-".
 *
 *   Module | Method                     | Calls |      Share
 *   -------+----------------------------+-------+-----------
 *   kernel | pv_native_safe_halt+0xb    |  9871 |  98.5271 %
 */
#ifndef SONDE_TABLE_H
#define SONDE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum table_align { TABLE_LEFT, TABLE_RIGHT };

struct table {
	size_t ncols;
	const char **header;
	enum table_align *align;
	size_t nrows, caprows;
	char **cells;		/* nrows * ncols strings, owned */
};

void table_init(struct table *t, size_t ncols, const char **header,
		const enum table_align *align);
/* Append a row of ncols cells (copied). */
void table_add(struct table *t, const char *const *cells);
void table_print(const struct table *t, FILE *f);
void table_free(struct table *t);

#endif
