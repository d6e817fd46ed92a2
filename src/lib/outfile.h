// SPDX-License-Identifier: GPL-2.0-only
/* outfile — how every sonde command writes a file it was asked to write, so
 * that a typo fails before the work starts and no output path is ever
 * destroyed:
 *
 * - Opening checks the path at once: a missing directory or a read-only
 *   place fails before sampling, tracing or running anything.
 * - A regular file (or a path that does not exist yet) is written to a
 *   temporary sibling in the same directory and renamed over it when the
 *   caller publishes it: an earlier file survives a run that fails. A
 *   symbolic link to a regular file stays a link; its target is replaced.
 * - Anything else — a character device such as /dev/null, a FIFO, a
 *   socket, a terminal, a link to one of those, "-" for standard output —
 *   is written through, in place: never renamed over, never truncated
 *   when it is not a regular file, never read.
 * - Append mode writes in place (the caller checks what is there).
 * - When the end fails (no space left, I/O error) the temporary file is
 *   kept and named (sd_outfile_kept) so what was written can be recovered.
 *
 * Knows nothing about any tool. */
#ifndef SONDE_OUTFILE_H
#define SONDE_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

enum {
	SD_OUT_APPEND = 1 << 0,	/* O_APPEND in place, no temporary file */
	SD_OUT_NONBLOCK = 1 << 1, /* keep O_NONBLOCK on a FIFO or socket */
};

struct sd_outfile {
	char *path;		/* as given ("-" for standard output) */
	char *final;		/* the file the temporary one replaces */
	char *tmp;		/* temporary sibling; NULL when in place */
	int fd;
	FILE *f;		/* sd_outfile_stream()'s, when asked for */
	bool through;		/* not a regular file: written in place */
	bool published;		/* the temporary file has been renamed */
	int err;		/* first error seen, negative errno */
};

/* Opens path for writing as above; mode is for a file it creates (a file
 * it replaces keeps its own mode). Returns 0, or a negative errno with
 * nothing created: -ENOENT (no such directory), -EACCES, -EISDIR, -ENXIO
 * (a FIFO nobody reads), ... */
int sd_outfile_open(struct sd_outfile *o, const char *path, mode_t mode,
		    unsigned flags);

/* A stdio stream on the file (created once; closed by sd_outfile_close). */
FILE *sd_outfile_stream(struct sd_outfile *o);

/* Writes all of buf, retrying short writes and EINTR; the first error is
 * kept in o->err and returned (negative errno). */
int sd_outfile_write(struct sd_outfile *o, const void *buf, size_t len);

/* Renames the temporary file over the final one now, keeping it open for
 * more writing (a trace that is still being recorded becomes visible under
 * its name). A no-op in place. Returns 0 or a negative errno. */
int sd_outfile_publish(struct sd_outfile *o);

/* Flushes, syncs a temporary file, publishes it and closes. Returns 0, or
 * the first error of the whole life of the file (negative errno); then a
 * temporary file that was not published is kept: sd_outfile_kept() names
 * it. */
int sd_outfile_close(struct sd_outfile *o);

/* Closes and removes the temporary file: nothing worth keeping (the
 * command could not run). An earlier file at the path is left untouched. */
void sd_outfile_discard(struct sd_outfile *o);

/* After a failed sd_outfile_close(): the temporary file holding what was
 * written, or NULL. Valid until sd_outfile_free(). */
const char *sd_outfile_kept(const struct sd_outfile *o);

/* Frees the names (after close or discard). */
void sd_outfile_free(struct sd_outfile *o);

#endif
