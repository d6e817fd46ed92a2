// SPDX-License-Identifier: GPL-2.0-only
/* procmaps — which file backs a user-space code address in which process,
 * at which time. Mappings come from /proc/PID/maps (for processes that
 * existed before tracing) and from perf's MMAP2/COMM/FORK side-band records
 * (for what happens during it). Each mapping carries the time range it was
 * valid in, so a sample is resolved against the mappings of its own moment
 * even when an exec's records are read after the samples that follow it.
 * A process in another mount namespace (a container) has its paths
 * recorded as /proc/PID/root/PATH, where sonde can open them. */
#ifndef SONDE_PROCMAPS_H
#define SONDE_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hash.h"

/* File index 0 stands for anonymous or unknown code ("[anon]"). */
#define PROCMAPS_ANON 0

struct procmaps {
	struct htab procs;	/* pid -> struct pm_proc */
	struct htab byname;	/* path -> file index + 1 */
	char **files;
	size_t nfiles, capfiles;
};

void procmaps_init(struct procmaps *pm);
void procmaps_free(struct procmaps *pm);

/* Read /proc/PID/maps (executable mappings) as valid from time 0. Returns
 * 0, or -errno if the process is gone. */
int procmaps_load(struct procmaps *pm, pid_t pid);
/* The same from the text of a maps file saved earlier (modified in
 * place). */
int procmaps_load_text(struct procmaps *pm, pid_t pid, char *text);
/* Parse one line of a maps file; false if it is not an executable mapping.
 * Exposed for tests. */
bool procmaps_parse_line(const char *line, uint64_t *start, uint64_t *end,
			 uint64_t *pgoff, const char **path);

/* Side-band events, t in the clock of the samples. */
void procmaps_mmap(struct procmaps *pm, pid_t pid, uint64_t start,
		   uint64_t len, uint64_t pgoff, const char *path, uint64_t t);
void procmaps_exec(struct procmaps *pm, pid_t pid, uint64_t t);
void procmaps_fork(struct procmaps *pm, pid_t ppid, pid_t pid, uint64_t t);

/* Resolve addr in pid at time t to a file index and file offset. A pid
 * never seen before is loaded from /proc first. Returns false (file
 * PROCMAPS_ANON) when no file mapping covers it. */
bool procmaps_find(struct procmaps *pm, pid_t pid, uint64_t addr, uint64_t t,
		   uint32_t *file, uint64_t *off);
const char *procmaps_file(const struct procmaps *pm, uint32_t file);

/* The mapping that covers addr in pid at time t, as procmaps_find resolves
 * it, with its bounds: for writers that describe mappings (pprof). */
struct procmaps_map {
	uint64_t start, end, pgoff;
	uint32_t file;
};
bool procmaps_lookup(struct procmaps *pm, pid_t pid, uint64_t addr,
		     uint64_t t, struct procmaps_map *out);

/* The process pid as its own (innermost) pid namespace numbers it, a
 * container's NStgid in /proc/PID/status; 0 when it is the same as pid,
 * or the process is gone. */
pid_t procmaps_nspid(pid_t pid);
/* Whether pid sees other files than we do: a container's mount
 * namespace. Its paths are then opened through /proc/PID/root. */
bool procmaps_foreign(pid_t pid);

#endif
