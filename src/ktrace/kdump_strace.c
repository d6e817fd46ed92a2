// SPDX-License-Identifier: GPL-2.0-only
/* kdump_strace — `kdump --strace`: one line per call as strace -f prints
 * it, the call's path names, data and structures inline where its
 * arguments point to them: "1234  openat(AT_FDCWD, "/etc/passwd",
 * O_RDONLY|O_CLOEXEC) = 3". A call prints when it returns (records of
 * other threads in between do not split it: there is no <unfinished ...>),
 * exit_group and other calls that never return as "= ?"; delivered
 * signals as "--- SIGUSR1 {si_signo=SIGUSR1, ...} ---", a process's end as
 * "+++ exited with 7 +++". -s sets how much data shows (strace's 32
 * bytes), -D the duration, -E/-R/-T a time after the id, -y fd names. */
#include "kdump.h"
#include "kdump_call.h"
#include "kdump_stru.h"
#include "record.h"
#include "systab.h"

#include <stdlib.h>
#include <string.h>

struct sview {
	struct kd_calls *calls;
	struct kdump *k;
	const struct kd_call *c;	/* the call being printed */
	unsigned path;			/* its next NAMI */
};

static const char *fd_namer(void *ctx, uint32_t pid, int64_t fd)
{
	return kd_fd_name(ctx, pid, fd);
}

/* strace's string: printable bytes as they are, \n \t \r \v \f \" \\
 * escaped, others in octal (three digits before a digit); at most strsize
 * bytes, "..." after when there was more. */
static void put_str(struct sbuf *sb, const unsigned char *p, size_t n,
		    size_t total, long max)
{
	size_t show = max >= 0 && n > (size_t)max ? (size_t)max : n;

	sbuf_putc(sb, '"');
	for (size_t i = 0; i < show; i++) {
		unsigned char c = p[i];

		switch (c) {
		case '\n': sbuf_puts(sb, "\\n"); continue;
		case '\t': sbuf_puts(sb, "\\t"); continue;
		case '\r': sbuf_puts(sb, "\\r"); continue;
		case '\v': sbuf_puts(sb, "\\v"); continue;
		case '\f': sbuf_puts(sb, "\\f"); continue;
		case '"': sbuf_puts(sb, "\\\""); continue;
		case '\\': sbuf_puts(sb, "\\\\"); continue;
		}
		if (c >= 0x20 && c < 0x7f)
			sbuf_putc(sb, c);
		else if (i + 1 < show && p[i + 1] >= '0' && p[i + 1] <= '7')
			sbuf_printf(sb, "\\%03o", c);
		else
			sbuf_printf(sb, "\\%o", c);
	}
	sbuf_putc(sb, '"');
	if (show < total)
		sbuf_puts(sb, "...");
}

static const struct ktr_rec *part(const struct kd_call *c, uint16_t type,
				  unsigned nth)
{
	for (size_t i = 0; i < c->nparts; i++)
		if (c->parts[i]->r->type == type && !nth--)
			return c->parts[i]->r;
	return NULL;
}

static const struct ktr_stru *stru_of(const struct kd_call *c, unsigned arg)
{
	for (size_t i = 0; i < c->nparts; i++) {
		const struct ktr_stru *st = (const void *)c->parts[i]->r;

		if (st->h.type == KTR_STRU && st->arg == arg)
			return st;
	}
	return NULL;
}

/* An ioctl's int argument, when its request takes one, as strace prints
 * it: "[1]" (the requests strace's term.c prints with printnum_int),
 * "[FS_EXTENT_FL]" for the inode flags; false for the others (the
 * pointer prints). */
bool kd_ioctl_takes_int(enum sc_abi abi, uint64_t req)
{
	static const char *const ints[] = {
		"FIONREAD", "FIONBIO", "FIOASYNC", "TIOCOUTQ", "TIOCGPGRP",
		"TIOCSPGRP", "TIOCGSID", "TIOCGETD", "TIOCSETD", "TIOCGSOFTCAR",
		"TIOCSSOFTCAR", "TIOCGPTN", "TIOCGEXCL", "TIOCGDEV", "TIOCPKT",
		"TIOCSPTLCK", "FS_IOC_GETFLAGS", "FS_IOC_SETFLAGS",
	};
	const char *name = xlat_value(abi, XLAT_IOCTL, (uint32_t)req);

	for (size_t i = 0; name && i < sizeof(ints) / sizeof(*ints); i++)
		if (!strcmp(name, ints[i]))
			return true;
	return false;
}

static bool ioctl_int(struct sbuf *sb, enum sc_abi abi, uint64_t req,
		      const struct ktr_stru *st)
{
	const char *name = xlat_value(abi, XLAT_IOCTL, (uint32_t)req);
	int32_t v;

	if (!kd_ioctl_takes_int(abi, req) || st->data_len < 4)
		return false;
	memcpy(&v, st->data, 4);
	if (!strcmp(name, "FS_IOC_GETFLAGS") || !strcmp(name, "FS_IOC_SETFLAGS")) {
		sbuf_putc(sb, '[');
		xlat_flags(sb, abi, XLAT_FSFL, (uint32_t)v);
		sbuf_putc(sb, ']');
		return true;
	}
	sbuf_printf(sb, "[%d]", v);
	return true;
}

/* Arguments whose text is somewhere else in the trace: path names (NAMI),
 * data (GIO), structures (STRU), execve's argv (EXEC). */
static bool arg_hook(void *ctx, struct sbuf *sb, int i, uint16_t kind,
		     uint64_t v)
{
	struct sview *s = ctx;
	const struct kd_call *c = s->c;
	enum sc_abi abi = kd_abi(s->k, c->call->r);
	const struct ktr_rec *r;

	switch (KA_KIND(kind)) {
	case KA_PATH: {
		const struct ktr_nami *n;

		r = part(c, KTR_NAMI, s->path);
		if (!r || !v)
			return false;
		s->path++;
		n = (const void *)r;
		put_str(sb, (const unsigned char *)n->path,
			strnlen(n->path, r->len - sizeof(*n)),
			strnlen(n->path, r->len - sizeof(*n)), -1);
		return true;
	}
	case KA_BUF: {
		const struct ktr_gio *g = (const void *)part(c, KTR_GIO, 0);
		const struct ktrace_syscall *sc = ktrace_syscall_nr(
			abi, ((const struct ktr_call *)c->call->r)->nr);

		/* A read that returned 0 read nothing: "". */
		if (!g && c->ret && sc && sc->io == KTR_IO_READ &&
		    ((const struct ktr_ret *)c->ret->r)->ret == 0) {
			sbuf_puts(sb, "\"\"");
			return true;
		}
		if (!g)
			return false;
		put_str(sb, (const unsigned char *)g->data, g->data_len,
			g->total, s->k->o->strsize);
		return true;
	}
	case KA_STRU_IN:
	case KA_STRU_OUT: {
		const struct ktr_stru *st = stru_of(c, i);
		const struct ktr_call *cl = (const void *)c->call->r;
		long max = s->k->o->strsize;

		if (!v) {
			sbuf_puts(sb, "NULL");
			return true;
		}
		/* EPOLL_CTL_DEL ignores its event: strace prints the
		 * pointer. */
		if (KA_STRU_OF(kind) == KTR_STRU_EPOLL_EVENT && i == 3 &&
		    cl->args[1] == xlat_named(abi, XLAT_EPOLLCTL,
					      "EPOLL_CTL_DEL"))
			return false;
		if (st && st->kind == KTR_STRU_INT)
			return ioctl_int(sb, abi, cl->args[1], st);
		/* -y: pipe's and socketpair's fds named, as strace -y does
		 * ([3<pipe:[...]>, 4<pipe:[...]>]). */
		if (st && st->kind == KTR_STRU_FDPAIR && st->data_len >= 8 &&
		    s->k->o->fds && c->ret) {
			int32_t fd[2];

			memcpy(fd, st->data, sizeof(fd));
			sbuf_putc(sb, '[');
			for (int j = 0; j < 2; j++) {
				const char *n = kd_fd_name(s->k, c->ret->r->pid,
							   fd[j]);

				sbuf_printf(sb, "%s%d", j ? ", " : "", fd[j]);
				if (n)
					xlat_fd_name(sb, n, true);
			}
			sbuf_putc(sb, ']');
			return true;
		}
		/* wait4 with WNOHANG that returned 0 reaped no child: the
		 * status was not written; strace prints the pointer. */
		if (st && st->kind == KTR_STRU_WSTATUS && c->ret &&
		    ((const struct ktr_ret *)c->ret->r)->ret == 0)
			return false;
		/* Bytes: at most -s of them, "..." after. */
		if (st && st->kind == KTR_STRU_BYTES && max >= 0 &&
		    st->data_len > (unsigned long)max) {
			struct ktr_stru *cut = sd_malloc(sizeof(*cut) + max);
			bool ok;

			memcpy(cut, st, sizeof(*cut) + max);
			cut->data_len = max;
			ok = kd_stru_put(sb, abi, cut, KD_STRU_STRACE);
			free(cut);
			return ok;
		}
		return st && kd_stru_put(sb, abi, st, KD_STRU_STRACE);
	}
	case KA_IOV: {
		const struct ktr_stru *st = stru_of(c, i);

		return st && kd_stru_put(sb, abi, st, KD_STRU_STRACE);
	}
	case KA_PTR:
		/* execve's argv: the EXEC record has the strings. */
		if (i == 1 && (r = part(c, KTR_EXEC, 0))) {
			const struct ktr_exec *x = (const void *)r;
			const unsigned char *p = (const unsigned char *)x->data +
						 x->path_len;
			size_t k = 0, n = 0;

			sbuf_putc(sb, '[');
			while (k < x->argv_len) {
				size_t l = strnlen((const char *)p + k,
						   x->argv_len - k);

				if (n++)
					sbuf_puts(sb, ", ");
				put_str(sb, p + k, l, l, -1);
				k += l + 1;
			}
			sbuf_putc(sb, ']');
			if (x->argc > n)
				sbuf_puts(sb, "...");
			return true;
		}
		return false;
	default:
		return false;
	}
}

static void put_prefix(struct kdump *k, const struct kev *e)
{
	sbuf_printf(&k->line, "%-5u ", e->r->tid);
	if (k->o->timefmt)
		kd_put_time(k, e);
}

/* strace's return: a number, a pointer for calls that return one, an
 * errno with its message, a restart. */
static void put_ret(struct kdump *k, const struct kev *e)
{
	const struct ktr_ret *r = (const void *)e->r;
	enum sc_abi abi = kd_abi(k, e->r);
	const struct ktrace_syscall *sc = ktrace_syscall_nr(abi, r->nr);
	struct sbuf *sb = &k->line;
	int64_t ret = r->ret;

	sbuf_puts(sb, " = ");
	if (ret < 0 && ret >= -4095) {
		const char *n = xlat_errno_name(-ret);
		const char *m = xlat_errno_msg(-ret);

		/* strace's message is the C library's (strerror), the
		 * kernel's own restart codes aside. */
		if (ret <= -512 && ret >= -516)
			sbuf_printf(sb, "? %s (%s)", n ? n : "?", m ? m : "");
		else
			sbuf_printf(sb, "-1 %s (%s)", n ? n : "E?",
				    n ? strerror((int)-ret) : m ? m : "");
	} else if (sc && (!strcmp(sc->name, "mmap") || !strcmp(sc->name, "brk") ||
			  !strcmp(sc->name, "mremap") ||
			  !strcmp(sc->name, "mmap2"))) {
		sbuf_printf(sb, "%#llx", (unsigned long long)ret);
	} else {
		struct sbuf tmp;
		char *flags = NULL;

		/* A value named by the call's arguments: fcntl's F_GETFL,
		 * F_GETFD "0x8002 (flags O_RDWR|...)", prctl's
		 * PR_GET_DUMPABLE "1 (SUID_DUMP_USER)". */
		sbuf_init(&tmp);
		if (e->dur >= 0 && sc && !k->o->x.raw) {
			struct xlat_opts xo = { 0 };

			xlat_ret_args(&tmp, abi, r->nr, ret, e->cargs, &xo);
			if (tmp.buf && (flags = strchr(tmp.buf, '<'))) {
				flags[strlen(flags) - 1] = '\0';
				flags++;
			}
		}
		if (flags && sc->args[1] == KA_SET(XLAT_FCNTL))
			sbuf_printf(sb, "%#llx (flags %s)",
				    (unsigned long long)ret, flags);
		else if (flags)
			sbuf_printf(sb, "%lld (%s)", (long long)ret, flags);
		else
			sbuf_printf(sb, "%lld", (long long)ret);
		sbuf_free(&tmp);
		if (k->o->fds) {
			const char *n = kd_fd_ret_name(k, e);

			if (n)
				xlat_fd_name(sb, n, true);
		}
	}
	if (k->o->durations && e->dur >= 0) {
		sbuf_puts(sb, " <");
		kd_put_secs(sb, e->dur);
		sbuf_putc(sb, '>');
	}
}

static void call_line(void *ctx, const struct kd_call *c)
{
	struct sview *s = ctx;
	struct kdump *k = s->k;
	struct sbuf *sb = &k->line;
	const struct kev *first = c->call ? c->call : c->ret;

	if (!first)
		return;
	put_prefix(k, first);
	if (c->call) {
		const struct ktr_call *cl = (const void *)c->call->r;
		struct xlat_opts xo = k->o->x;

		xo.strace = true;
		xo.arg_hook = arg_hook;
		xo.hook_ctx = s;
		if (k->o->fds) {
			xo.fd_name = fd_namer;
			xo.fd_ctx = k;
			xo.pid = cl->h.pid;
		}
		s->c = c;
		s->path = 0;
		xlat_call(sb, kd_abi(k, &cl->h), cl->nr, cl->args, &xo);
	} else {
		const struct ktr_ret *r = (const void *)c->ret->r;
		char nb[32];

		/* Attached while the call ran: its arguments are not in the
		 * trace. */
		sbuf_printf(sb, "<... %s resumed>",
			    xlat_sysname(kd_abi(k, &r->h), r->nr, nb, sizeof(nb)));
	}
	if (c->ret)
		put_ret(k, c->ret);
	else
		sbuf_puts(sb, " = ?");
	sbuf_putc(sb, '\n');
	kd_flush_line(k);
}

static void signal_line(struct kdump *k, const struct kev *e)
{
	const struct ktr_psig *p = (const void *)e->r;
	const char *code = kd_si_code_name(p->code);
	char b[32];
	const char *name = kd_sig_name(k, p->sig, b, sizeof(b));
	struct sbuf *sb = &k->line;

	if (p->kind != KTR_SIG_DELIVERED)
		return;
	put_prefix(k, e);
	sbuf_printf(sb, "--- %s {si_signo=%s, si_code=", name, name);
	if (code)
		sbuf_puts(sb, code);
	else
		sbuf_printf(sb, "%d", p->code);
	if (e->r->len >= sizeof(*p) && p->addr)
		sbuf_printf(sb, ", si_addr=%#llx", (unsigned long long)p->addr);
	else
		sbuf_printf(sb, ", si_pid=%u", p->sender_pid);
	sbuf_puts(sb, "} ---\n");
	kd_flush_line(k);
}

static void exit_line(struct kdump *k, const struct kev *e)
{
	const struct ktr_exit *x = (const void *)e->r;
	char b[32];

	put_prefix(k, e);
	if (x->code & 0x7f)
		sbuf_printf(&k->line, "+++ killed by %s%s +++\n",
			    kd_sig_name(k, x->code & 0x7f, b, sizeof(b)),
			    x->code & 0x80 ? " (core dumped)" : "");
	else
		sbuf_printf(&k->line, "+++ exited with %d +++\n",
			    (x->code >> 8) & 0xff);
	kd_flush_line(k);
}

static void strace_init(struct kdump *k)
{
	struct sview *s = sd_calloc(1, sizeof(*s));

	s->calls = kd_calls_new();
	s->k = k;
	k->view = s;
}

static void strace_event(struct kdump *k, const struct kev *e)
{
	struct sview *s = k->view;

	switch (e->r->type) {
	case KTR_EXIT:
		kd_calls_end_thread(s->calls, e->r->tid, call_line, s);
		exit_line(k, e);
		return;
	case KTR_PSIG:
		signal_line(k, e);
		return;
	case KTR_DROP:
		put_prefix(k, e);
		sbuf_printf(&k->line, "+++ %llu records lost +++\n",
			    (unsigned long long)
			    ((const struct ktr_drop *)e->r)->count);
		kd_flush_line(k);
		return;
	case KTR_EXEC:
	case KTR_STRU:
		/* Parts of their call when inside one. */
		if (kd_calls_add(s->calls, e, call_line, s))
			return;
		return;
	default:
		kd_calls_add(s->calls, e, call_line, s);
	}
}

static void strace_end(struct kdump *k)
{
	struct sview *s = k->view;

	kd_calls_end(s->calls, call_line, s);
	kd_calls_free(s->calls);
	free(s);
	k->view = NULL;
	kd_put_losses(k);
}

const struct kd_view kd_strace_view = {
	.init = strace_init,
	.event = strace_event,
	.end = strace_end,
};
