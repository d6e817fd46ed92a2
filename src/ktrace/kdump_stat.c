// SPDX-License-Identifier: GPL-2.0-only
/* kdump_stat — `kdump -c`: strace -c's table from a trace. A call counts
 * when it returns (as strace counts at syscall exit: exit_group and
 * unfinished calls do not), failed when its RET carries an errno; its
 * time is the wall-clock time from its CALL to its RET (strace -c -w),
 * unknown for a RET whose CALL the trace lacks (a new process's return from
 * fork or clone is not counted: it made no call). Sorted by total time,
 * then by syscall number, unless -S says otherwise. -p, -e and -Z/-z
 * select what counts, as for the other views. */
#include "kdump.h"

#include <stdlib.h>
#include <string.h>

/* Syscall numbers past this (only in damaged files) share one row. */
#define NR_ROWS 4096

struct row {
	uint32_t nr;
	uint64_t calls, errors, timed;
	uint64_t total_ns, max_ns;
};

struct stat_view {
	/* Per ABI (made on its first call), NR_ROWS + 1: the last row for
	 * the other numbers. */
	struct row *rows[SC_NABIS];
	enum kd_sort sort;
	long forks[SC_NABIS][4];	/* fork, vfork, clone, clone3 */
};

static void stat_init(struct kdump *k)
{
	struct stat_view *v = sd_calloc(1, sizeof(*v));

	v->sort = k->o->sort;
	for (int abi = 0; abi < SC_NABIS; abi++) {
		v->forks[abi][0] = sc_number(abi, "fork");
		v->forks[abi][1] = sc_number(abi, "vfork");
		v->forks[abi][2] = sc_number(abi, "clone");
		v->forks[abi][3] = sc_number(abi, "clone3");
	}
	k->view = v;
}

void kd_stat_call(struct kdump *k, enum sc_abi abi, uint32_t nr, int64_t ret,
		  int64_t dur)
{
	struct stat_view *v = k->view;
	struct row *row;

	if (!v->rows[abi]) {
		v->rows[abi] = sd_calloc(NR_ROWS + 1, sizeof(*v->rows[abi]));
		for (uint32_t i = 0; i <= NR_ROWS; i++)
			v->rows[abi][i].nr = i;
	}
	row = &v->rows[abi][nr < NR_ROWS ? nr : NR_ROWS];
	row->calls++;
	if (ret < 0 && ret >= -4095)
		row->errors++;
	if (dur >= 0) {
		row->timed++;
		row->total_ns += dur;
		if ((uint64_t)dur > row->max_ns)
			row->max_ns = dur;
	}
}

static void stat_event(struct kdump *k, const struct kev *e)
{
	struct stat_view *v = k->view;
	const struct ktr_ret *r = (const void *)e->r;
	enum sc_abi abi;

	if (e->r->type != KTR_RET)
		return;
	abi = kd_abi(k, e->r);
	/* A new process's or thread's return from fork or clone is not a
	 * call of its own (strace does not see it either). */
	if (e->dur < 0 && r->ret == 0)
		for (int i = 0; i < 4; i++)
			if (r->nr == v->forks[abi][i])
				return;
	kd_stat_call(k, abi, r->nr, r->ret, e->dur);
}

static enum sc_abi sort_abi;
static enum kd_sort sort_key;

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static uint64_t avg(const struct row *r)
{
	return r->timed ? r->total_ns / r->timed : 0;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int c = 0;

	switch (sort_key) {
	case KD_SORT_TIME: c = cmp_u64_desc(a->total_ns, b->total_ns); break;
	case KD_SORT_CALLS: c = cmp_u64_desc(a->calls, b->calls); break;
	case KD_SORT_ERRORS: c = cmp_u64_desc(a->errors, b->errors); break;
	case KD_SORT_AVG: c = cmp_u64_desc(avg(a), avg(b)); break;
	case KD_SORT_MAX: c = cmp_u64_desc(a->max_ns, b->max_ns); break;
	case KD_SORT_NAME: {
		char ba[32], bb[32];
		const char *na = a->nr < NR_ROWS ?
			xlat_sysname(sort_abi, a->nr, ba, sizeof(ba)) : "~";
		const char *nb = b->nr < NR_ROWS ?
			xlat_sysname(sort_abi, b->nr, bb, sizeof(bb)) : "~";

		c = strcmp(na, nb);
		break;
	}
	default:
		break;
	}
	if (c)
		return c;
	return a->nr < b->nr ? -1 : a->nr > b->nr;
}

static void put_line(struct kdump *k, double pct, uint64_t total_ns,
		     uint64_t avg_us, uint64_t max_us, uint64_t calls,
		     uint64_t errors, const char *name)
{
	char err[24] = "";

	if (errors)
		snprintf(err, sizeof(err), "%llu", (unsigned long long)errors);
	fprintf(k->out, "%6.2f %4llu.%06llu %11llu %11llu %9llu %9s %s\n",
		pct, (unsigned long long)(total_ns / 1000000000),
		(unsigned long long)(total_ns % 1000000000 / 1000),
		(unsigned long long)avg_us, (unsigned long long)max_us,
		(unsigned long long)calls, err, name);
}

static void table(struct kdump *k, enum sc_abi abi, struct row *rows)
{
	struct row tot = { 0 };
	static const char dashes[] = "------ ----------- ----------- "
				     "----------- --------- --------- "
				     "----------------\n";

	for (uint32_t i = 0; i <= NR_ROWS; i++) {
		tot.calls += rows[i].calls;
		tot.errors += rows[i].errors;
		tot.timed += rows[i].timed;
		tot.total_ns += rows[i].total_ns;
		if (rows[i].max_ns > tot.max_ns)
			tot.max_ns = rows[i].max_ns;
	}
	sort_abi = abi;
	sort_key = ((struct stat_view *)k->view)->sort;
	qsort(rows, NR_ROWS + 1, sizeof(*rows), row_cmp);
	fprintf(k->out, "%6s %11s %11s %11s %9s %9s %s\n", "% time", "seconds",
		"usecs/call", "usecs/max", "calls", "errors", "syscall");
	fputs(dashes, k->out);
	for (uint32_t i = 0; i <= NR_ROWS; i++) {
		const struct row *r = &rows[i];
		char nb[32];

		if (!r->calls)
			continue;
		put_line(k, tot.total_ns ? 100.0 * r->total_ns / tot.total_ns : 0,
			 r->total_ns, avg(r) / 1000, r->max_ns / 1000, r->calls,
			 r->errors, r->nr < NR_ROWS ?
			 xlat_sysname(abi, r->nr, nb, sizeof(nb)) :
			 "(other numbers)");
	}
	fputs(dashes, k->out);
	put_line(k, 100.0, tot.total_ns, avg(&tot) / 1000, tot.max_ns / 1000,
		 tot.calls, tot.errors, "total");
}

/* One table per ABI the calls were made in (the header's first), headed
 * as strace heads its per-personality tables when there are several. */
static void stat_end(struct kdump *k)
{
	struct stat_view *v = k->view;
	int nabis = 0, first = k->hdr->abi;

	for (int abi = 0; abi < SC_NABIS; abi++)
		nabis += v->rows[abi] != NULL;
	if (!nabis)
		table(k, first, v->rows[first] = sd_calloc(NR_ROWS + 1,
							   sizeof(struct row)));
	for (int i = 0; i < SC_NABIS; i++) {
		int abi = i == 0 ? first : i == first ? 0 : i;

		if (!v->rows[abi] || (!nabis && abi != first))
			continue;
		if (nabis > 1)
			fprintf(k->out, "%sSystem call usage summary for %s:\n",
				abi == first ? "" : "\n", sc_abi_name(abi));
		if (nabis)
			table(k, abi, v->rows[abi]);
	}
	kd_put_losses(k);
	for (int abi = 0; abi < SC_NABIS; abi++)
		free(v->rows[abi]);
	free(v);
	k->view = NULL;
}

const struct kd_view kd_summary_view = {
	.init = stat_init,
	.event = stat_event,
	.end = stat_end,
};
