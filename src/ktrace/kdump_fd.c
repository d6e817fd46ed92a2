// SPDX-License-Identifier: GPL-2.0-only
/* kdump_fd — `kdump -y`: what each fd of each process refers to, rebuilt
 * from the trace's own records in time order: open and openat name a
 * path (joined to the directory fd's path when relative), socket and
 * accept a socket, eventfd, epoll_create, timerfd, signalfd, inotify,
 * pidfd, io_uring and perf_event_open their anonymous inodes (named as
 * /proc/PID/fd shows them, as strace -y prints them); dup, dup2, dup3
 * and fcntl(F_DUPFD) copy, close and close_range forget, fork copies the
 * table, exec drops the close-on-exec fds, the process's exit frees it.
 * An fd a process held when ktrace -p attached is named by the trace's
 * FD record (what /proc/PID/fd showed then); one the trace never saw
 * opened otherwise (inherited by a command) has no name. Every event goes through here, shown or not: a
 * filter hides an open, not what it opened. */
#include "kdump.h"
#include "kdump_stru.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <netinet/in.h>
#include <linux/close_range.h>
#include <linux/memfd.h>

/* Beyond the kernel's largest fd (fs.nr_open's ceiling), numbers are
 * damaged: not tracked. */
#define FD_LIMIT (1 << 20)

struct fdent {
	char *name;		/* escaped for printing; NULL: unknown */
	bool cloexec;
};

struct fdtab {
	uint32_t pid;		/* 0: free slot */
	struct fdent *v;
	size_t n;
	char *cwd;		/* the working directory, when the trace says
				 * (an FD record of AT_FDCWD, chdir, fchdir) */
};

struct pend {
	uint32_t tid;		/* 0: free slot */
	uint32_t nr;
	enum sc_abi abi;
	uint64_t args[KTR_MAX_ARGS];
	char *path;		/* the call's first path name */
	int32_t pair[2];	/* pipe, pipe2, socketpair: the fds (STRU) */
	bool have_pair;
	char *addr;		/* connect, bind, accept: the address (STRU) */
};

enum act {
	A_NONE, A_OPEN, A_OPENAT, A_OPENAT2, A_CREAT, A_DUP, A_DUP2, A_DUP3,
	A_FCNTL, A_CLOSE, A_CLOSE_RANGE, A_SOCKET, A_ACCEPT, A_ACCEPT4,
	A_EVENTFD, A_EVENTFD2, A_EPOLL, A_EPOLL1, A_TIMERFD, A_SIGNALFD,
	A_SIGNALFD4, A_INOTIFY, A_INOTIFY1, A_PIDFD, A_PERF, A_IOURING,
	A_MEMFD, A_PIPE, A_PIPE2, A_SOCKETPAIR, A_CONNECT, A_BIND,
	A_GETSOCKNAME, A_CHDIR, A_FCHDIR,
};

static const struct {
	const char *call;
	enum act act;
} acts[] = {
	{ "open", A_OPEN }, { "openat", A_OPENAT }, { "openat2", A_OPENAT2 },
	{ "creat", A_CREAT }, { "dup", A_DUP }, { "dup2", A_DUP2 },
	{ "dup3", A_DUP3 }, { "fcntl", A_FCNTL }, { "close", A_CLOSE },
	{ "close_range", A_CLOSE_RANGE }, { "socket", A_SOCKET },
	{ "accept", A_ACCEPT }, { "accept4", A_ACCEPT4 },
	{ "eventfd", A_EVENTFD }, { "eventfd2", A_EVENTFD2 },
	{ "epoll_create", A_EPOLL }, { "epoll_create1", A_EPOLL1 },
	{ "timerfd_create", A_TIMERFD }, { "signalfd", A_SIGNALFD },
	{ "signalfd4", A_SIGNALFD4 }, { "inotify_init", A_INOTIFY },
	{ "inotify_init1", A_INOTIFY1 }, { "pidfd_open", A_PIDFD },
	{ "perf_event_open", A_PERF }, { "io_uring_setup", A_IOURING },
	{ "memfd_create", A_MEMFD }, { "pipe", A_PIPE }, { "pipe2", A_PIPE2 },
	{ "socketpair", A_SOCKETPAIR }, { "connect", A_CONNECT },
	{ "bind", A_BIND }, { "getsockname", A_GETSOCKNAME },
	{ "chdir", A_CHDIR }, { "fchdir", A_FCHDIR },
};

struct fds {
	uint8_t *act[SC_NABIS];	/* by ABI and syscall number */
	long nact[SC_NABIS];
	struct fdtab *tabs;
	size_t tcap, tused;
	struct pend *pend;
	size_t pcap, pused;
	struct sbuf tmp;
};

/* ---- two small open-addressing maps keyed by a u32 (never 0) ---- */

#define MAP_FIND(arr, cap, used, key, field, add, grow)			\
	({								\
		__typeof__(arr) _hit = NULL;				\
		if ((add) && ((used) + 1) * 2 > (cap))			\
			grow;						\
		for (size_t _i = ((key) * 0x9e3779b1u) & ((cap) - 1);	\
		     (cap); _i = (_i + 1) & ((cap) - 1)) {		\
			if ((arr)[_i].field == (key)) {			\
				_hit = &(arr)[_i];			\
				break;					\
			}						\
			if (!(arr)[_i].field) {				\
				if (add) {				\
					_hit = &(arr)[_i];		\
					memset(_hit, 0, sizeof(*_hit));	\
					_hit->field = (key);		\
					(used)++;			\
				}					\
				break;					\
			}						\
		}							\
		_hit;							\
	})

static void tabs_grow(struct fds *f)
{
	struct fdtab *old = f->tabs;
	size_t oldcap = f->tcap;

	f->tcap = oldcap ? oldcap * 2 : 64;
	f->tabs = sd_calloc(f->tcap, sizeof(*f->tabs));
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].pid)
			continue;
		for (j = (old[i].pid * 0x9e3779b1u) & (f->tcap - 1);
		     f->tabs[j].pid; j = (j + 1) & (f->tcap - 1))
			;
		f->tabs[j] = old[i];
	}
	free(old);
}

static void pend_grow(struct fds *f)
{
	struct pend *old = f->pend;
	size_t oldcap = f->pcap;

	f->pcap = oldcap ? oldcap * 2 : 64;
	f->pend = sd_calloc(f->pcap, sizeof(*f->pend));
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].tid)
			continue;
		for (j = (old[i].tid * 0x9e3779b1u) & (f->pcap - 1);
		     f->pend[j].tid; j = (j + 1) & (f->pcap - 1))
			;
		f->pend[j] = old[i];
	}
	free(old);
}

static struct fdtab *tab(struct fds *f, uint32_t pid, bool add)
{
	return MAP_FIND(f->tabs, f->tcap, f->tused, pid, pid, add,
			tabs_grow(f));
}

static struct pend *pend(struct fds *f, uint32_t tid, bool add)
{
	return MAP_FIND(f->pend, f->pcap, f->pused, tid, tid, add,
			pend_grow(f));
}

/* A process's table stays as a slot with no entries when it ends: its
 * pid can come back, and the slot is cheap. */
static void tab_clear(struct fdtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	t->v = NULL;
	t->n = 0;
	free(t->cwd);
	t->cwd = NULL;
}

static void set_cwd(struct fdtab *t, const char *dir)
{
	char *d = dir ? sd_strdup(dir) : NULL;

	free(t->cwd);
	t->cwd = d;
}

/* ---- the table of one process ---- */

static struct fdent *slot(struct fdtab *t, int64_t fd)
{
	if (fd < 0 || fd >= FD_LIMIT)
		return NULL;
	if ((size_t)fd >= t->n) {
		size_t n = t->n ? t->n : 16;

		while (n <= (size_t)fd)
			n *= 2;
		t->v = sd_realloc(t->v, n * sizeof(*t->v));
		memset(t->v + t->n, 0, (n - t->n) * sizeof(*t->v));
		t->n = n;
	}
	return &t->v[fd];
}

static void set_fd(struct fdtab *t, int64_t fd, const char *name, bool cloexec)
{
	struct fdent *e = slot(t, fd);

	if (!e)
		return;
	free(e->name);
	e->name = name ? sd_strdup(name) : NULL;
	e->cloexec = cloexec;
}

static const char *get_fd(struct fdtab *t, int64_t fd)
{
	if (t && (int32_t)fd == AT_FDCWD)
		return t->cwd;
	return t && fd >= 0 && (size_t)fd < t->n ? t->v[fd].name : NULL;
}

static void close_fd(struct fdtab *t, int64_t fd)
{
	if (fd >= 0 && (size_t)fd < t->n) {
		free(t->v[fd].name);
		t->v[fd].name = NULL;
		t->v[fd].cloexec = false;
	}
}

/* ---- what a call made of an fd ----
 * A socket is named by its protocol as strace -yy names it (TCP:[...]);
 * the brackets hold its addresses when the trace has them (STRU). */

static const char *sock_name(uint64_t domain, uint64_t type, uint64_t proto)
{
	int t = type & 0xf;

	switch (domain) {
	case AF_UNIX:
		return t == SOCK_STREAM ? "UNIX-STREAM:[]" :
		       t == SOCK_DGRAM ? "UNIX-DGRAM:[]" :
		       t == SOCK_SEQPACKET ? "UNIX-SEQPACKET:[]" : "UNIX:[]";
	case AF_INET:
	case AF_INET6: {
		bool v6 = domain == AF_INET6;

		if (t == SOCK_STREAM && (proto == 0 || proto == IPPROTO_TCP))
			return v6 ? "TCPv6:[]" : "TCP:[]";
		if (t == SOCK_DGRAM && (proto == 0 || proto == IPPROTO_UDP))
			return v6 ? "UDPv6:[]" : "UDP:[]";
		if (t == SOCK_DGRAM && proto == IPPROTO_ICMP)
			return "PING:[]";
		if (t == SOCK_RAW)
			return v6 ? "RAWv6:[]" : "RAW:[]";
		return v6 ? "INET6:[]" : "INET:[]";
	}
	case AF_NETLINK: return "NETLINK:[]";
	case AF_PACKET: return "PACKET:[]";
	default: return "socket:[]";
	}
}

/* path, or dirfd's path + "/" + path when path is relative. */
static const char *joined(struct fds *f, struct fdtab *t, int64_t dirfd,
			  const char *path)
{
	const char *dir;

	if (!path)
		return NULL;
	/* (AT_FDCWD: the working directory, when the trace says it.) */
	if (path[0] == '/' || !(dir = get_fd(t, (int32_t)dirfd)) ||
	    dir[0] != '/')
		return path;
	sbuf_reset(&f->tmp);
	sbuf_puts(&f->tmp, dir);
	if (dir[strlen(dir) - 1] != '/')
		sbuf_putc(&f->tmp, '/');
	sbuf_puts(&f->tmp, path);
	return f->tmp.buf;
}

/* A socket's name with one of its ends: "TCP:[]" and connect's
 * 127.0.0.1:80 make "TCP:[->127.0.0.1:80]"; bind's make "TCP:[addr]"
 * (keeping a "->peer" already there). */
static const char *sock_with(struct fds *f, const char *name, const char *addr,
			     bool peer)
{
	const char *in = name ? strstr(name, ":[") : NULL;
	const char *arrow;

	if (!in || !addr)
		return name;
	sbuf_reset(&f->tmp);
	sbuf_put(&f->tmp, name, in + 2 - name);
	arrow = strstr(in, "->");
	if (peer) {
		/* local part, if any, then the peer */
		if (arrow)
			sbuf_put(&f->tmp, in + 2, arrow - in - 2);
		else
			sbuf_put(&f->tmp, in + 2, strlen(in + 2) - 1);
		sbuf_printf(&f->tmp, "->%s]", addr);
	} else {
		sbuf_puts(&f->tmp, addr);
		sbuf_puts(&f->tmp, arrow ? arrow : "]");
	}
	return f->tmp.buf;
}

static void on_ret(struct fds *f, const struct ktr_rec *r,
		   int64_t ret)
{
	struct pend *p = pend(f, r->tid, false);
	const uint64_t *a;
	struct fdtab *t;
	enum act act;

	if (!p || !p->nr)
		return;
	act = p->nr < f->nact[p->abi] ? f->act[p->abi][p->nr] : A_NONE;
	a = p->args;
	p->nr = 0;
	if (act == A_NONE)
		goto out;
	t = tab(f, r->pid, true);
	if (act == A_CLOSE) {
		close_fd(t, (int32_t)a[0]);
		goto out;
	}
	if (ret < 0)
		goto out;
	switch (act) {
	case A_OPEN:
		set_fd(t, ret, joined(f, t, AT_FDCWD, p->path),
		       a[1] & O_CLOEXEC);
		break;
	case A_CHDIR:
		/* Known only from a known one, or an absolute path. */
		if (p->path && (p->path[0] == '/' || t->cwd))
			set_cwd(t, joined(f, t, AT_FDCWD, p->path));
		else
			set_cwd(t, NULL);
		break;
	case A_FCHDIR:
		set_cwd(t, get_fd(t, (int32_t)a[0]));
		break;
	case A_OPENAT:
		set_fd(t, ret, joined(f, t, a[0], p->path), a[2] & O_CLOEXEC);
		break;
	case A_OPENAT2:
		set_fd(t, ret, joined(f, t, a[0], p->path), false);
		break;
	case A_CREAT:
		set_fd(t, ret, joined(f, t, AT_FDCWD, p->path), false);
		break;
	case A_DUP:
		set_fd(t, ret, get_fd(t, (int32_t)a[0]), false);
		break;
	case A_DUP2:
	case A_DUP3:
		if ((int32_t)a[0] != (int32_t)a[1])
			set_fd(t, (int32_t)a[1], get_fd(t, (int32_t)a[0]),
			       act == A_DUP3 && (a[2] & O_CLOEXEC));
		break;
	case A_FCNTL:
		if (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC)
			set_fd(t, ret, get_fd(t, (int32_t)a[0]),
			       a[1] == F_DUPFD_CLOEXEC);
		else if (a[1] == F_SETFD && slot(t, (int32_t)a[0]))
			slot(t, (int32_t)a[0])->cloexec = a[2] & FD_CLOEXEC;
		break;
	case A_CLOSE_RANGE: {
		uint64_t last = a[1] < (uint64_t)t->n ? a[1] : t->n - 1;

		for (uint64_t fd = a[0]; t->n && fd <= last; fd++)
			if (a[2] & CLOSE_RANGE_CLOEXEC)
				t->v[fd].cloexec = true;
			else
				close_fd(t, fd);
		break;
	}
	case A_SOCKET:
		set_fd(t, ret, sock_name(a[0], a[1], a[2]), a[1] & SOCK_CLOEXEC);
		break;
	case A_ACCEPT:
	case A_ACCEPT4:
		/* The listening socket's name, with the peer's address. */
		set_fd(t, ret, p->addr ? sock_with(f, get_fd(t, (int32_t)a[0]),
						   p->addr, true) :
					 get_fd(t, (int32_t)a[0]),
		       act == A_ACCEPT4 && (a[3] & SOCK_CLOEXEC));
		break;
	case A_EVENTFD:
	case A_EVENTFD2:
		set_fd(t, ret, "anon_inode:[eventfd]",
		       act == A_EVENTFD2 && (a[1] & EFD_CLOEXEC));
		break;
	case A_EPOLL:
	case A_EPOLL1:
		set_fd(t, ret, "anon_inode:[eventpoll]",
		       act == A_EPOLL1 && (a[0] & EPOLL_CLOEXEC));
		break;
	case A_TIMERFD:
		set_fd(t, ret, "anon_inode:[timerfd]", a[1] & TFD_CLOEXEC);
		break;
	case A_SIGNALFD:
	case A_SIGNALFD4:
		/* signalfd on an existing fd returns that fd. */
		set_fd(t, ret, "anon_inode:[signalfd]",
		       act == A_SIGNALFD4 && (a[3] & SFD_CLOEXEC));
		break;
	case A_INOTIFY:
	case A_INOTIFY1:
		set_fd(t, ret, "anon_inode:inotify",
		       act == A_INOTIFY1 && (a[0] & IN_CLOEXEC));
		break;
	case A_PIDFD:
		set_fd(t, ret, "anon_inode:[pidfd]", true);
		break;
	case A_PERF:
		set_fd(t, ret, "anon_inode:[perf_event]", a[4] & 8);
		break;
	case A_IOURING:
		set_fd(t, ret, "anon_inode:[io_uring]", true);
		break;
	case A_MEMFD:
		/* As /proc/PID/fd shows it: "/memfd:NAME (deleted)". */
		if (p->path) {
			char *name = sd_malloc(strlen(p->path) + 20);

			sprintf(name, "/memfd:%s (deleted)", p->path);
			set_fd(t, ret, name, a[1] & MFD_CLOEXEC);
			free(name);
		} else {
			set_fd(t, ret, "memfd", a[1] & MFD_CLOEXEC);
		}
		break;
	case A_PIPE:
	case A_PIPE2:
		if (p->have_pair)
			for (int i = 0; i < 2; i++)
				set_fd(t, p->pair[i], "pipe:[]",
				       act == A_PIPE2 && (a[1] & O_CLOEXEC));
		break;
	case A_SOCKETPAIR:
		if (p->have_pair)
			for (int i = 0; i < 2; i++)
				set_fd(t, p->pair[i],
				       sock_name(a[0], a[1], a[2]),
				       a[1] & SOCK_CLOEXEC);
		break;
	case A_CONNECT:
	case A_BIND:
	case A_GETSOCKNAME: {
		struct fdent *e = slot(t, (int32_t)a[0]);
		const char *n;

		if (!e || !e->name || !p->addr)
			break;
		n = sock_with(f, e->name, p->addr, act == A_CONNECT);
		{
			char *copy = sd_strdup(n);

			set_fd(t, (int32_t)a[0], copy, e->cloexec);
			free(copy);
		}
		break;
	}
	default:
		break;
	}
out:
	free(p->path);
	p->path = NULL;
	free(p->addr);
	p->addr = NULL;
	p->have_pair = false;
}

void kd_fd_event(struct kdump *k, const struct kev *e)
{
	struct fds *f = k->fds;
	const struct ktr_rec *r = e->r;

	switch (r->type) {
	case KTR_CALL: {
		const struct ktr_call *c = (const void *)r;
		struct pend *p = pend(f, r->tid, true);

		enum sc_abi abi = kd_abi(k, r);

		free(p->path);
		p->path = NULL;
		free(p->addr);
		p->addr = NULL;
		p->have_pair = false;
		p->abi = abi;
		p->nr = c->nr < f->nact[abi] && f->act[abi][c->nr] ? c->nr : 0;
		memcpy(p->args, c->args, sizeof(p->args));
		break;
	}
	case KTR_FD: {
		/* Held at the attach: named as /proc named it then (AT_FDCWD:
		 * the working directory). */
		const struct ktr_fd *d = (const void *)r;
		struct fdtab *t = tab(f, r->pid, true);

		sbuf_reset(&f->tmp);
		kd_put_escaped(&f->tmp, (const unsigned char *)d->path,
			       strnlen(d->path, r->len - sizeof(*d)));
		if (d->fd == AT_FDCWD)
			set_cwd(t, f->tmp.buf ? f->tmp.buf : "");
		else
			set_fd(t, d->fd, f->tmp.buf ? f->tmp.buf : "",
			       d->flags & O_CLOEXEC);
		break;
	}
	case KTR_NAMI: {
		const struct ktr_nami *n = (const void *)r;
		struct pend *p = pend(f, r->tid, false);

		if (!p || !p->nr || p->path)
			break;
		sbuf_reset(&f->tmp);
		kd_put_escaped(&f->tmp, (const unsigned char *)n->path,
			       strnlen(n->path, r->len - sizeof(*n)));
		p->path = sd_strdup(f->tmp.buf ? f->tmp.buf : "");
		break;
	}
	case KTR_STRU: {
		const struct ktr_stru *st = (const void *)r;
		struct pend *p = pend(f, r->tid, false);

		if (!p || !p->nr)
			break;
		if (st->kind == KTR_STRU_FDPAIR && st->data_len >= 8) {
			memcpy(p->pair, st->data, sizeof(p->pair));
			p->have_pair = true;
		} else if (st->kind == KTR_STRU_SOCKADDR && !p->addr) {
			sbuf_reset(&f->tmp);
			if (kd_stru_sockaddr_name(&f->tmp, st))
				p->addr = sd_strdup(f->tmp.buf);
		}
		break;
	}
	case KTR_RET:
		on_ret(f, r, ((const struct ktr_ret *)r)->ret);
		break;
	case KTR_FORK: {
		const struct ktr_fork *fk = (const void *)r;
		struct fdtab *parent, *child;

		if (fk->flags & KTR_FORK_THREAD || fk->child_pid == r->pid)
			break;
		child = tab(f, fk->child_pid, true);
		parent = tab(f, r->pid, false);	/* after: it may move */
		tab_clear(child);
		if (!parent)
			break;
		for (size_t i = 0; i < parent->n; i++)
			if (parent->v[i].name)
				set_fd(child, i, parent->v[i].name,
				       parent->v[i].cloexec);
		set_cwd(child, parent->cwd);
		break;
	}
	case KTR_EXEC: {
		struct fdtab *t = tab(f, r->pid, false);

		for (size_t i = 0; t && i < t->n; i++)
			if (t->v[i].cloexec)
				close_fd(t, i);
		break;
	}
	case KTR_EXIT: {
		const struct ktr_exit *x = (const void *)r;
		struct pend *p = pend(f, r->tid, false);
		struct fdtab *t;

		if (p) {
			free(p->path);
			p->path = NULL;
			free(p->addr);
			p->addr = NULL;
			p->nr = 0;
		}
		if (x->group_dead && (t = tab(f, r->pid, false)))
			tab_clear(t);
		break;
	}
	default:
		break;
	}
}

bool kd_fd_returns(struct kdump *k, enum sc_abi abi, uint32_t nr)
{
	struct fds *f = k->fds;
	int act;

	if (!f || nr >= f->nact[abi])
		return false;
	act = f->act[abi][nr];
	return act != A_NONE && act != A_CLOSE && act != A_CLOSE_RANGE &&
	       act != A_DUP2 && act != A_DUP3 && act != A_FCNTL &&
	       act != A_PIPE && act != A_PIPE2 && act != A_SOCKETPAIR &&
	       act != A_CONNECT && act != A_BIND && act != A_GETSOCKNAME &&
	       act != A_CHDIR && act != A_FCHDIR;
}

bool kd_fd_makes_pair(struct kdump *k, enum sc_abi abi, uint32_t nr)
{
	struct fds *f = k->fds;
	int act;

	if (!f || nr >= f->nact[abi])
		return false;
	act = f->act[abi][nr];
	return act == A_PIPE || act == A_PIPE2 || act == A_SOCKETPAIR;
}

const char *kd_fd_name(struct kdump *k, uint32_t pid, int64_t fd)
{
	struct fds *f = k->fds;

	return f ? get_fd(tab(f, pid, false), fd) : NULL;
}

void kd_fd_init(struct kdump *k)
{
	struct fds *f = sd_calloc(1, sizeof(*f));

	for (int abi = 0; abi < SC_NABIS; abi++) {
		f->nact[abi] = sc_limit(abi);
		f->act[abi] = sd_calloc(f->nact[abi] ? f->nact[abi] : 1, 1);
		for (size_t i = 0; i < ARRAY_SIZE(acts); i++) {
			long nr = sc_number(abi, acts[i].call);

			if (nr >= 0 && nr < f->nact[abi])
				f->act[abi][nr] = acts[i].act;
		}
	}
	sbuf_init(&f->tmp);
	k->fds = f;
}

void kd_fd_free(struct kdump *k)
{
	struct fds *f = k->fds;

	if (!f)
		return;
	for (size_t i = 0; i < f->tcap; i++)
		tab_clear(&f->tabs[i]);
	for (size_t i = 0; i < f->pcap; i++) {
		free(f->pend[i].path);
		free(f->pend[i].addr);
	}
	free(f->tabs);
	free(f->pend);
	for (int abi = 0; abi < SC_NABIS; abi++)
		free(f->act[abi]);
	sbuf_free(&f->tmp);
	free(f);
	k->fds = NULL;
}

const char *kd_fd_ret_name(struct kdump *k, const struct kev *e)
{
	const struct ktr_ret *r = (const void *)e->r;
	enum sc_abi abi = kd_abi(k, e->r);
	struct fds *f = k->fds;
	int act;

	if (!f || r->ret < 0 || r->nr >= f->nact[abi])
		return NULL;
	if (kd_fd_returns(k, abi, r->nr))
		return kd_fd_name(k, r->h.pid, r->ret);
	act = f->act[abi][r->nr];
	if (e->dur < 0)		/* the call's arguments are not known */
		return NULL;
	if (act == A_DUP2 || act == A_DUP3 ||
	    (act == A_FCNTL && ((int)e->cargs[1] == F_DUPFD ||
				(int)e->cargs[1] == F_DUPFD_CLOEXEC)))
		return kd_fd_name(k, r->h.pid, (int32_t)e->cargs[0]);
	return NULL;
}
