// SPDX-License-Identifier: GPL-2.0-only
/* dump — what libsonde-prof.so hands its writer at exit (and at exec): the
 * one contract between the sampling runtime, which runs inside the profiled
 * program and depends on libc alone, and the writer (symbolize.c, in
 * libsonde-prof-write.so, loaded only then), which resolves the addresses
 * with elfutils and writes the pprof file.
 *
 * The samples are a log of 8-byte aligned records: for each thread one
 * struct sprof_thread, followed by its nstacks struct sprof_stack, each
 * followed by its frames.
 *
 * When the program is killed by SIGINT, SIGTERM or SIGHUP (left at their
 * default), the runtime cannot load the writer from a signal handler: it
 * writes the same data as a raw dump file (struct sprof_raw, then the
 * notes, the text of /proc/self/maps and the log, each padded to 8 bytes)
 * with write(2) alone, and `sonde prof` turns it into the profile. */
#ifndef SONDE_PROF_DUMP_H
#define SONDE_PROF_DUMP_H

#include <stddef.h>
#include <stdint.h>

#define SPROF_VERSION 2

/* The writer's entry point, looked up with dlsym. */
#define SPROF_WRITE_SYMBOL "sonde_prof_write"
#define SPROF_WRITER_LIB "libsonde-prof-write.so"

struct sprof_thread {
	uint32_t tid;
	uint32_t nstacks;
	char name[16];		/* comm at the thread's end, NUL-terminated */
	uint64_t signals;	/* profiling signals handled */
	uint64_t periods;	/* sum of 1 + overrun: sampled periods */
	uint64_t ns;		/* sampled CPU time */
	uint64_t dropped;	/* samples lost: no memory for the stack */
	uint64_t truncated;	/* stacks cut at the frame limit */
	uint64_t cpu_ns;	/* the thread's own CPU clock at its end, or 0 */
};

struct sprof_stack {
	uint64_t count;		/* periods */
	uint64_t ns;		/* CPU time */
	uint32_t nkernel;	/* kernel frames first, leaf first */
	uint32_t nuser;		/* then user frames, leaf first */
	uint64_t frames[];	/* call sites: return address - 1 */
};

enum sprof_mode { SPROF_TIMER, SPROF_PERF };

struct sprof_run {
	uint32_t version;
	enum sprof_mode mode;
	int32_t pid;
	uint32_t hz;
	uint64_t period_ns;
	uint64_t start_ns;	/* CLOCK_REALTIME when sampling started */
	uint64_t duration_ns;
	uint64_t foreign;	/* SIGPROF signals that were not sonde's */
	const void *log;	/* the records above */
	size_t log_len;
	const char *notes;	/* lines to report and keep in the profile */
	const char *out_path;
	/* From a raw dump: the process's maps and identity. NULL / 0 in the
	 * live process, where the writer reads /proc/self. */
	char *maps;		/* text of /proc/PID/maps (modified) */
	uint64_t starttime;	/* /proc/PID/stat field 22 */
	uint64_t entry;		/* AT_ENTRY: locates the main binary */
};

#define SPROF_RAW_MAGIC "SPROFRAW"

struct sprof_raw {
	char magic[8];
	uint32_t version, mode;
	int32_t pid;
	uint32_t hz;
	uint64_t period_ns, start_ns, duration_ns, foreign;
	uint64_t starttime, entry;
	uint64_t notes_len, maps_len, log_len;	/* unpadded */
	int32_t signal;		/* what killed the process */
	uint32_t pad;
};

/* Write the profile of run to run->out_path (merging the file there when
 * an earlier image of this same process, before an exec, wrote it).
 * Returns 0, or -errno with a message in err. */
typedef int (*sprof_write_fn)(const struct sprof_run *run, char *err,
			      size_t errlen);

/* Turn a raw dump into the profile at out (symbolize.c). Returns 0, or
 * -errno with a message in err; *sig is the signal that killed it. */
int sprof_convert_raw(const char *raw, const char *out, int *sig, char *err,
		      size_t errlen);

#endif
