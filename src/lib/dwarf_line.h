// SPDX-License-Identifier: GPL-2.0-only
/* dwarf_line — one CU's DWARF line program, read for a few addresses
 * without building its table (lib/dwarf's fast path; dwarf_line.c says
 * why libdw alone was too slow). Answers as libdw's: file names joined
 * with their directories as libdw joins them, the row libdw picks. */
#ifndef SONDE_LIB_DWARF_LINE_H
#define SONDE_LIB_DWARF_LINE_H
#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdint.h>

struct dline;

/* The line program of cu (its DW_AT_stmt_list) in elf's .debug_line: its
 * header read, files named. NULL when there is none or this reader does
 * not read it (compressed sections, an unknown form or version, damage):
 * ask libdw then. */
struct dline *dline_open(Elf *elf, Dwarf_Die *cu);
void dline_free(struct dline *l);
/* File idx of the program (DW_AT_call_file's numbering), or NULL. */
const char *dline_file(const struct dline *l, uint64_t idx);
size_t dline_nfiles(const struct dline *l);
/* The row for a DWARF address: 1 and its file, line and column; 0 no row
 * covers it; -1 the program is damaged (ask libdw). */
int dline_find(const struct dline *l, uint64_t addr, const char **file,
	       int *line, int *col);
#endif
