// SPDX-License-Identifier: GPL-2.0-only
/* cg_str — BPF code for D's string functions (cg_str.c). Arguments are
 * registers holding string pointers (with their buffer sizes) or
 * integers; they stay allocated. Each builder returns the scratch offset
 * of its zeroed result buffer of size bytes; dt_cg_strlen returns a new
 * register. */
#ifndef SONDE_DTRACE_CG_STR_H
#define SONDE_DTRACE_CG_STR_H

#include <stdbool.h>

struct dt_cg;

/* Copy a string of src_size bytes at src to dst_size bytes at dst,
 * zero-filling, or cutting it to dst_size - 1 characters; both pointers
 * are registers. */
void dt_cg_strcpy(struct dt_cg *g, int dst, int dst_size, int src,
		  int src_size);
/* Jump to label when the string at s is DTrace's NULL (is_null) or is
 * not (DT_NULL_STRING). */
void dt_cg_str_if_null(struct dt_cg *g, int s, bool is_null, int label);
/* An invalid address (0) fault when the string at s is NULL. */
void dt_cg_str_fault_null(struct dt_cg *g, int s);
/* Make the zeroed string buffer at d NULL. */
void dt_cg_str_set_null(struct dt_cg *g, int d);
/* The first difference of the strings at a and b (a new register), 0
 * when they are equal. */
int dt_cg_strcmp(struct dt_cg *g, int a, int asz, int b, int bsz);

int dt_cg_strlen(struct dt_cg *g, int s, int size);
int dt_cg_strjoin(struct dt_cg *g, int a, int asize, int b, int bsize,
		  int size);
/* index and rem are modified */
int dt_cg_substr(struct dt_cg *g, int s, int ssize, int index, int rem,
		 int size);
int dt_cg_strchr(struct dt_cg *g, int s, int ssize, int ch, bool last,
		 int size);
int dt_cg_strcase(struct dt_cg *g, int s, int ssize, bool upper, int size);
/* v is modified; base 2 to 36 */
int dt_cg_lltostr(struct dt_cg *g, int v, int base, int size);
int dt_cg_pathpart(struct dt_cg *g, int s, int ssize, bool dir, int size);
/* The bpf_loop callbacks the string functions of a unit used, after its
 * code. */
void dt_cg_str_callbacks(struct dt_cg *g);
/* start: a register or -1; returns the scratch offset of the result */
int dt_cg_index(struct dt_cg *g, int s, int ssize, int sub, int subsize,
		int start, bool rev);
/* s: a register, or -1 for strtok(NULL, delim) */
int dt_cg_strtok(struct dt_cg *g, int s, int ssize, int delim, int dsize,
		 int size);

#endif
