// SPDX-License-Identifier: GPL-2.0-only
/* kptrace — the pieces of `sonde kptrace` that kptrace.c strings
 * together: report discovery, symbolization and printing. The parsed form
 * itself is report.h. */
#ifndef SONDE_KPTRACE_H
#define SONDE_KPTRACE_H

#include "report.h"

#include <stdio.h>

struct json;

/* What the user said about symbols. */
struct kp_symopts {
	const char *vmlinux;		/* -k */
	const char **modules;		/* -M: .ko files or directories */
	size_t nmodules;
	const char *release;		/* -r */
	bool kaslr_set;			/* --kaslr OFFSET */
	uint64_t kaslr;
	const char *sysmap;		/* -S: System.map or kallsyms copy */
	const char *root;		/* prefix for the default search paths
					 * ("" normally; tests point it at a
					 * tree of their own) */
	const char *kdk;		/* --kdk: a KDK or a directory of them */
	const char **kexts;		/* --kext: bundles or Mach-O files */
	size_t nkexts;
};

/* Symbolize every frame of a report: find the vmlinux and modules, check
 * they match the report, work out the KASLR offset, fill function,
 * file:line and inlines. Problems become notes on the report, never a
 * wrong answer. Returns 0 or a negative errno for fatal errors (an
 * unreadable -k file). */
int kp_symbolize(struct kp_report *r, const struct kp_reports *rs,
		 const struct kp_symopts *o);
/* Close the symbol files kept open between reports. */
void kp_symbolize_done(void);
/* The same for a macOS panic (symbolize_macos.c): the KDK's kernel, the
 * kexts, their dSYMs. */
int kp_macos_symbolize(struct kp_report *r, const struct kp_symopts *o);
void kp_macos_done(void);

/* Find the newest report source: pstore, systemd's pstore archive,
 * /var/crash, then the kernel log. Returns a malloc'd buffer and sets
 * *what to a description of where it came from (malloc'd), or NULL with
 * errno set. */
char *kp_discover(size_t *len, char **what);

/* A common build-path prefix of the file names in the reports ("" if
 * none), to strip from what is printed. */
char *kp_detect_strip(struct kp_report *const *v, size_t n);

void kp_print_text(FILE *o, const struct kp_report *r, const char *strip);
void kp_print_json_report(struct json *j, const struct kp_report *r,
			  const char *strip);

#endif
