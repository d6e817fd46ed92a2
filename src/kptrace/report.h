// SPDX-License-Identifier: GPL-2.0-only
/* report — what `sonde kptrace` knows about a kernel crash report once it
 * is parsed: the reports found in a log, each a kind, a culprit function,
 * the kernel release and KASLR offset it states, and its frames as the
 * report printed them (address and/or symbol+offset/size, module and
 * build-id, reliable or `?`, task/irq/nmi section). The Linux parser
 * (linux.c) and the macOS parser (macos.c) fill it, symbolize.c adds
 * file:line and inline chains, output.c prints it. docs/kptrace.md
 * documents the JSON form. */
#ifndef SONDE_KPTRACE_REPORT_H
#define SONDE_KPTRACE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kp_section {
	KP_SEC_TASK,
	KP_SEC_IRQ,
	KP_SEC_SOFTIRQ,
	KP_SEC_NMI,
	KP_SEC_EXC,		/* exception stack (#DF, #MC, ...) */
};

/* One inlined level as symbolize.c finds it. */
struct kp_inline {
	char *function, *file;
	int line;
};

struct kp_frame {
	uint64_t addr;		/* the address the report printed (0: none) */
	char *sym;		/* symbol the report printed, or NULL */
	uint64_t off, size;	/* +off/size after the symbol */
	bool has_addr, has_off, has_size;
	char *module;		/* [module] suffix, NULL for vmlinux */
	char *buildid;		/* [module buildid] suffix, or NULL */
	bool reliable;		/* false for `?` frames */
	bool pc;		/* the faulting pc (RIP/pc line): looked up at
				 * addr, return addresses at addr - 1 */
	bool user;		/* a user-space address (set by symbolize.c):
				 * no kernel symbol, shown as user`0x... */
	enum kp_section section;
	int stack;		/* index into kp_report.stacks */
	int line;		/* 1-based input line */

	/* Filled by symbolize.c. */
	char *function;		/* resolved function (else sym) */
	uint64_t func_off;
	char *file;
	int lineno;
	struct kp_inline *inlines;	/* outermost last, as printed */
	int ninlines;
	char *object;		/* "vmlinux", a module name, a kext */
	uint64_t lookup;	/* address looked up in the object, 0: none */
};

struct kp_report {
	char *kind;		/* "BUG: kernel NULL pointer dereference" */
	char *culprit;		/* function the report is about, or NULL */
	char *title;		/* kind [+ " in " culprit] */
	char *release;		/* kernel release, or NULL */
	char *arch;		/* "x86_64", "arm64", ..., or NULL if unknown */
	bool has_kaslr;		/* "Kernel Offset:" was printed */
	uint64_t kaslr;
	char *panic;		/* "Kernel panic - not syncing: ..." text */
	char *headline_func;	/* function named on the first line */
	char *lock_func;	/* lockdep "at: func" of the lock taken */
	char **modules;		/* Modules linked in: */
	size_t nmodules;
	char **stacks;		/* stack headers: "Call Trace", "Freed by
				 * task 1", "-> #0 (&mm->mmap_lock)", ... */
	size_t nstacks;
	struct kp_frame *frames;
	size_t nframes, capframes;
	int first_line, last_line;
	int ctx;		/* [T123] / [C1] of the first line, or 0 */
	uint64_t user_pc;	/* the task's user-space pc ("RIP: 0033:"),
				 * no frame of the kernel's */
	bool has_user_pc;
	bool corrupted;
	bool ended;		/* closed by "---[ end trace": the kernel went
				 * on */
	int event;		/* index into kp_reports.events */

	/* Filled by symbolize.c. */
	char *symfile;		/* vmlinux / kernel the frames were looked
				 * up in, or NULL */
	bool dwarf;		/* with DWARF lines (else symbols only) */
	char *fallback;		/* System.map / kallsyms used instead */
	const char *kaslr_source; /* "report", "derived", "option", NULL */
	bool has_kaslr_used;
	uint64_t kaslr_used;
	char **notes;		/* what the reader must know: mismatches,
				 * missing files, fallbacks */
	size_t nnotes;

	/* macOS only. */
	bool macos;
	bool exec_slide;	/* slide is "Kernel text exec slide" */
	char *os_build;		/* "23C71" */
	char *kernel_uuid;	/* "Kernel UUID:" (LC_UUID), or NULL */
	uint64_t slide;		/* kernel slide */
	bool has_slide;
	struct kp_kext *kexts;
	size_t nkexts;
};

/* A kext from macOS "Kernel Extensions in backtrace". */
struct kp_kext {
	char *bundle, *version, *uuid;
	uint64_t start, end;
};

/* A module's place in memory, from /proc/modules lines in the log
 * ("kptest 16384 0 - Live 0xffffffffc0a00000"). */
struct kp_modbase {
	char *name;
	uint64_t base, size;
};

/* Where one section of a module was loaded, from a dump of
 * /sys/module/M/sections/ in the log ("/sys/module/kptest/sections/
 * .init.text:0xffffffffc020b000", or "section kptest .init.text 0x..."). */
struct kp_modsec {
	char *module, *section;
	uint64_t addr;
};

/* A crash event: one crash and what followed from it in the log — the
 * reports it set off, other CPUs' reports printed at the same time, its
 * panic, "Kernel Offset" and reboot lines. Reports first .. first + n - 1
 * of kp_reports.v; the first names the event, as syzkaller titles a log
 * by its first report. */
struct kp_event {
	size_t first, n;
	int last_line;		/* last input line that belonged to it */
	double last_ts;		/* its printk time (s since boot), -1 none */
	bool panicked;		/* a panic line belongs to it */
};

struct kp_reports {
	struct kp_report *v;
	size_t n, cap;
	struct kp_event *events;
	size_t nevents, capevents;
	struct kp_modbase *modbases;
	size_t nmodbases, capmodbases;
	struct kp_modsec *modsecs;
	size_t nmodsecs, capmodsecs;
	size_t lines;		/* input lines read */
	size_t long_lines;	/* lines cut at KP_MAX_LINE */
	bool binary;		/* NUL bytes or mostly non-text input */
};

/* Lines longer than this are cut (and counted), never overflow. */
#define KP_MAX_LINE 4096

/* Parse a Linux kernel log (dmesg, serial console, journal, pstore) and
 * append every report found to out. Returns 0, or -ENOMEM. */
int kp_linux_parse(const char *buf, size_t len, struct kp_reports *out);
/* The same, a piece at a time: a log read as it grows. Lines may be
 * split between calls. Reports are appended to out as they start; the
 * events before the last one are complete (kp_linux_done_events) and
 * kp_linux_end completes the rest and frees the parser. */
struct kp_linux;
struct kp_linux *kp_linux_begin(struct kp_reports *out);
void kp_linux_feed(struct kp_linux *p, const char *buf, size_t len);
size_t kp_linux_done_events(const struct kp_linux *p);
void kp_linux_end(struct kp_linux *p);
/* Parse a macOS panic report (text or JSON .panic/.ips). 0 when at least
 * one was found, -ENOENT when the text is not one. */
int kp_macos_parse(const char *buf, size_t len, struct kp_reports *out);
/* Whether buf looks like a macOS panic rather than a Linux log. */
bool kp_macos_detect(const char *buf, size_t len);
void kp_reports_free(struct kp_reports *r);
/* Make report idx (the last one) an event of its own. */
void kp_event_add(struct kp_reports *rs, size_t idx);
void kp_report_free(struct kp_report *r);

/* The culprit rules (culprit.c): the function a report is about, chosen
 * from the headline, the lock, the pc or the first reliable frame that is
 * not a generic helper (dump_stack, panic, __warn, kasan_report, ...). */
const char *kp_culprit(const struct kp_report *r);
/* Whether a function is a generic helper never blamed for a report. */
bool kp_generic_func(const char *name);
/* ... or plumbing around a culprit (locks, strings, copies, printing). */
bool kp_skip_func(const char *name);
/* ... or work-queue machinery that takes locks for every work item (a
 * circular lock dependency in it is the work item's). */
bool kp_deadlock_skip(const char *name);
/* Add a note to a report (printf-style). */
void kp_note(struct kp_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Append a frame to a report (zeroed, reliable, section task, in the
 * last stack). */
struct kp_frame *kp_frame_add(struct kp_report *r);
/* Free what a frame owns (not the frame itself). */
void kp_frame_free(struct kp_frame *f);
/* Append a stack header; the next frames belong to it. */
void kp_stack_add(struct kp_report *r, const char *label);
/* Append a module of "Modules linked in:" (n bytes of s). */
void kp_module_add(struct kp_report *r, const char *s, size_t n);
/* name without compiler suffixes (.isra.0, .cold, .constprop.1, ...),
 * written into buf. */
const char *kp_func_base(const char *name, char *buf, size_t len);
/* name as a reader sees it: a Rust symbol (v0 or legacy, also behind the
 * kernel's __cfi_/__pfx_ prefixes) demangled into buf; any other name, or
 * one that does not demangle, is returned as it is. */
const char *kp_display_name(const char *name, char *buf, size_t len);

#endif
