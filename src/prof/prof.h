// SPDX-License-Identifier: GPL-2.0-only
/* prof — `sonde prof`, the CPU profiler launcher: runs a command with
 * libsonde-prof.so preloaded (launch.c) and turns the profile it writes
 * into the requested outputs (prof.c, report.c). Private to src/prof. */
#ifndef SONDE_PROF_H
#define SONDE_PROF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../lib/demangle.h"
#include "../lib/outfile.h"
#include "../lib/pprof.h"

enum prof_fmt { FMT_PPROF, FMT_FOLDED, FMT_TABLE };

struct prof_opts {
	uint64_t hz;
	const char *out;	/* -o */
	const char *svg;	/* --svg */
	const char *input;	/* -i */
	enum prof_fmt format;
	bool format_set, kernel, verbose, quiet, no_demangle;
	uint64_t top;
	uint64_t input_max;	/* -i: decompressed bytes at most */
	char **cmd;
};

/* The outputs, opened (checked) before any work: the main one (NULL
 * stream: stdout) and the flame graph. */
struct prof_outputs {
	struct sd_outfile main, svg;
	bool has_main, has_svg;
};

/* Folded stacks (root first, counts = samples) of a profile; kinds: the
 * symbols to show demangled (lib/demangle's DEMANGLE_*), 0 for the
 * symbols as they are. */
void prof_write_folded(struct pprof *p, FILE *f, unsigned kinds);
/* The same stacks as a self-rendered flame graph (lib/flame's, as sonde
 * hot draws it), titled title. */
void prof_write_svg(struct pprof *p, FILE *f, unsigned kinds,
		    const char *title);
/* The hottest functions (top rows; 0 = all) and the threads. */
void prof_write_table(struct pprof *p, FILE *f, uint64_t top,
		      unsigned kinds);

/* output.c: open an output now, saying why not (0 or -errno). */
int prof_open_output(const char *path, struct sd_outfile *of);
/* Read path (a profile, a raw dump, or a directory of them, merged) into
 * p; *nread counts the files read. 0 or -errno. */
int prof_read_profiles(const struct prof_opts *o, struct pprof *p,
		       const char *path, int *nread);
/* Write p to the outputs in o's format and close them; pprof_bytes, when
 * not NULL, are written as they are instead of encoding p (the file the
 * profiled program wrote). kept_hint names where the profile stays when
 * an output fails. Returns 0, or -EIO after saying what failed. */
int prof_render(const struct prof_opts *o, struct pprof *p,
		struct prof_outputs *outs, const void *pprof_bytes,
		size_t pprof_len, const char *kept_hint);
/* "sonde prof: wrote FILE (N samples, M threads, K KB)". */
void prof_say_wrote(const char *path, struct pprof *p, uint64_t bytes);

/* launch.c: run o->cmd under libsonde-prof.so and exit as it did (or 1
 * when an output failed at the end); returns only an exit status for a
 * failure before the command ran. */
int prof_run(struct prof_opts *o);

#endif
