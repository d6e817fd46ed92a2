// SPDX-License-Identifier: GPL-2.0-only
/* table — padded text tables in the seed tools' layout. See table.h. */
#include "table.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void table_init(struct table *t, size_t ncols, const char **header,
		const enum table_align *align)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->header = sd_calloc(ncols, sizeof(*t->header));
	t->align = sd_calloc(ncols, sizeof(*t->align));
	memcpy(t->header, header, ncols * sizeof(*header));
	memcpy(t->align, align, ncols * sizeof(*align));
}

void table_add(struct table *t, const char *const *cells)
{
	sd_grow(&t->cells, &t->caprows, (t->nrows + 1) * t->ncols,
		sizeof(*t->cells));
	for (size_t c = 0; c < t->ncols; c++)
		t->cells[t->nrows * t->ncols + c] = sd_strdup(cells[c]);
	t->nrows++;
}

static void cell(FILE *f, const char *s, size_t width, enum table_align a,
		 bool last)
{
	size_t pad = width - strlen(s);

	if (a == TABLE_RIGHT)
		fprintf(f, "%*s%s", (int)pad, "", s);
	else if (last)
		fputs(s, f);	/* no trailing blanks */
	else
		fprintf(f, "%s%*s", s, (int)pad, "");
}

static void row(const struct table *t, FILE *f, const char *const *cells,
		const size_t *w)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputs(" | ", f);
		cell(f, cells[c], w[c], t->align[c], c + 1 == t->ncols);
	}
	fputc('\n', f);
}

void table_print(const struct table *t, FILE *f)
{
	size_t *w = sd_calloc(t->ncols, sizeof(*w));

	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->header[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t l = strlen(t->cells[r * t->ncols + c]);

			if (l > w[c])
				w[c] = l;
		}
	}
	row(t, f, t->header, w);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputs("-+-", f);
		for (size_t i = 0; i < w[c]; i++)
			fputc('-', f);
	}
	fputc('\n', f);
	for (size_t r = 0; r < t->nrows; r++)
		row(t, f, (const char *const *)&t->cells[r * t->ncols], w);
	free(w);
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->header);
	free(t->align);
	memset(t, 0, sizeof(*t));
}
