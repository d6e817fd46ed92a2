// SPDX-License-Identifier: GPL-2.0-only
/* kdump_text — kdump's default view, BSD kdump(1)'s layout: one line per
 * record (pid, [tid], command, [time], type, what happened), I/O data
 * quoted and escaped below its GIO line (or dumped in hex with -x/-X), a
 * RET's duration with -D or any time option. Also the pieces the other
 * text-like views share: escaping, signal and si_code names, seconds. */
#include "kdump.h"
#include "kdump_stru.h"
#include "record.h"

#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[KTR_NTYPES] = {
	[KTR_CALL] = "CALL", [KTR_RET] = "RET", [KTR_NAMI] = "NAMI",
	[KTR_GIO] = "GIO", [KTR_PSIG] = "PSIG", [KTR_CSW] = "CSW",
	[KTR_FORK] = "FORK", [KTR_EXEC] = "EXEC", [KTR_EXIT] = "EXIT",
	[KTR_DROP] = "DROP", [KTR_RETGIO] = "RETGIO",
	[KTR_CALLRET] = "CALLRET", [KTR_STRU] = "STRU", [KTR_FD] = "FD",
};

const char *kd_stru_name(unsigned kind)
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
		[KTR_STRU_RLIMIT64] = "rlimit64", [KTR_STRU_BYTES] = "bytes",
		[KTR_STRU_INT] = "int",
	};

	return kind < KTR_STRU_NKINDS && names[kind] ? names[kind] : "unknown";
}

const char *kd_type_name(uint16_t type)
{
	return type < KTR_NTYPES ? type_names[type] : NULL;
}

/* Bytes as a C string literal's body: printable ASCII as is, the rest
 * escaped (octal, as BSD kdump does). */
void kd_put_escaped(struct sbuf *sb, const unsigned char *p, size_t n)
{
	size_t run = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = p[i];
		char esc[5];

		if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
			run++;
			continue;
		}
		if (run)
			sbuf_put(sb, (const char *)p + i - run, run);
		run = 0;
		switch (c) {
		case '\n': sbuf_put(sb, "\\n", 2); break;
		case '\t': sbuf_put(sb, "\\t", 2); break;
		case '\r': sbuf_put(sb, "\\r", 2); break;
		case '\\': sbuf_put(sb, "\\\\", 2); break;
		case '"': sbuf_put(sb, "\\\"", 2); break;
		default:
			esc[0] = '\\';
			esc[1] = '0' + (c >> 6);
			esc[2] = '0' + ((c >> 3) & 7);
			esc[3] = '0' + (c & 7);
			sbuf_put(sb, esc, 4);
		}
	}
	if (run)
		sbuf_put(sb, (const char *)p + n - run, run);
}

/* The command name, at least 8 columns: escaped as paths are (a name is
 * the thread's bytes, any of them), quotes and backslashes too. */
void kd_put_comm(struct sbuf *sb, const char comm[KTR_COMM_LEN])
{
	char b[KTR_COMM_LEN + 8];
	size_t n;

	/* The usual name, plain: copied as it is checked, padded. */
	for (n = 0; n < KTR_COMM_LEN && comm[n]; n++) {
		unsigned char c = comm[n];

		if (c <= 0x20 || c >= 0x7f || c == '\\' || c == '"') {
			size_t before = sb->len;

			n = strnlen(comm, KTR_COMM_LEN);
			kd_put_escaped(sb, (const unsigned char *)comm, n);
			if (sb->len - before < 8)
				sbuf_put(sb, "        ", 8 - (sb->len - before));
			return;
		}
		b[n] = (char)c;
	}
	while (n < 8)
		b[n++] = ' ';
	sbuf_put(sb, b, n);
}

const char *kd_sig_name(struct kdump *k, int sig, char *b, unsigned n)
{
	const char *name = k->o->x.raw ? NULL :
			   xlat_signal_name(k->hdr->abi, sig, b, n);

	if (!name) {
		snprintf(b, n, "signal %d", sig);
		name = b;
	}
	return name;
}

const char *kd_si_code_name(int code)
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

static void put_u64(struct sbuf *sb, uint64_t v, int width)
{
	char b[24], *p = sd_u64_dec(b + sizeof(b), v);

	while (width > b + sizeof(b) - p && p > b)
		*--p = ' ';
	sbuf_put(sb, p, b + sizeof(b) - p);
}

void kd_put_secs(struct sbuf *sb, int64_t ns)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	uint64_t us = mag % 1000000000 / 1000;
	char frac[8];

	if (ns < 0)
		sbuf_putc(sb, '-');
	put_u64(sb, mag / 1000000000, 0);
	frac[0] = '.';
	for (int i = 6; i > 0; i--) {
		frac[i] = '0' + us % 10;
		us /= 10;
	}
	sbuf_put(sb, frac, 7);
}

/* Wall-clock ns of a timestamp: wraps rather than overflows on a damaged
 * timestamp or clock base (the sum is printed, never trusted). */
int64_t kd_wall_ns(const struct kdump *k, uint64_t ts)
{
	return (int64_t)(ts + (uint64_t)k->hdr->clock_base_ns);
}

/* Lines are gathered in k->line and written 64 KiB at a time (a stdio
 * call per line cost more than making most lines). */
#define KD_OUT_BATCH (64u << 10)

void kd_out_flush(struct kdump *k)
{
	if (k->line.len)
		fwrite(k->line.buf, 1, k->line.len, k->out);
	sbuf_reset(&k->line);
}

void kd_flush_line(struct kdump *k)
{
	if (k->line.len >= KD_OUT_BATCH)
		kd_out_flush(k);
}

void kd_put_time(struct kdump *k, const struct kev *e)
{
	int64_t t;

	if (!k->have_first) {
		k->first_ts = e->ts;
		k->have_first = true;
	}
	switch (k->o->timefmt) {
	case 'E': t = (int64_t)(e->ts - k->first_ts); break;
	case 'R': t = e->rel < 0 ? 0 : e->rel; break;
	default: t = kd_wall_ns(k, e->ts); break;
	}
	kd_put_secs(&k->line, t);
	sbuf_putc(&k->line, ' ');
}

/* GIO data, kdump style: a quoted string, escaped, broken after each
 * newline and where a line would pass 72 columns; "..." after it when
 * the recorder kept less than the call moved. */
static void put_data(struct sbuf *sb, const unsigned char *p, size_t n,
		     bool cut)
{
	size_t col = 0;

	sbuf_put(sb, "       \"", 8);
	for (size_t i = 0; i < n; i++) {
		size_t before = sb->len;

		kd_put_escaped(sb, p + i, 1);
		col += sb->len - before;
		if (i + 1 < n && (p[i] == '\n' || col >= 64)) {
			sbuf_put(sb, "\n        ", 9);
			col = 0;
		}
	}
	sbuf_putc(sb, '"');
	if (cut)
		sbuf_put(sb, "...", 3);
	sbuf_putc(sb, '\n');
}

/* -x: hex; -X: hex and the printable bytes beside it (OpenBSD kdump's
 * letters). 16 bytes a line, with their offset. */
static void put_hex(struct sbuf *sb, const unsigned char *p, size_t n,
		    bool ascii, bool cut)
{
	static const char hx[] = "0123456789abcdef";

	for (size_t off = 0; off < n; off += 16) {
		size_t m = n - off < 16 ? n - off : 16;
		char b[80];
		int j = 0;

		j = snprintf(b, sizeof(b), "       %04zx ", off);
		for (size_t i = 0; i < 16; i++) {
			if (i < m) {
				b[j++] = hx[p[off + i] >> 4];
				b[j++] = hx[p[off + i] & 15];
			} else if (ascii) {
				b[j++] = ' ';
				b[j++] = ' ';
			}
			if (i % 2 && (i < m - 1 || ascii) && i < 15)
				b[j++] = ' ';
		}
		sbuf_put(sb, b, j);
		if (ascii) {
			sbuf_put(sb, "  |", 3);
			for (size_t i = 0; i < m; i++) {
				unsigned char c = p[off + i];

				sbuf_putc(sb, c >= 0x20 && c < 0x7f ? c : '.');
			}
			sbuf_putc(sb, '|');
		}
		sbuf_putc(sb, '\n');
	}
	if (cut)
		sbuf_put(sb, "       ...\n", 11);
}

static bool printable(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((p[i] < 0x20 || p[i] >= 0x7f) && p[i] != '\n' &&
		    p[i] != '\t' && p[i] != '\r')
			return false;
	return true;
}

static const char *fd_namer(void *ctx, uint32_t pid, int64_t fd)
{
	return kd_fd_name(ctx, pid, fd);
}

static void gio_lines(struct kdump *k, const struct ktr_gio *g)
{
	struct sbuf *sb = &k->line;
	size_t n = g->data_len;
	bool cut = g->data_len < g->total;
	const char *fdn = k->o->fds ? kd_fd_name(k, g->h.pid, g->fd) : NULL;

	sbuf_put(sb, "fd ", 3);
	if (g->fd < 0)
		sbuf_printf(sb, "%d", g->fd);
	else
		put_u64(sb, g->fd, 0);
	if (fdn)
		sbuf_printf(sb, "<%s>", fdn);
	sbuf_puts(sb, g->dir == KTR_GIO_WRITE ? " wrote " : " read ");
	put_u64(sb, g->total, 0);
	sbuf_puts(sb, g->total == 1 ? " byte" : " bytes");
	if (cut && !k->o->nodata)
		sbuf_printf(sb, " (%u recorded)", g->data_len);
	if (g->h.flags & KTR_F_DROP)
		sbuf_puts(sb, " [after lost records]");
	sbuf_putc(sb, '\n');
	if (k->o->nodata)
		return;
	if (k->o->maxdata >= 0 && n > (size_t)k->o->maxdata)
		n = k->o->maxdata;
	if (k->o->hex == 'X' || (k->o->hex == 'x' &&
				 !printable((const void *)g->data, n)))
		put_hex(sb, (const unsigned char *)g->data, n, true, cut);
	else
		put_data(sb, (const unsigned char *)g->data, n, cut);
}

/* The line's start: pid, [tid,] command name. The same for most lines
 * in a row: made once and copied while pid, tid and name stay. */
static void put_prefix(struct sbuf *sb, const struct ktr_rec *r, bool tids)
{
	static struct {
		bool ok, tids;
		uint32_t pid, tid;
		uint64_t comm[KTR_COMM_LEN / 8];
		size_t len;
		char b[128];
	} last;
	uint64_t comm[KTR_COMM_LEN / 8];
	size_t start = sb->len;

	memcpy(comm, r->comm, sizeof(comm));
	if (last.ok && last.pid == r->pid && last.tids == tids &&
	    (!tids || last.tid == r->tid) && last.comm[0] == comm[0] &&
	    last.comm[1] == comm[1]) {
		sbuf_put(sb, last.b, last.len);
		return;
	}
	put_u64(sb, r->pid, 6);
	sbuf_putc(sb, ' ');
	if (tids) {
		put_u64(sb, r->tid, 6);
		sbuf_putc(sb, ' ');
	}
	kd_put_comm(sb, r->comm);
	sbuf_putc(sb, ' ');
	last.ok = sb->len - start <= sizeof(last.b);
	if (!last.ok)
		return;
	last.tids = tids;
	last.pid = r->pid;
	last.tid = r->tid;
	memcpy(last.comm, comm, sizeof(comm));
	last.len = sb->len - start;
	memcpy(last.b, sb->buf + start, last.len);
}

static void text_event(struct kdump *k, const struct kev *e)
{
	const struct ktr_rec *r = e->r;
	struct sbuf *sb = &k->line;
	const char *tn = kd_type_name(r->type);
	struct xlat_opts xo = k->o->x;
	char b[32];

	/* The recorder reads 4 bytes at every ioctl's address argument; for
	 * a request whose argument is not an int (TCGETS's termios, a flag
	 * word) they are no int to show. */
	if (r->type == KTR_STRU && e->call &&
	    ((const struct ktr_stru *)r)->kind == KTR_STRU_INT &&
	    !kd_ioctl_takes_int(kd_abi(k, r), e->cargs[1]))
		return;
	if (k->o->fds) {
		xo.fd_name = fd_namer;
		xo.fd_ctx = k;
		xo.pid = r->pid;
	}
	put_prefix(sb, r, k->o->tids);
	if (k->o->timefmt)
		kd_put_time(k, e);
	if (tn) {
		size_t l = strlen(tn);

		sbuf_put(sb, tn, l);
		sbuf_put(sb, "      ", 6 - l);
	} else {
		sbuf_printf(sb, "#%-4u ", r->type);
	}
	switch (r->type) {
	case KTR_CALL: {
		const struct ktr_call *c = (const void *)r;

		xlat_call(sb, kd_abi(k, r), c->nr, c->args, &xo);
		break;
	}
	case KTR_RET: {
		const struct ktr_ret *c = (const void *)r;

		xlat_ret_args(sb, kd_abi(k, r), c->nr, c->ret,
			      e->dur >= 0 ? e->cargs : NULL, &xo);
		if (k->o->fds) {
			const char *n = kd_fd_ret_name(k, e);

			if (n)
				sbuf_printf(sb, "<%s>", n);
		}
		if (k->o->durations && e->dur >= 0) {
			sbuf_put(sb, " <", 2);
			kd_put_secs(sb, e->dur);
			sbuf_putc(sb, '>');
		}
		break;
	}
	case KTR_NAMI: {
		const struct ktr_nami *n = (const void *)r;
		size_t len = strnlen(n->path, r->len - sizeof(*n));

		sbuf_putc(sb, '"');
		kd_put_escaped(sb, (const unsigned char *)n->path, len);
		sbuf_putc(sb, '"');
		break;
	}
	case KTR_FD: {
		/* An fd held at the attach: 3 "/var/log/x" O_WRONLY|O_APPEND. */
		const struct ktr_fd *d = (const void *)r;
		size_t len = strnlen(d->path, r->len - sizeof(*d));

		/* (The working directory: AT_FDCWD "/home/me".) */
		if (d->fd == AT_FDCWD && !k->o->x.raw) {
			sbuf_puts(sb, "AT_FDCWD \"");
			kd_put_escaped(sb, (const unsigned char *)d->path, len);
			sbuf_putc(sb, '"');
			break;
		}
		sbuf_printf(sb, "%d \"", d->fd);
		kd_put_escaped(sb, (const unsigned char *)d->path, len);
		sbuf_puts(sb, "\" ");
		if (k->o->x.raw)
			sbuf_printf(sb, "%#o", d->flags);
		else
			xlat_flags(sb, kd_abi(k, r), XLAT_OPEN, d->flags);
		break;
	}
	case KTR_GIO:
		gio_lines(k, (const void *)r);
		kd_flush_line(k);
		return;
	case KTR_PSIG: {
		const struct ktr_psig *p = (const void *)r;
		const char *code = kd_si_code_name(p->code);
		static const char *const results[] = {
			"", " (ignored)", " (already pending)",
			" (queue overflow)", " (info lost)",
		};

		bool v2 = r->len >= sizeof(*p);

		sbuf_puts(sb, kd_sig_name(k, p->sig, b, sizeof(b)));
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
		if (code && !k->o->x.raw)
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
		const struct ktr_exec *x = (const void *)r;
		const unsigned char *p = (const unsigned char *)x->data;
		size_t i = 0, n = x->argv_len;
		uint32_t shown = 0;

		sbuf_putc(sb, '"');
		kd_put_escaped(sb, p, strnlen((const char *)p, x->path_len));
		sbuf_puts(sb, "\" argv");
		p += x->path_len;
		while (i < n) {
			size_t l = strnlen((const char *)p + i, n - i);

			sbuf_puts(sb, " \"");
			kd_put_escaped(sb, p + i, l);
			sbuf_putc(sb, '"');
			/* The last string may be cut inside. */
			if (i + l == n && x->argc > shown + 1)
				sbuf_put(sb, "...", 3);
			i += l + 1;
			shown++;
		}
		if (x->argv_total > x->argv_len)
			sbuf_printf(sb, " (cut: %u of %u bytes, %u arguments)",
				    x->argv_len, x->argv_total, x->argc);
		else if (x->argc > shown)
			sbuf_printf(sb, " ... (%u of %u arguments)", shown,
				    x->argc);
		break;
	}
	case KTR_EXIT: {
		const struct ktr_exit *x = (const void *)r;

		if (x->code & 0x7f)
			sbuf_printf(sb, "signal %s%s",
				    kd_sig_name(k, x->code & 0x7f, b, sizeof(b)),
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
		/* Decoded, as FreeBSD kdump prints a STRU line; else which
		 * structure and its bytes in hex. */
		const struct ktr_stru *st = (const void *)r;

		if (!k->o->x.raw &&
		    kd_stru_put(sb, kd_abi(k, r), st, KD_STRU_BSD)) {
			if (st->data_len < st->total)
				sbuf_printf(sb, " (%u of %u bytes recorded)",
					    st->data_len, st->total);
			break;
		}
		sbuf_printf(sb, "struct %s %s", kd_stru_name(st->kind),
			    st->dir == KTR_STRU_IN ? "in" : "out");
		if (st->arg != KTR_STRU_NOARG)
			sbuf_printf(sb, " arg %u", st->arg);
		sbuf_printf(sb, " %u bytes", st->total);
		if (st->data_len < st->total)
			sbuf_printf(sb, " (%u recorded)", st->data_len);
		if (st->data_len && !k->o->nodata) {
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
	kd_flush_line(k);
}

static int loss_cmp(const void *a, const void *b)
{
	const struct kd_loss *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : (x->pid > y->pid) -
							(x->pid < y->pid);
}

void kd_put_losses(struct kdump *k)
{
	size_t n = k->nlosses;

	kd_out_flush(k);
	if (!k->lost)
		return;
	qsort(k->losses, n, sizeof(*k->losses), loss_cmp);
	fprintf(k->out, "# %llu records lost (ring buffer full):",
		(unsigned long long)k->lost);
	for (size_t i = 0; i < n && i < 10; i++) {
		fprintf(k->out, "%s %llu ", i ? "," : "",
			(unsigned long long)k->losses[i].n);
		if (k->losses[i].pid)
			fprintf(k->out, "of process %u", k->losses[i].pid);
		else
			fputs("of processes not known", k->out);
	}
	if (n > 10)
		fprintf(k->out, ", and %zu more processes", n - 10);
	fputc('\n', k->out);
}

const struct kd_view kd_text_view = {
	.event = text_event,
	.end = kd_put_losses,
};
