// SPDX-License-Identifier: GPL-2.0-only
/* kdump — what the files of `sonde kdump` share. The decoder is one
 * pipeline (docs/man/sonde-kdump.1.scd, "how records flow"):
 *
 *   reader (reader.c: framing, resynchronisation)
 *     -> input (kdump_in.c: merged records expanded, per-thread state —
 *        call ids, durations, times since the thread's previous record —
 *        and the -p/-t/-e/-Z filters)
 *     -> order (kdump_order.c: the bounded reorder window that puts the
 *        records of all threads in time order; --file-order skips it)
 *     -> output (kdump.c: the -y fd tables, then one back end: text
 *        (kdump_text.c), strace's lines (kdump_strace.c), JSON
 *        (kdump_json.c), a Chrome timeline (kdump_chrome.c) or the -c
 *        summary (kdump_stat.c); the views that print a call at once
 *        gather it with kdump_call.c, structures decode in kdump_stru.c).
 *
 * An event (struct kev) is one record as kdump prints it: a CALLRET is
 * three events, CALL, GIO and RET. Prefix kd_ (kev_ for events). */
#ifndef SONDE_KTRACE_KDUMP_H
#define SONDE_KTRACE_KDUMP_H

#include "format.h"
#include "xlat.h"
#include "../lib/util.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum kd_format { KD_TEXT, KD_STRACE, KD_JSON, KD_CHROME, KD_SUMMARY };

/* -e status= */
#define KD_ST_SUCCESS 0x1
#define KD_ST_FAILED 0x2
#define KD_ST_UNFINISHED 0x4
#define KD_ST_ALL 0x7

/* -S: how the -c table is sorted. */
enum kd_sort { KD_SORT_TIME, KD_SORT_CALLS, KD_SORT_NAME, KD_SORT_ERRORS,
	       KD_SORT_AVG, KD_SORT_MAX, KD_SORT_NOTHING };

struct kd_opts {
	const char *file;
	struct xlat_opts x;
	char timefmt;		/* 0, 'E', 'R' or 'T' */
	bool durations;		/* -D, or any of -E -R -T: <secs> on RET */
	bool tids, follow, nodata, file_order, merge, fds;
	char hex;		/* 0, 'x' (non-ASCII data in hex), 'X' (all) */
	enum kd_format format;
	enum kd_sort sort;
	long maxdata;		/* -1: all */
	long pid;		/* -1: all */
	uint32_t points;
	uint32_t status;	/* KD_ST_* */
	/* -e trace=: per ABI, 1 per selected syscall number (up to
	 * ncalls[abi]); NULL for all */
	uint8_t *calls[SC_NABIS];
	uint32_t ncalls[SC_NABIS];
	size_t window;		/* reorder window, bytes */
	long strsize;		/* --strace: bytes of data shown (-1 all) */
};

/* One record as printed (see the top). The record it points to is whole:
 * merged records are expanded into plain CALL, GIO and RET records. */
struct kev {
	uint64_t ts;		/* the record's CLOCK_MONOTONIC ns */
	uint64_t seq;		/* position in the file's order */
	uint64_t offset;	/* byte offset of the file record */
	uint64_t call;		/* the call it belongs to (1, 2, ...), 0 none */
	int64_t dur;		/* RET: ns since its CALL; -1 unknown */
	uint64_t cargs[3];	/* RET: its CALL's first arguments (when dur
				 * is known); a record inside a call (call
				 * set): the call's */
	int64_t rel;		/* ns since the thread's previous record; -1 */
	bool hidden;		/* filtered out: only -y's fd tables see it */
	void *chunk;		/* kdump_order.c's arena chunk */
	const struct ktr_rec *r;
};

/* Per-thread state of the input stage. */
struct kd_thread {
	uint32_t tid;
	uint32_t pid;
	uint64_t last_ts;	/* its previous record, 0 none */
	uint64_t call_ts;	/* the CALL in progress */
	uint64_t call;		/* its id, 0 none in progress */
	uint32_t call_nr;
	uint64_t call_args[3];
	bool selected;		/* the call in progress passes -e trace */
	struct sbuf group;	/* -e status: events held until the RET */
	uint32_t ngroup;
};

/* What the whole decoder knows; one per run. */
struct kdump {
	struct kd_opts *o;
	const struct ktr_file_header *hdr;
	FILE *out;
	const char *name;	/* the file, for messages */
	struct sbuf line;
	/* input */
	uint64_t seq, ncalls;
	struct kd_thread *threads;
	size_t nthreads, cap_threads;	/* open-addressing table */
	uint64_t scratch_len;
	char *scratch;		/* expanded records, before ordering */
	struct sbuf drops;	/* DROP events held (kdump_in.c) */
	uint32_t ndrops;
	/* -c with nothing that needs a call's own events (-e status, -y):
	 * a CALLRET goes straight to the table (kd_stat_call). */
	bool count_only;
	/* order */
	void *order;
	uint64_t late;		/* events printed after later ones */
	uint64_t last_out_ts;
	/* output */
	bool have_first;
	uint64_t first_ts;
	void *fds;		/* kdump_fd.c */
	void *view;		/* the back end's own state */
	/* totals */
	uint64_t records, lost, last_ts;
	struct kd_loss { uint32_t pid; uint64_t n; } *losses;
	size_t nlosses, cap_losses;
	/* The recording's end (kdump_in.c): whether the last record read
	 * is an END (a file appended to with ktrace -a holds one per
	 * recording; the last recording without one was cut short), and
	 * the last END's totals. */
	bool ended;
	struct ktr_end end;
};

/* Input stage (kdump_in.c): one file record, then the end. */
void kd_in_init(struct kdump *k);
void kd_in_record(struct kdump *k, const struct ktr_rec *r, uint64_t off);
void kd_in_end(struct kdump *k);
void kd_in_free(struct kdump *k);

/* Order (kdump_order.c): events in, output in time order. kd_order_drain
 * outputs every held event at or before ts (UINT64_MAX: all). */
void kd_order_init(struct kdump *k);
void kd_order_push(struct kdump *k, const struct kev *e);
void kd_order_drain(struct kdump *k, uint64_t ts);
uint64_t kd_order_newest(struct kdump *k);
void kd_order_free(struct kdump *k);

/* The syscall ABI of a record (its pers; the header's when the record
 * names one this kdump does not know). */
enum sc_abi kd_abi(const struct kdump *k, const struct ktr_rec *r);

/* Output (kdump.c): one event in time order. */
void kd_output(struct kdump *k, const struct kev *e);

/* The fd tables of -y (kdump_fd.c), updated in time order. */
void kd_fd_init(struct kdump *k);
void kd_fd_event(struct kdump *k, const struct kev *e);
/* The description of fd in process pid ("/etc/passwd", "pipe", ...),
 * or NULL. */
const char *kd_fd_name(struct kdump *k, uint32_t pid, int64_t fd);
void kd_fd_free(struct kdump *k);
/* Whether syscall nr returns an fd (open, socket, dup...). */
bool kd_fd_returns(struct kdump *k, enum sc_abi abi, uint32_t nr);
/* Whether syscall nr makes a pair of fds it writes to memory (pipe,
 * pipe2, socketpair): named before its line is printed, as the fds a
 * call returns are (their arguments name no fd the pair changes). */
bool kd_fd_makes_pair(struct kdump *k, enum sc_abi abi, uint32_t nr);
/* -y: the name of the fd a RET event returned, or NULL: what
 * kd_fd_returns' calls made, and a dup2's, dup3's or fcntl F_DUPFD's copy
 * (named after the fd copied: the table takes the copy after the line is
 * printed). */
const char *kd_fd_ret_name(struct kdump *k, const struct kev *e);
/* Whether an ioctl request's argument points to an int (FIONREAD, ...):
 * the int the recorder read there means something only then. */
bool kd_ioctl_takes_int(enum sc_abi abi, uint64_t req);

/* Back ends. Each has init (the header), event and end (the footer). */
struct kd_view {
	void (*init)(struct kdump *k);
	void (*event)(struct kdump *k, const struct kev *e);
	void (*end)(struct kdump *k);
};
extern const struct kd_view kd_text_view, kd_strace_view, kd_json_view,
	kd_chrome_view, kd_summary_view;

/* -c's table: a call of syscall nr that returned ret after dur ns (-1:
 * not known) counts (kdump_stat.c). */
void kd_stat_call(struct kdump *k, enum sc_abi abi, uint32_t nr, int64_t ret,
		  int64_t dur);

/* Shared by the text back ends (kdump_text.c). */
void kd_put_escaped(struct sbuf *sb, const unsigned char *p, size_t n);
void kd_put_comm(struct sbuf *sb, const char comm[KTR_COMM_LEN]);
const char *kd_sig_name(struct kdump *k, int sig, char *b, unsigned n);
const char *kd_si_code_name(int code);
/* "0.102963" for ns. */
void kd_put_secs(struct sbuf *sb, int64_t ns);
/* The record's time as -E/-R/-T ask (k->o->timefmt), and a space, on
 * k->line (kdump_text.c; the --strace view uses it too). */
void kd_put_time(struct kdump *k, const struct kev *e);
int64_t kd_wall_ns(const struct kdump *k, uint64_t ts);
/* A line (or lines) in k->line is complete: written out once k->line
 * holds 64 KiB; kd_out_flush writes what it holds now (before anything
 * else writes to k->out, and when kdump waits or ends). */
void kd_flush_line(struct kdump *k);
void kd_out_flush(struct kdump *k);

/* "# 1234 records lost (ring buffer full): 1200 of process 77, ..."
 * when the trace lost records (the text views' last line). */
void kd_put_losses(struct kdump *k);

/* A STRU record's structure ("sockaddr"), "unknown" for others. */
const char *kd_stru_name(unsigned kind);
/* A record's type name ("CALL"), or NULL. */
const char *kd_type_name(uint16_t type);

/* The -e argument (kdump_filter.c): 0, or a usage error's message in
 * err. */
int kd_parse_expr(struct kd_opts *o, const char *expr, char *err,
		  size_t errlen);

#endif
