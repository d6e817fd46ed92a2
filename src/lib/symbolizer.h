// SPDX-License-Identifier: GPL-2.0-only
/* symbolizer — the one place where a code address becomes a name, for
 * every tool: (pid, address) in user space or a kernel address in,
 * {module, function, offset[, file:line and the inlined functions]} out.
 *
 * User addresses go through the process's mappings (lib/procmaps, which
 * the caller may feed with perf side-band records), then the mapped file's
 * ELF symbols (lib/elfsym) and, when lines are asked for, its DWARF
 * (lib/dwarf); each file is opened on first use and kept. The vDSO is
 * read from sonde's own image (the kernel's, the same in every process).
 * Code in anonymous memory is named by the process's perf map
 * (/tmp/perf-PID.map, written by JITs: Node --perf-basic-prof, the JVM
 * with perf-map-agent, Python 3.12 -X perf). Kernel addresses go through
 * /proc/kallsyms (lib/ksym), read once, and once more on the first miss
 * for BPF programs loaded since.
 *
 * The symbolizer returns symbols as the binaries have them (mangled);
 * tools format and demangle (lib/demangle) as their views want. */
#ifndef SONDE_SYMBOLIZER_H
#define SONDE_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ksym.h"
#include "procmaps.h"

struct perf_event_header;

/* The deepest inline chain returned. */
#define SYM_MAX_LINES 32

/* The time of a lookup that wants the mappings a process has last had
 * (the latest exec, every mmap since), for tools that name addresses
 * after the fact. */
#define SYM_LATEST (UINT64_MAX - 1)

enum {
	SYMBOLIZER_LINES = 1 << 0,	/* file:line and inlined frames (DWARF) */
};

/* One level of an address's location, innermost first. */
struct sym_line {
	/* The function: its symbol when the binary names it (the DWARF
	 * linkage name for an inlined C++ or Rust function, whose plain
	 * name lacks the path), else its DWARF name; NULL when unknown. */
	const char *function;
	const char *file;	/* source file, or NULL */
	int line;
	bool inlined;		/* inlined into the next level */
};

/* What the symbolizer knows of an address. Strings live as long as the
 * symbolizer. */
struct sym_info {
	/* Where the code is, as tools print it: a file's base name
	 * ("libc.so.6"), "[vdso]", "perf-PID.map" (a JIT's map), "[anon]";
	 * for kernel addresses KSYM_KERNEL, KSYM_BPF or a module's name. */
	const char *module;
	const char *path;	/* the mapped file or perf map; NULL: kernel,
				 * or no mapping */
	const char *function;	/* the symbol, NULL when none covers it */
	/* From function's start; without a function, the file offset for
	 * code in a mapped file, else the address itself. */
	uint64_t offset;
	bool kernel;
	/* With SYMBOLIZER_LINES and DWARF (or the symbol alone): nlines
	 * levels, innermost first; the last is the out-of-line function,
	 * named by its symbol as function is. 0 when nothing is known. */
	int nlines;
	struct sym_line lines[SYM_MAX_LINES];
};

/* What is known of a mapped file: for writers that describe mappings. */
struct sym_file_info {
	const char *build_id;	/* hex, or "" */
	bool has_symbols;	/* an ELF symbol table was read */
	bool has_lines;		/* DWARF lines (SYMBOLIZER_LINES only) */
};

struct symbolizer;

struct symbolizer *symbolizer_new(unsigned flags);
void symbolizer_free(struct symbolizer *s);

/* The process mappings user addresses resolve against: load or feed them
 * here (procmaps_load_text, procmaps_mmap...). A pid never seen is read
 * from /proc/PID/maps on its first lookup. */
struct procmaps *symbolizer_maps(struct symbolizer *s);

/* Feed one perf side-band record into the maps: PERF_RECORD_MMAP2 (an
 * executable mapping), COMM with PERF_RECORD_MISC_COMM_EXEC (an exec) and
 * FORK, their time from the sample_id trailer that sample_type describes
 * (attr.sample_id_all with PERF_SAMPLE_TIME). Other records are ignored. */
void symbolizer_side_band(struct symbolizer *s,
			  const struct perf_event_header *h,
			  uint64_t sample_type);

/* Follow pid's mappings as they change — its exec, every executable mmap
 * (dlopen), its forks — from now on, with a perf side-band event, so that
 * its addresses can still be named after it has exited (look them up at
 * SYM_LATEST). Its current mappings are read from /proc first. 0 or
 * -errno (perf_event_open: root or CAP_PERFMON). */
int symbolizer_follow(struct symbolizer *s, pid_t pid);
/* Read what the followed processes did since the last call. */
void symbolizer_poll(struct symbolizer *s);

/* Read /proc/kallsyms now (rather than on the first kernel lookup), e.g.
 * before sampling starts so that the reading is not sampled. 0, or
 * -errno. */
int symbolizer_load_kernel(struct symbolizer *s);
/* Use t (kept by the caller, who frees it after the symbolizer) instead
 * of reading /proc/kallsyms; reread: whether a miss may read
 * /proc/kallsyms again for BPF programs loaded since t was read. */
void symbolizer_use_kernel(struct symbolizer *s, const struct ksym_table *t,
			   bool reread);
/* The kernel symbol table (read on this call if it was not), or NULL
 * with errno set when it cannot be read. */
const struct ksym_table *symbolizer_kernel_table(struct symbolizer *s);

/* A kernel address. false (module KSYM_KERNEL, offset = addr) when no
 * symbol covers it. */
bool symbolizer_kernel(struct symbolizer *s, uint64_t addr, struct sym_info *out);

/* A user address of pid at time t (procmaps time; 0 for the mappings read
 * from /proc). false when no function is known (out still says what is:
 * module and offset). */
bool symbolizer_user(struct symbolizer *s, pid_t pid, uint64_t addr,
		     uint64_t t, struct sym_info *out);

/* A user address already resolved to a mapped file (a procmaps file
 * index) and file offset, e.g. while the process lived; for
 * PROCMAPS_ANON, off is the address itself and pid's perf map names it. */
bool symbolizer_file(struct symbolizer *s, pid_t pid, uint32_t file,
		     uint64_t off, struct sym_info *out);

/* What is known of a procmaps file (opened if it was not). */
void symbolizer_file_info(struct symbolizer *s, uint32_t file,
			  struct sym_file_info *out);

#endif
