// SPDX-License-Identifier: GPL-2.0-only
/* pprof — profiles in pprof's profile.proto format (profile.proto here,
 * encoded with protobuf-c): a builder that interns strings, functions,
 * locations and identical samples, writes the profile gzipped (as pprof
 * tools expect) and reads one back, merging it into a builder. Any tool
 * that produces stacks with values can write a profile that go tool pprof,
 * speedscope or Pyroscope read. IDs of mappings, locations and functions
 * are 1-based indexes into the arrays below; string 0 is "". */
#ifndef SONDE_PPROF_H
#define SONDE_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

struct pprof_valtype {
	int64_t type, unit;	/* string indexes */
};

struct pprof_mapping {
	uint64_t start, limit, offset;
	int64_t file, build_id;
	bool has_functions, has_filenames, has_lines, has_inlines;
};

struct pprof_function {
	int64_t name, system_name, file, start_line;
};

struct pprof_line {
	uint64_t function;	/* function id */
	int64_t line, column;
};

struct pprof_location {
	uint64_t mapping;	/* mapping id or 0 */
	uint64_t address;
	struct pprof_line *lines;	/* innermost first */
	size_t nlines;
};

struct pprof_label {
	int64_t key, str, num, unit;	/* str, or num with its unit */
};

struct pprof_sample {
	uint64_t *locs;		/* location ids, leaf first */
	size_t nlocs;
	int64_t *values;	/* one per sample type */
	struct pprof_label *labels;
	size_t nlabels;
};

struct pprof {
	char **strings;
	size_t nstrings, capstrings;
	struct pprof_valtype *types;
	size_t ntypes;
	struct pprof_mapping *mappings;
	size_t nmappings, capmappings;
	struct pprof_function *functions;
	size_t nfunctions, capfunctions;
	struct pprof_location *locations;
	size_t nlocations, caplocations;
	struct pprof_sample *samples;
	size_t nsamples, capsamples;
	int64_t *comments;
	size_t ncomments;
	struct pprof_valtype period_type;
	int64_t period, time_ns, duration_ns, default_type;
	struct htab str_index, fn_index, loc_index, sample_index;
};

void pprof_init(struct pprof *p);
void pprof_free(struct pprof *p);

/* The index of s in the string table (added if new). */
int64_t pprof_str(struct pprof *p, const char *s);
const char *pprof_string(const struct pprof *p, int64_t idx);

/* Declare the next sample type ("cpu", "nanoseconds"). */
void pprof_add_type(struct pprof *p, const char *type, const char *unit);
void pprof_set_period(struct pprof *p, const char *type, const char *unit,
		      int64_t period);
void pprof_add_comment(struct pprof *p, const char *text);

/* Add a mapping; returns its id. */
uint64_t pprof_add_mapping(struct pprof *p, const struct pprof_mapping *m);
/* The id of the function with these strings (added if new). */
uint64_t pprof_function(struct pprof *p, const char *name,
			const char *system_name, const char *file,
			int64_t start_line);
/* The id of the location of address in mapping (added with these lines if
 * new; lines are copied). */
uint64_t pprof_location(struct pprof *p, uint64_t mapping, uint64_t address,
			const struct pprof_line *lines, size_t nlines);
/* Add values to the sample with these locations and labels (a new sample
 * if there is none yet). values has ntypes entries. */
void pprof_add_sample(struct pprof *p, const uint64_t *locs, size_t nlocs,
		      const int64_t *values, const struct pprof_label *labels,
		      size_t nlabels);

/* Encode, gzip and write to path through a temporary file renamed into
 * place. 0 or -errno. */
int pprof_write(const struct pprof *p, const char *path);
/* Encode (no gzip) into a malloc'd buffer. */
uint8_t *pprof_encode(const struct pprof *p, size_t *len);
/* Encode and gzip into a malloc'd buffer: what a pprof HTTP endpoint
 * serves. */
uint8_t *pprof_encode_gzip(const struct pprof *p, size_t *len);

/* Read a profile (gzipped or not) from path and merge it into p, which
 * must be empty or have the same sample types. Returns 0, -errno, or
 * -EINVAL / -EPROTO for a file that is not a profile. */
int pprof_read(struct pprof *p, const char *path);
/* The same, refusing (-EFBIG) a file that decompresses to more than max
 * bytes: a 14 MB gzip bomb holds 3 GB of zeros. */
int pprof_read_max(struct pprof *p, const char *path, size_t max);
/* The same from bytes in memory. */
int pprof_merge_bytes(struct pprof *p, const uint8_t *buf, size_t len);

#endif
