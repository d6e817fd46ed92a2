// SPDX-License-Identifier: GPL-2.0-only
/* layout — every byte the BPF programs and the consumer share: the maps
 * by index, the ring buffer's record header and error record, the per-CPU
 * scratch area's fixed part (counters, zeros, the error record being
 * built), the globals map's head (exit()'s flag and status), the values
 * of the aggregating functions and the keys the consumer decodes. The code
 * generator writes these by offsetof, the consumer reads them as structs,
 * and the sizes are checked here at compile time: a field added on one
 * side is a field added on both. */
#ifndef SONDE_DTRACE_LAYOUT_H
#define SONDE_DTRACE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* ---- maps, by index: ld_imm64 carries the index until load.c puts the
 * file descriptors in ---- */
enum {
	DT_MAP_OUT,		/* ring buffer: records */
	DT_MAP_SCRATCH,		/* per-CPU array, one value: struct
				 * dt_scratch, then the program's own */
	DT_MAP_GLOBALS,		/* array, one value: struct dt_globals, then
				 * speculations and global variables */
	DT_MAP_RODATA,		/* array, one value, frozen: literals */
	DT_MAP_SYSNAMES,	/* array: probe names of a provider (probefunc
				 * as a value), DT_PROBESTR_SIZE bytes each */
	DT_MAP_STACKS,		/* stack traces, when stack() is used */
	DT_MAP_FIRST_VAR,	/* then one per thread-local, array, agg */
};

#define DT_STACK_FRAMES 127	/* the stack-trace map's value: addresses */
#define DT_PROBESTR_SIZE 64	/* probeprov, probemod, probefunc, probename */

/* ---- records ---- */

/* The header that starts every record in the ring buffer. */
struct dt_rechdr {
	uint32_t kind;		/* DT_REC_* */
	uint32_t clause;	/* clause index; errors: the faulting clause */
	uint32_t probe;		/* probe id */
	uint32_t cpu;
};
enum { DT_REC_DATA = 1, DT_REC_ERROR = 2 };
/* A data record of a clause that called speculate(id): kind is
 * DT_REC_DATA | DT_REC_SPEC | id << DT_REC_SPEC_SHIFT (id in 23 bits),
 * kept by the consumer until commit(id) or discard(id). */
#define DT_REC_SPEC 0x80000000u
#define DT_REC_SPEC_SHIFT 8
#define DT_REC_SPEC_MAX 0x7fffff

/* An error record follows its header with these. */
struct dt_errrec {
	uint32_t fault;		/* DTRACEFLT_* */
	uint32_t action;	/* statement number, from 1 */
	uint32_t insn;		/* BPF instruction offset */
	uint32_t pad;
	uint64_t addr;		/* DTRACEFLT_BADADDR: the address */
};
enum { DTRACEFLT_BADADDR = 1, DTRACEFLT_ILLOP = 3, DTRACEFLT_DIVZERO = 4,
	DTRACEFLT_NOSCRATCH = 5, DTRACEFLT_BADSIZE = 10,
	DTRACEFLT_BADINDEX = 11 };

/* An error record as the program writes it to the ring buffer. */
struct dt_errmsg {
	struct dt_rechdr hdr;
	struct dt_errrec err;
};

/* ---- the scratch area (per CPU) ---- */

/* Counters the consumer reports at the end. */
struct dt_counters {
	uint64_t drops;		/* ring buffer full */
	uint64_t aggdrops;	/* aggregation map full */
	uint64_t dyndrops;	/* thread-local / array map full */
	uint64_t errors;	/* faults */
	uint64_t specunavail;	/* speculation(): every buffer in use */
	uint64_t specdrops;	/* speculate(): the buffer's specsize full */
};

/* The scratch area's fixed part. After it: this-> variables, strtok()'s
 * and alloca()'s state (struct dt_strtok, struct dt_alloca), the record
 * being built, then each statement's temporaries. */
struct dt_scratch {
	struct dt_counters counters;
	uint64_t zero[2];	/* a new aggregation value of <= 16 bytes */
	struct dt_errmsg err;	/* an error record being built */
};
#define DT_SCR_THIS ((int)sizeof(struct dt_scratch))	/* this-> vars */
#define DT_SCR(member) ((int)offsetof(struct dt_scratch, member))

/* strtok()'s state: where the next token starts (-1: no string yet in
 * this firing), then a copy of the string, strsize bytes. */
struct dt_strtok {
	int64_t pos;
	char str[];
};

/* alloca()'s memory: the bytes handed out in this clause, then
 * scratchsize bytes. */
struct dt_alloca {
	uint64_t used;
	uint8_t mem[];
};

/* ---- the globals map ---- */

/* Its head; then one "in use" word per speculation buffer and the global
 * variables (types.c lays them out). exit() sets both, so that a dropped
 * exit record still ends the run. */
struct dt_globals {
	uint64_t exited;
	int64_t status;
};

/* ---- aggregations: each function's per-CPU value ---- */

struct dt_aggval_count { int64_t count; };
struct dt_aggval_sum { int64_t sum; };
struct dt_aggval_avg { int64_t count, sum; };
struct dt_aggval_minmax {
	int64_t val;
	uint64_t set;		/* 0: no value yet */
};
struct dt_aggval_stddev {
	int64_t count, sum;
	uint64_t sumsq_lo, sumsq_hi;	/* sum of squares, 128 bits */
};
/* quantize(), lquantize(), llquantize(): one count per bucket. */

/* ---- keys and record values the consumer decodes ---- */

/* sym(), usym() ...: the address and, for the user ones, the pid. */
struct dt_symkey {
	uint64_t addr;
	uint64_t pid;
};

/* stack(), ustack(): the stack map's id in the low half, the pid of a
 * user stack in the high half. */
#define DT_STACKKEY_PID_SHIFT 32

/* ---- the sizes both sides rely on ---- */

_Static_assert(sizeof(struct dt_rechdr) == 16, "record header");
_Static_assert(sizeof(struct dt_errrec) == 24, "error record");
_Static_assert(offsetof(struct dt_errmsg, err) == sizeof(struct dt_rechdr),
	       "an error record follows its header");
_Static_assert(sizeof(struct dt_counters) == 48, "counters");
_Static_assert(sizeof(struct dt_scratch) % 8 == 0,
	       "this-> variables are 8-aligned");
_Static_assert(sizeof(((struct dt_scratch *)0)->zero) >=
	       sizeof(struct dt_aggval_avg) &&
	       sizeof(((struct dt_scratch *)0)->zero) >=
	       sizeof(struct dt_aggval_minmax),
	       "the scratch zeros start every aggregation value but the "
	       "histograms and stddev");
_Static_assert(sizeof(struct dt_globals) == 16, "globals head");
_Static_assert(offsetof(struct dt_strtok, str) == 8, "strtok state");
_Static_assert(offsetof(struct dt_alloca, mem) == 8, "alloca state");
_Static_assert(sizeof(struct dt_aggval_stddev) == 32, "stddev value");
_Static_assert(sizeof(struct dt_symkey) == 16, "KEY_SYM is 16 bytes");

#endif
