// SPDX-License-Identifier: GPL-2.0-only
/* kdump — `sonde kdump`: prints a trace file recorded by sonde ktrace in
 * the style of BSD kdump(1) (or as JSON lines), decoding syscalls with the
 * xlat tables of the ABI the file was recorded on. Prints every complete
 * record of a truncated file, then one warning naming the byte offset. */
#include "format.h"
#include "ktrace.h"
#include "reader.h"
#include "record.h"
#include "xlat.h"
#include "../commands.h"
#include "../lib/json.h"
#include "../lib/cli.h"
#include "../lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
"usage: sonde kdump [-f FILE|-] [-d] [-n] [-E | -R | -T] [-H] [-l]\n"
"                   [-m MAXDATA] [-s] [-p PID] [-t TRSTR] [--format text|json]\n"
"\n"
"Print a trace file recorded by sonde ktrace.\n"
"\n"
"  -f, --file FILE        the trace file (default ktrace.out); - reads stdin\n"
"  -d, --decimal          numbers in decimal\n"
"  -n, --raw              no symbolic decoding (flags, AT_FDCWD, signals,\n"
"                         errno text)\n"
"  -E, --elapsed          elapsed time since the first record\n"
"  -R, --relative         time since the previous record\n"
"  -T, --absolute         absolute time (seconds since the epoch)\n"
"  -H, --threads          print thread ids too\n"
"  -l, --follow           keep reading a file that is still being written\n"
"  -m, --max-data MAXDATA print at most MAXDATA bytes of each I/O\n"
"  -s, --no-data          do not print I/O data\n"
"  -p, --pid PID          only records of this process or thread\n"
"  -t, --trace TRSTR      only these trace points (c n i s w p t, as ktrace -t)\n"
"      --format F         text (default) or json (one object per line)\n"
"  -h, --help             this help\n";

enum { OPT_FORMAT = 0x100 };

static const struct option long_opts[] = {
	{ "file", required_argument, NULL, 'f' },
	{ "decimal", no_argument, NULL, 'd' },
	{ "raw", no_argument, NULL, 'n' },
	{ "elapsed", no_argument, NULL, 'E' },
	{ "relative", no_argument, NULL, 'R' },
	{ "absolute", no_argument, NULL, 'T' },
	{ "threads", no_argument, NULL, 'H' },
	{ "follow", no_argument, NULL, 'l' },
	{ "max-data", required_argument, NULL, 'm' },
	{ "no-data", no_argument, NULL, 's' },
	{ "pid", required_argument, NULL, 'p' },
	{ "trace", required_argument, NULL, 't' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct kopts {
	const char *file;
	struct xlat_opts x;
	char timefmt;		/* 0, 'E', 'R' or 'T' */
	bool tids, follow, nodata, json;
	long maxdata;		/* -1: all */
	long pid;		/* -1: all */
	uint32_t points;
};

struct kstate {
	struct kopts *o;
	const struct ktr_file_header *hdr;
	uint64_t first_ts, prev_ts;
	bool have_first;
	struct sbuf line;
	FILE *out;
};

static const char *const type_names[KTR_NTYPES] = {
	[KTR_CALL] = "CALL", [KTR_RET] = "RET", [KTR_NAMI] = "NAMI",
	[KTR_GIO] = "GIO", [KTR_PSIG] = "PSIG", [KTR_CSW] = "CSW",
	[KTR_FORK] = "FORK", [KTR_EXEC] = "EXEC", [KTR_EXIT] = "EXIT",
	[KTR_DROP] = "DROP", [KTR_RETGIO] = "RETGIO",
	[KTR_CALLRET] = "CALLRET", [KTR_STRU] = "STRU",
};

static uint32_t type_point(uint16_t type)
{
	switch (type) {
	case KTR_CALL: case KTR_RET: return KTR_PT_SYSCALL;
	case KTR_NAMI: return KTR_PT_NAMEI;
	case KTR_GIO: return KTR_PT_GENIO;
	case KTR_PSIG: return KTR_PT_SIG;
	case KTR_CSW: return KTR_PT_CSW;
	case KTR_FORK: case KTR_EXEC: case KTR_EXIT: return KTR_PT_PROC;
	case KTR_RETGIO: return KTR_PT_GENIO | KTR_PT_SYSCALL;
	case KTR_CALLRET: return KTR_PT_GENIO | KTR_PT_SYSCALL;
	case KTR_STRU: return KTR_PT_STRU;
	default: return ~0u;	/* DROP and unknown types always show */
	}
}

/* Bytes as a C string literal body: printable ASCII as is, the rest
 * escaped. */
static void put_escaped(struct sbuf *sb, const unsigned char *p, size_t n,
			bool json_like)
{
	(void)json_like;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];

		switch (c) {
		case '\n': sbuf_puts(sb, "\\n"); break;
		case '\t': sbuf_puts(sb, "\\t"); break;
		case '\r': sbuf_puts(sb, "\\r"); break;
		case '\\': sbuf_puts(sb, "\\\\"); break;
		case '"': sbuf_puts(sb, "\\\""); break;
		default:
			if (c >= 0x20 && c < 0x7f)
				sbuf_putc(sb, c);
			else
				sbuf_printf(sb, "\\%03o", c);
		}
	}
}

/* GIO data, kdump style: a quoted string, escaped, broken after each
 * newline and where a line would pass 72 columns. */
static void put_data(struct sbuf *sb, const unsigned char *p, size_t n)
{
	size_t col = 0;

	sbuf_puts(sb, "       \"");
	for (size_t i = 0; i < n; i++) {
		size_t before = sb->len;

		put_escaped(sb, p + i, 1, false);
		col += sb->len - before;
		if (i + 1 < n && (p[i] == '\n' || col >= 64)) {
			sbuf_puts(sb, "\n        ");
			col = 0;
		}
	}
	sbuf_puts(sb, "\"\n");
}

/* Wall-clock ns of a record: wraps rather than overflows on a damaged
 * timestamp or clock base (the sum is printed, never trusted). */
static int64_t wall_ns(const struct kstate *s, const struct ktr_rec *r)
{
	return (int64_t)(r->ts + (uint64_t)s->hdr->clock_base_ns);
}

static void put_time(struct kstate *s, const struct ktr_rec *r)
{
	int64_t t;
	uint64_t mag;

	if (!s->o->timefmt)
		return;
	if (!s->have_first) {
		s->first_ts = s->prev_ts = r->ts;
		s->have_first = true;
	}
	switch (s->o->timefmt) {
	case 'E': t = (int64_t)(r->ts - s->first_ts); break;
	case 'R': t = (int64_t)(r->ts - s->prev_ts); break;
	default: t = wall_ns(s, r); break;
	}
	s->prev_ts = r->ts;
	mag = t < 0 ? -(uint64_t)t : (uint64_t)t;
	if (t < 0)
		sbuf_putc(&s->line, '-');
	sbuf_printf(&s->line, "%llu.%06llu ",
		    (unsigned long long)(mag / 1000000000),
		    (unsigned long long)(mag % 1000000000 / 1000));
}

static const char *sig_name(struct kstate *s, int sig, char *b, unsigned n)
{
	const char *name = s->o->x.raw ? NULL :
			   xlat_signal_name(s->hdr->abi, sig, b, n);

	if (!name) {
		snprintf(b, n, "signal %d", sig);
		name = b;
	}
	return name;
}

static const char *si_code_name(int code)
{
	switch (code) {
	case 0: return "SI_USER";
	case 0x80: return "SI_KERNEL";
	case -1: return "SI_QUEUE";
	case -2: return "SI_TIMER";
	case -3: return "SI_MESGQ";
	case -4: return "SI_ASYNCIO";
	case -5: return "SI_SIGIO";
	case -6: return "SI_TKILL";
	default: return NULL;
	}
}

static const char *stru_name(unsigned kind)
{
	static const char *const names[KTR_STRU_NKINDS] = {
		[KTR_STRU_SOCKADDR] = "sockaddr", [KTR_STRU_STAT] = "stat",
		[KTR_STRU_STATX] = "statx", [KTR_STRU_FDPAIR] = "fdpair",
		[KTR_STRU_WSTATUS] = "wstatus", [KTR_STRU_SIGINFO] = "siginfo",
		[KTR_STRU_POLLFD] = "pollfd", [KTR_STRU_SIGACTION] = "sigaction",
		[KTR_STRU_SIGSET] = "sigset", [KTR_STRU_TIMESPEC] = "timespec",
		[KTR_STRU_TIMEVAL] = "timeval",
		[KTR_STRU_ITIMERSPEC] = "itimerspec",
		[KTR_STRU_ITIMERVAL] = "itimerval", [KTR_STRU_RLIMIT] = "rlimit",
		[KTR_STRU_UTSNAME] = "utsname",
		[KTR_STRU_EPOLL_EVENT] = "epoll_event",
		[KTR_STRU_IOVEC] = "iovec", [KTR_STRU_ENVP] = "envp",
		[KTR_STRU_DIRENT64] = "dirent64", [KTR_STRU_STAT64] = "stat64",
		[KTR_STRU_TIMESPEC64] = "timespec64",
		[KTR_STRU_ITIMERSPEC64] = "itimerspec64",
		[KTR_STRU_RLIMIT64] = "rlimit64",
	};

	return kind < KTR_STRU_NKINDS && names[kind] ? names[kind] : "unknown";
}

static void text_record(struct kstate *s, const struct ktr_rec *r)
{
	struct sbuf *sb = &s->line;
	const char *tn = r->type < KTR_NTYPES ? type_names[r->type] : NULL;
	char comm[KTR_COMM_LEN + 1], b[32];

	memcpy(comm, r->comm, KTR_COMM_LEN);
	comm[KTR_COMM_LEN] = '\0';
	for (char *c = comm; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	sbuf_printf(sb, "%6u ", r->pid);
	if (s->o->tids)
		sbuf_printf(sb, "%6u ", r->tid);
	sbuf_printf(sb, "%-8s ", comm);
	put_time(s, r);
	if (tn)
		sbuf_printf(sb, "%-5s ", tn);
	else
		sbuf_printf(sb, "#%-4u ", r->type);
	switch (r->type) {
	case KTR_CALL: {
		const struct ktr_call *c = (const void *)r;

		xlat_call(sb, ktr_rec_abi(s->hdr, r), c->nr, c->args,
			  &s->o->x);
		break;
	}
	case KTR_RET: {
		const struct ktr_ret *c = (const void *)r;

		xlat_ret(sb, ktr_rec_abi(s->hdr, r), c->nr, c->ret, &s->o->x);
		break;
	}
	case KTR_NAMI: {
		const struct ktr_nami *n = (const void *)r;
		size_t len = strnlen(n->path, r->len - sizeof(*n));

		sbuf_putc(sb, '"');
		put_escaped(sb, (const unsigned char *)n->path, len, false);
		sbuf_putc(sb, '"');
		break;
	}
	case KTR_GIO: {
		const struct ktr_gio *g = (const void *)r;
		size_t n = g->data_len;

		sbuf_printf(sb, "fd %d %s %llu byte%s", g->fd,
			    g->dir == KTR_GIO_WRITE ? "wrote" : "read",
			    (unsigned long long)g->total,
			    g->total == 1 ? "" : "s");
		if (g->data_len < g->total && !s->o->nodata)
			sbuf_printf(sb, " (%u recorded)", g->data_len);
		sbuf_putc(sb, '\n');
		if (s->o->nodata)
			return;
		if (s->o->maxdata >= 0 && n > (size_t)s->o->maxdata)
			n = s->o->maxdata;
		put_data(sb, (const unsigned char *)g->data, n);
		return;
	}
	case KTR_PSIG: {
		const struct ktr_psig *p = (const void *)r;
		const char *code = si_code_name(p->code);
		static const char *const results[] = {
			"", " (ignored)", " (already pending)",
			" (queue overflow)", " (info lost)",
		};

		bool v2 = r->len >= sizeof(*p);

		sbuf_puts(sb, sig_name(s, p->sig, b, sizeof(b)));
		if (p->kind == KTR_SIG_GENERATED) {
			if (p->sender_pid || !v2)
				sbuf_printf(sb, " generated by %u",
					    p->sender_pid);
			else
				sbuf_puts(sb, " generated by the kernel");
			if (p->result > 0 && p->result < 5)
				sbuf_puts(sb, results[p->result]);
		} else if (p->fatal) {
			sbuf_puts(sb, " delivered SIG_DFL (fatal)");
		} else if (p->handler == 0) {
			sbuf_puts(sb, " delivered SIG_DFL");
		} else if (p->handler == 1) {
			sbuf_puts(sb, " delivered SIG_IGN");
		} else {
			sbuf_printf(sb, " caught handler=%#llx flags=%#x",
				    (unsigned long long)p->handler, p->sa_flags);
		}
		if (code && !s->o->x.raw)
			sbuf_printf(sb, " code=%s", code);
		else
			sbuf_printf(sb, " code=%d", p->code);
		if (v2 && p->addr)
			sbuf_printf(sb, " addr=%#llx",
				    (unsigned long long)p->addr);
		if (v2 && p->kind == KTR_SIG_GENERATED && p->sig == 17)
			sbuf_printf(sb, " status=%d", p->status);
		break;
	}
	case KTR_CSW: {
		const struct ktr_csw *c = (const void *)r;

		if (c->dir == KTR_CSW_IN)
			sbuf_puts(sb, "on cpu");
		else
			sbuf_printf(sb, "off cpu %s",
				    c->voluntary ? "voluntary" : "preempted");
		break;
	}
	case KTR_FORK: {
		const struct ktr_fork *f = (const void *)r;

		if (f->flags & KTR_FORK_THREAD)
			sbuf_printf(sb, "thread %u", f->child_tid);
		else
			sbuf_printf(sb, "child %u", f->child_pid);
		break;
	}
	case KTR_EXEC: {
		const struct ktr_exec *e = (const void *)r;
		const unsigned char *p = (const unsigned char *)e->data;
		size_t i = 0, n = e->argv_len;

		sbuf_putc(sb, '"');
		put_escaped(sb, p, strnlen((const char *)p, e->path_len), false);
		sbuf_puts(sb, "\" argv");
		p += e->path_len;
		while (i < n) {
			size_t l = strnlen((const char *)p + i, n - i);

			sbuf_puts(sb, " \"");
			put_escaped(sb, p + i, l, false);
			sbuf_putc(sb, '"');
			i += l + 1;
		}
		if (e->argv_total > e->argv_len)
			sbuf_printf(sb, " (cut: %u of %u bytes, %u arguments)",
				    e->argv_len, e->argv_total, e->argc);
		break;
	}
	case KTR_EXIT: {
		const struct ktr_exit *x = (const void *)r;

		if (x->code & 0x7f)
			sbuf_printf(sb, "signal %s%s",
				    sig_name(s, x->code & 0x7f, b, sizeof(b)),
				    x->code & 0x80 ? " (core dumped)" : "");
		else
			sbuf_printf(sb, "status %d", (x->code >> 8) & 0xff);
		if (!x->group_dead)
			sbuf_puts(sb, " (thread)");
		break;
	}
	case KTR_DROP: {
		const struct ktr_drop *d = (const void *)r;

		sbuf_printf(sb, "%llu records lost (ring buffer full)",
			    (unsigned long long)d->count);
		break;
	}
	case KTR_STRU: {
		/* Minimal (the structures' decoding is to come): which
		 * structure, the bytes in hex. */
		const struct ktr_stru *st = (const void *)r;

		sbuf_printf(sb, "struct %s %s", stru_name(st->kind),
			    st->dir == KTR_STRU_IN ? "in" : "out");
		if (st->arg != KTR_STRU_NOARG)
			sbuf_printf(sb, " arg %u", st->arg);
		sbuf_printf(sb, " %u bytes", st->total);
		if (st->data_len < st->total)
			sbuf_printf(sb, " (%u recorded)", st->data_len);
		if (st->data_len && !s->o->nodata) {
			sbuf_puts(sb, "\n       ");
			for (uint32_t i = 0; i < st->data_len; i++)
				sbuf_printf(sb, "%02x%s",
					    (unsigned char)st->data[i],
					    i + 1 < st->data_len && i % 32 == 31
					    ? "\n       " : "");
		}
		break;
	}
	default:
		sbuf_printf(sb, "(%u bytes)", r->len);
	}
	if (r->flags & KTR_F_DROP && r->type != KTR_DROP)
		sbuf_puts(sb, " [after lost records]");
	sbuf_putc(sb, '\n');
}

static void json_record(struct kstate *s, const struct ktr_rec *r,
			uint64_t offset)
{
	struct json j;
	char b[32], nb[32];
	enum sc_abi abi = ktr_rec_abi(s->hdr, r);

	json_init(&j, s->out, false);
	json_obj_begin(&j);
	json_key(&j, "offset");
	json_u64(&j, offset);
	json_key(&j, "type");
	if (r->type < KTR_NTYPES && type_names[r->type])
		json_str(&j, type_names[r->type]);
	else
		json_u64(&j, r->type);
	json_key(&j, "pid");
	json_u64(&j, r->pid);
	json_key(&j, "tid");
	json_u64(&j, r->tid);
	json_key(&j, "comm");
	json_strn(&j, r->comm, strnlen(r->comm, KTR_COMM_LEN));
	json_key(&j, "cpu");
	json_u64(&j, r->cpu);
	json_key(&j, "ts");
	json_u64(&j, r->ts);
	json_key(&j, "time_ns");
	json_i64(&j, wall_ns(s, r));
	json_key(&j, "dropped_before");
	json_bool(&j, r->flags & KTR_F_DROP);
	if ((int)abi != s->hdr->abi) {
		json_key(&j, "abi");
		json_str(&j, sc_abi_name(abi));
	}
	switch (r->type) {
	case KTR_CALL: {
		const struct ktr_call *c = (const void *)r;

		json_key(&j, "syscall");
		json_str(&j, xlat_sysname(abi, c->nr, nb, sizeof(nb)));
		json_key(&j, "nr");
		json_u64(&j, c->nr);
		json_key(&j, "args");
		json_arr_begin(&j);
		for (int i = 0; i < KTR_MAX_ARGS; i++)
			json_u64(&j, c->args[i]);
		json_arr_end(&j);
		sbuf_reset(&s->line);
		xlat_call(&s->line, abi, c->nr, c->args, &s->o->x);
		json_key(&j, "text");
		json_strn(&j, s->line.buf, s->line.len);
		break;
	}
	case KTR_RET: {
		const struct ktr_ret *c = (const void *)r;

		json_key(&j, "syscall");
		json_str(&j, xlat_sysname(abi, c->nr, nb, sizeof(nb)));
		json_key(&j, "nr");
		json_u64(&j, c->nr);
		json_key(&j, "ret");
		json_i64(&j, c->ret);
		if (c->ret < 0 && c->ret >= -4095) {
			const char *e = xlat_errno_name(-c->ret);

			json_key(&j, "errno");
			json_i64(&j, -c->ret);
			if (e) {
				json_key(&j, "error");
				json_str(&j, e);
			}
		}
		break;
	}
	case KTR_NAMI: {
		const struct ktr_nami *n = (const void *)r;

		json_key(&j, "path");
		json_strn(&j, n->path, strnlen(n->path, r->len - sizeof(*n)));
		break;
	}
	case KTR_GIO: {
		const struct ktr_gio *g = (const void *)r;
		size_t n = g->data_len;

		json_key(&j, "fd");
		json_i64(&j, g->fd);
		json_key(&j, "dir");
		json_str(&j, g->dir == KTR_GIO_WRITE ? "write" : "read");
		json_key(&j, "bytes");
		json_u64(&j, g->total);
		if (!s->o->nodata) {
			if (s->o->maxdata >= 0 && n > (size_t)s->o->maxdata)
				n = s->o->maxdata;
			sbuf_reset(&s->line);
			for (size_t i = 0; i < n; i++)
				sbuf_printf(&s->line, "%02x",
					    (unsigned char)g->data[i]);
			json_key(&j, "data_hex");
			json_strn(&j, s->line.buf ? s->line.buf : "",
				  s->line.len);
		}
		break;
	}
	case KTR_PSIG: {
		const struct ktr_psig *p = (const void *)r;
		const char *name = xlat_signal_name(abi, p->sig, b, sizeof(b));

		json_key(&j, "signal");
		json_i64(&j, p->sig);
		if (name) {
			json_key(&j, "name");
			json_str(&j, name);
		}
		json_key(&j, "event");
		json_str(&j, p->kind == KTR_SIG_GENERATED ? "generated"
							  : "delivered");
		json_key(&j, "code");
		json_i64(&j, p->code);
		if (p->kind == KTR_SIG_GENERATED) {
			json_key(&j, "sender");
			json_u64(&j, p->sender_pid);
			json_key(&j, "result");
			json_i64(&j, p->result);
		} else {
			json_key(&j, "handler");
			json_u64(&j, p->handler);
			json_key(&j, "fatal");
			json_bool(&j, p->fatal);
		}
		if (r->len >= sizeof(*p)) {
			if (p->kind != KTR_SIG_GENERATED) {
				json_key(&j, "sender");
				json_u64(&j, p->sender_pid);
			}
			json_key(&j, "addr");
			json_u64(&j, p->addr);
			json_key(&j, "status");
			json_i64(&j, p->status);
		}
		break;
	}
	case KTR_CSW: {
		const struct ktr_csw *c = (const void *)r;

		json_key(&j, "on_cpu");
		json_bool(&j, c->dir == KTR_CSW_IN);
		json_key(&j, "voluntary");
		json_bool(&j, c->voluntary);
		break;
	}
	case KTR_FORK: {
		const struct ktr_fork *f = (const void *)r;

		json_key(&j, "child_pid");
		json_u64(&j, f->child_pid);
		json_key(&j, "child_tid");
		json_u64(&j, f->child_tid);
		json_key(&j, "thread");
		json_bool(&j, f->flags & KTR_FORK_THREAD);
		break;
	}
	case KTR_EXEC: {
		const struct ktr_exec *e = (const void *)r;
		const char *p = e->data;
		size_t i = 0;

		json_key(&j, "path");
		json_strn(&j, p, strnlen(p, e->path_len));
		json_key(&j, "argv");
		json_arr_begin(&j);
		p += e->path_len;
		while (i < e->argv_len) {
			size_t l = strnlen(p + i, e->argv_len - i);

			json_strn(&j, p + i, l);
			i += l + 1;
		}
		json_arr_end(&j);
		json_key(&j, "argc");
		json_u64(&j, e->argc);
		if (e->argv_total) {
			json_key(&j, "argv_bytes");
			json_u64(&j, e->argv_total);
		}
		break;
	}
	case KTR_EXIT: {
		const struct ktr_exit *x = (const void *)r;

		json_key(&j, "wait_status");
		json_i64(&j, x->code);
		json_key(&j, "process_ended");
		json_bool(&j, x->group_dead);
		break;
	}
	case KTR_DROP: {
		const struct ktr_drop *d = (const void *)r;

		json_key(&j, "lost");
		json_u64(&j, d->count);
		break;
	}
	case KTR_STRU: {
		const struct ktr_stru *st = (const void *)r;

		json_key(&j, "struct");
		json_str(&j, stru_name(st->kind));
		json_key(&j, "nr");
		json_u64(&j, st->nr);
		json_key(&j, "dir");
		json_str(&j, st->dir == KTR_STRU_IN ? "in" : "out");
		if (st->arg != KTR_STRU_NOARG) {
			json_key(&j, "arg");
			json_u64(&j, st->arg);
		}
		json_key(&j, "bytes");
		json_u64(&j, st->total);
		sbuf_reset(&s->line);
		for (uint32_t i = 0; i < st->data_len; i++)
			sbuf_printf(&s->line, "%02x", (unsigned char)st->data[i]);
		json_key(&j, "data_hex");
		json_strn(&j, s->line.buf ? s->line.buf : "", s->line.len);
		break;
	}
	}
	json_obj_end(&j);
	json_end(&j);
}

static void print_record(struct kstate *s, const struct ktr_rec *r,
			 uint64_t offset)
{
	if (s->o->json) {
		json_record(s, r, offset);
		return;
	}
	sbuf_reset(&s->line);
	text_record(s, r);
	fwrite(s->line.buf, 1, s->line.len, s->out);
}

/* A RETGIO record prints as the GIO and RET records it stands for. */
static void print_retgio(struct kstate *s, const struct ktr_rec *r,
			 uint64_t offset)
{
	const struct ktr_retgio *m = (const void *)r;
	struct ktr_gio *g = sd_malloc(sizeof(*g) + m->data_len + 8);
	struct ktr_ret ret;

	memset(g, 0, sizeof(*g));
	g->h = m->h;
	g->h.type = KTR_GIO;
	g->h.len = sizeof(*g) + m->data_len;
	g->fd = m->fd;
	g->nr = m->nr;
	g->dir = m->dir;
	g->data_len = m->data_len;
	g->total = m->ret;
	memcpy(g->data, m->data, m->data_len);
	memset(&ret, 0, sizeof(ret));
	ret.h = m->h;
	ret.h.type = KTR_RET;
	ret.h.len = sizeof(ret);
	ret.h.flags &= ~KTR_F_DROP;	/* the first of the two carries it */
	ret.nr = m->nr;
	ret.ret = m->ret;
	if (s->o->points & KTR_PT_GENIO)
		print_record(s, &g->h, offset);
	if (s->o->points & KTR_PT_SYSCALL)
		print_record(s, &ret.h, offset);
	free(g);
}

/* A CALLRET record prints as the CALL, GIO (if it has data) and RET
 * records it stands for, each with its own time and CPU. */
static void print_callret(struct kstate *s, const struct ktr_rec *r,
			  uint64_t offset)
{
	const struct ktr_callret *m = (const void *)r;
	struct ktr_call call;
	struct ktr_ret ret;

	memset(&call, 0, sizeof(call));
	call.h = m->h;
	call.h.type = KTR_CALL;
	call.h.len = sizeof(call);
	call.h.ts = m->call_ts;
	call.h.cpu = m->call_cpu;
	call.nr = m->nr;
	memcpy(call.args, m->args, sizeof(call.args));
	memset(&ret, 0, sizeof(ret));
	ret.h = m->h;
	ret.h.type = KTR_RET;
	ret.h.len = sizeof(ret);
	ret.h.flags &= ~KTR_F_DROP;	/* the CALL carries it */
	ret.nr = m->nr;
	ret.ret = m->ret;
	if (s->o->points & KTR_PT_SYSCALL)
		print_record(s, &call.h, offset);
	if (m->gio && (s->o->points & KTR_PT_GENIO)) {
		struct ktr_gio *g = sd_malloc(sizeof(*g) + m->data_len + 8);

		memset(g, 0, sizeof(*g));
		g->h = ret.h;
		g->h.type = KTR_GIO;
		g->h.len = sizeof(*g) + m->data_len;
		g->fd = m->fd;
		g->nr = m->nr;
		g->dir = m->dir;
		g->data_len = m->data_len;
		g->total = m->ret;
		memcpy(g->data, m->data, m->data_len);
		print_record(s, &g->h, offset);
		free(g);
	}
	if (s->o->points & KTR_PT_SYSCALL)
		print_record(s, &ret.h, offset);
}

static int parse_args(int argc, char **argv, struct kopts *o)
{
	int c;
	uint64_t v;

	*o = (struct kopts){ .file = "ktrace.out", .maxdata = -1, .pid = -1,
			     .points = ~0u };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:dnERTHlm:sp:t:h", long_opts,
				NULL)) != -1) {
		switch (c) {
		case 'f': o->file = optarg; break;
		case 'd': o->x.decimal = true; break;
		case 'n': o->x.raw = true; break;
		case 'E': case 'R': case 'T':
			if (o->timefmt && o->timefmt != c)
				return sd_usage_error("%s", "-E, -R and -T exclude "
						   "each other");
			o->timefmt = c;
			break;
		case 'H': o->tids = true; break;
		case 'l': o->follow = true; break;
		case 's': o->nodata = true; break;
		case 'm':
			if (sd_parse_u64(optarg, 0, 1 << 30, &v))
				return sd_usage_error("bad data size '%s'", optarg);
			o->maxdata = v;
			break;
		case 'p':
			if (sd_parse_u64(optarg, 1, INT32_MAX, &v))
				return sd_usage_error("bad pid '%s'", optarg);
			o->pid = v;
			break;
		case 't':
			if (ktrace_parse_points(optarg, &o->points))
				return sd_usage_error("bad trace points '%s' (letters "
						   "c n i s w p t)", optarg);
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "json"))
				o->json = true;
			else if (strcmp(optarg, "text"))
				return sd_usage_error("unknown format '%s' (text, "
						   "json)", optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return -1;
		default:
			return sd_getopt_error(c, argv, long_opts);
		}
	}
	if (optind < argc)
		return sd_usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

int cmd_kdump(int argc, char **argv)
{
	struct kopts o;
	struct kstate s = { .o = &o, .out = stdout };
	struct ktr_reader r;
	const struct ktr_rec *rec;
	const char *name;
	int fd, err, rc = 0;

	sd_set_prog("sonde kdump");
	err = parse_args(argc, argv, &o);
	if (err)
		return err < 0 ? 0 : err;
	if (!strcmp(o.file, "-")) {
		fd = 0;
		name = "stdin";
	} else {
		fd = open(o.file, O_RDONLY | O_CLOEXEC);
		name = o.file;
		if (fd < 0) {
			sd_err("cannot open %s: %s", o.file, strerror(errno));
			return SD_EXIT_FAIL;
		}
	}
	ktr_reader_init(&r, fd);
	while ((err = ktr_reader_header(&r)) == -ENODATA && o.follow)
		usleep(200000);
	if (err == -ENODATA) {
		sd_warn("%s: truncated at byte offset %zu, inside the file "
			"header: no records", name, r.end);
		goto out;
	}
	if (err) {
		sd_err("%s: %s", name, err == -EINVAL ? "not a sonde trace "
		       "file (no SONDEKTR magic)" : ktr_strerror(err));
		rc = SD_EXIT_FAIL;
		goto out;
	}
	s.hdr = &r.hdr;
	sbuf_init(&s.line);
	if (o.json) {
		struct json j;

		json_init(&j, stdout, false);
		json_obj_begin(&j);
		json_key(&j, "format_version");
		json_u64(&j, r.hdr.version);
		json_key(&j, "abi");
		json_str(&j, sc_abi_name(r.hdr.abi));
		json_key(&j, "release");
		json_str(&j, r.hdr.release);
		json_key(&j, "hostname");
		json_str(&j, r.hdr.hostname);
		json_key(&j, "clock_base_ns");
		json_i64(&j, r.hdr.clock_base_ns);
		json_obj_end(&j);
		json_end(&j);
	}
	for (;;) {
		uint64_t off = r.offset;

		err = ktr_reader_next(&r, &rec);
		if (err == 1) {
			if (o.pid > 0 && rec->pid != o.pid && rec->tid != o.pid)
				continue;
			if (!(type_point(rec->type) & o.points))
				continue;
			if (rec->type == KTR_RETGIO) {
				print_retgio(&s, rec, off);
				continue;
			}
			if (rec->type == KTR_CALLRET) {
				print_callret(&s, rec, off);
				continue;
			}
			print_record(&s, rec, off);
			continue;
		}
		if ((err == 0 || err == -ENODATA) && o.follow) {
			fflush(stdout);
			usleep(200000);
			continue;
		}
		if (err == -ENODATA) {
			fflush(stdout);
			sd_warn("%s: truncated at byte offset %llu: the last "
				"record is incomplete (%zu of its bytes)", name,
				(unsigned long long)r.offset, r.end - r.start);
		} else if (err < 0) {
			fflush(stdout);
			sd_err("%s: %s at byte offset %llu", name,
			       ktr_strerror(err), (unsigned long long)r.offset);
			rc = SD_EXIT_FAIL;
		}
		break;
	}
	sbuf_free(&s.line);
out:
	fflush(stdout);
	ktr_reader_free(&r);
	if (fd > 0)
		close(fd);
	return rc;
}
