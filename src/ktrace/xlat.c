// SPDX-License-Identifier: GPL-2.0-only
/* xlat — kdump's decoding tables and the printer that walks them. */
#include "xlat.h"
#include "systab.h"

#include <stdio.h>
#include <string.h>

/* ---- errno ---- */

static const struct xlat_errno restart_errnos[] = {
	/* The kernel's own codes: a syscall interrupted by a signal returns
	 * them to the exit tracepoint, before the restart is decided. */
	{ 512, "ERESTARTSYS", "To be restarted if SA_RESTART is set" },
	{ 513, "ERESTARTNOINTR", "To be restarted" },
	{ 514, "ERESTARTNOHAND", "To be restarted if no handler" },
	{ 515, "ENOIOCTLCMD", "No ioctl command" },
	{ 516, "ERESTART_RESTARTBLOCK", "Interrupted by signal" },
	{ 517, "EPROBE_DEFER", "Driver requests probe retry" },
};

static const struct xlat_errno *find_errno(int nr)
{
	for (unsigned i = 0; i < xlat_nerrnos; i++)
		if (xlat_errnos[i].nr == nr)
			return &xlat_errnos[i];
	for (unsigned i = 0; i < ARRAY_SIZE(restart_errnos); i++)
		if (restart_errnos[i].nr == nr)
			return &restart_errnos[i];
	return NULL;
}

const char *xlat_errno_name(int nr)
{
	const struct xlat_errno *e = find_errno(nr);

	return e ? e->name : NULL;
}

const char *xlat_errno_msg(int nr)
{
	const struct xlat_errno *e = find_errno(nr);

	return e ? e->msg : NULL;
}

/* ---- the generated sets ---- */

static const struct xlat_set_def *set_def(enum sc_abi abi, enum xlat_set set)
{
	if (set >= XLAT_NSETS)
		return NULL;
	/* x32's calls are x86_64's. */
	return abi == SC_AARCH64 ? &xlat_sets_aarch64[set] :
	       abi == SC_I386 ? &xlat_sets_i386[set] : &xlat_sets_x86_64[set];
}

const char *xlat_value(enum sc_abi abi, enum xlat_set set, uint64_t v)
{
	const struct xlat_set_def *d = set_def(abi, set);

	for (const struct xlat_flag *t = d ? d->rows : NULL; t && t->name; t++)
		if (t->val == v)
			return t->name;
	return NULL;
}

/* ---- signals: x86_64 and aarch64 share the numbers ---- */

#define SIGRTMIN_K 32
#define NSIG_K 64

const char *xlat_signal_name(enum sc_abi abi, int sig, char *buf, unsigned len)
{
	const char *s = sig > 0 ? xlat_value(abi, XLAT_SIGNAL, sig) : NULL;

	if (s)
		return s;
	if (sig >= SIGRTMIN_K && sig <= NSIG_K) {
		if (sig == SIGRTMIN_K)
			snprintf(buf, len, "SIGRTMIN");
		else
			snprintf(buf, len, "SIGRT%d", sig - SIGRTMIN_K);
		return buf;
	}
	return NULL;
}

/* printf's %#llx and %lld without printf (a line has several: the
 * decoder's hottest formatting). */
static void put_hex(struct sbuf *sb, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	char b[20], *p = b + sizeof(b);

	if (!v) {
		sbuf_putc(sb, '0');
		return;
	}
	/* A byte (two digits) a step, then the odd digit. */
	while (v > 15) {
		p -= 2;
		p[0] = hx[(v >> 4) & 15];
		p[1] = hx[v & 15];
		v >>= 8;
	}
	if (v)
		*--p = hx[v];
	*--p = 'x';
	*--p = '0';
	sbuf_put(sb, p, (size_t)(b + sizeof(b) - p));
}

static void put_udec(struct sbuf *sb, uint64_t v, bool neg)
{
	char b[24], *p = sd_u64_dec(b + sizeof(b), v);

	if (neg)
		*--p = '-';
	sbuf_put(sb, p, (size_t)(b + sizeof(b) - p));
}

static void put_dec(struct sbuf *sb, int64_t v)
{
	put_udec(sb, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

/* ---- flag sets ---- */

void xlat_flags(struct sbuf *sb, enum sc_abi abi, enum xlat_set set, uint64_t v)
{
	const struct xlat_set_def *d = set_def(abi, set);
	const struct xlat_flag *t;
	bool first = true;

	if (!d) {
		put_hex(sb, v);
		return;
	}
	if (v == 0 && !d->mask) {
		const char *z = xlat_value(abi, set, 0);

		sbuf_puts(sb, z ? z : "0");
		return;
	}
	/* The value field (open's access mode: O_RDONLY is 0). */
	if (d->mask) {
		for (t = d->rows; t->name; t++) {
			if ((t->val & ~d->mask) || t->val != (v & d->mask))
				continue;
			sbuf_puts(sb, t->name);
			first = false;
			v &= ~d->mask;
			break;
		}
	}
	/* clone's low byte is the exit signal. */
	if (set == XLAT_CLONE && (v & 0xff)) {
		char b[32];
		const char *s = xlat_signal_name(abi, v & 0xff, b, sizeof(b));

		if (s)
			sbuf_puts(sb, s);
		else
			sbuf_printf(sb, "%#llx", (unsigned long long)(v & 0xff));
		v &= ~0xffull;
		first = false;
	}
	for (t = d->rows; t->name; t++) {
		if (!t->val || (d->mask && !(t->val & ~d->mask)) ||
		    (v & t->val) != t->val)
			continue;
		if (!first)
			sbuf_putc(sb, '|');
		sbuf_puts(sb, t->name);
		first = false;
		v &= ~t->val;
	}
	if (v || first)
		sbuf_printf(sb, "%s%#llx", first ? "" : "|", (unsigned long long)v);
}

const char *xlat_sysname(enum sc_abi abi, uint32_t nr, char *buf, unsigned len)
{
	const char *n = sc_name(abi, nr);

	if (n)
		return n;
	snprintf(buf, len, "#%u", nr);
	return buf;
}

static void put_num(struct sbuf *sb, uint64_t v, const struct xlat_opts *o)
{
	if (o->decimal || o->strace)
		put_dec(sb, (int64_t)v);
	else
		put_hex(sb, v);
}

static void put_flags(struct sbuf *sb, enum sc_abi abi, enum xlat_set set,
		      uint64_t v, const struct xlat_opts *o)
{
	size_t mark;

	if (o->strace && !o->raw) {
		xlat_flags(sb, abi, set, v);
		return;
	}
	put_num(sb, v, o);
	if (o->raw)
		return;
	mark = sb->len;
	sbuf_putc(sb, '<');
	xlat_flags(sb, abi, set, v);
	/* An empty mask is just 0, not 0<0>. */
	if (sb->len - mark == 2 && sb->buf[mark + 1] == '0') {
		sb->len = mark;
		sb->buf[mark] = '\0';
		return;
	}
	sbuf_putc(sb, '>');
}

void xlat_fd_name(struct sbuf *sb, const char *name, bool strace)
{
	static const char del[] = " (deleted)";
	size_t n = strlen(name), d = sizeof(del) - 1;

	/* strace -y: </memfd:x>(deleted), the mark outside the brackets. */
	if (strace && n > d && !strcmp(name + n - d, del))
		sbuf_printf(sb, "<%.*s>(deleted)", (int)(n - d), name);
	else
		sbuf_printf(sb, "<%s>", name);
}

/* An fd: an int (the upper half of the register is not its), negative
 * ones in decimal (-1, not 0xffffffff); with -y, what it refers to. */
static void put_fd(struct sbuf *sb, int32_t fd, const struct xlat_opts *o)
{
	const char *name;

	if (fd < 0)
		put_dec(sb, fd);
	else
		put_num(sb, (uint64_t)fd, o);
	if (o->fd_name && (name = o->fd_name(o->fd_ctx, o->pid, fd)))
		xlat_fd_name(sb, name, o->strace);
}

/* A value's name from a set of values, or the number. */
static void put_value(struct sbuf *sb, enum sc_abi abi, enum xlat_set set,
		      uint64_t v, const struct xlat_opts *o)
{
	const char *s = o->raw ? NULL : xlat_value(abi, set, v);

	/* An int argument sign-extended in its register (futex's val3 -1,
	 * FUTEX_BITSET_MATCH_ANY): the call reads the low half. */
	if (!s && !o->raw && v >> 32 == 0xffffffffu)
		s = xlat_value(abi, set, (uint32_t)v);
	if (s)
		sbuf_puts(sb, s);
	else
		put_num(sb, v, o);
}

uint64_t xlat_named(enum sc_abi abi, enum xlat_set set, const char *name)
{
	const struct xlat_set_def *d = set_def(abi, set);

	for (const struct xlat_flag *t = d ? d->rows : NULL; t && t->name; t++)
		if (!strcmp(t->name, name))
			return t->val;
	return 0;
}

/* Flags of a set, without the number before them ("SOCK_CLOEXEC"). */
static void put_bare_flags(struct sbuf *sb, enum sc_abi abi,
			   enum xlat_set set, uint64_t v)
{
	xlat_flags(sb, abi, set, v);
}

/* socket()'s type: the type's name, then its flags. */
static void put_socktype(struct sbuf *sb, enum sc_abi abi, uint64_t v,
			 const struct xlat_opts *o)
{
	uint64_t fl = xlat_named(abi, XLAT_SOCKFLAGS, "SOCK_CLOEXEC") |
		      xlat_named(abi, XLAT_SOCKFLAGS, "SOCK_NONBLOCK");

	put_value(sb, abi, XLAT_SOCKTYPE, v & ~fl, o);
	if (v & fl) {
		sbuf_putc(sb, '|');
		put_bare_flags(sb, abi, XLAT_SOCKFLAGS, v & fl);
	}
}

/* socket()'s protocol, by its domain. */
static void put_sockproto(struct sbuf *sb, enum sc_abi abi, uint64_t domain,
			  uint64_t v, const struct xlat_opts *o)
{
	if (domain == xlat_named(abi, XLAT_AF, "AF_INET") ||
	    domain == xlat_named(abi, XLAT_AF, "AF_INET6"))
		put_value(sb, abi, XLAT_IPPROTO, v, o);
	else if (domain == xlat_named(abi, XLAT_AF, "AF_NETLINK"))
		put_value(sb, abi, XLAT_NETLINK, v, o);
	else
		put_num(sb, v, o);
}

/* A socket option's name, by its level. */
static void put_sockopt(struct sbuf *sb, enum sc_abi abi, uint64_t level,
			uint64_t v, const struct xlat_opts *o)
{
	level = (uint32_t)level;
	if (level == xlat_named(abi, XLAT_SOL, "SOL_SOCKET"))
		put_value(sb, abi, XLAT_SO, v, o);
	else if (level == xlat_named(abi, XLAT_SOL, "SOL_TCP"))
		put_value(sb, abi, XLAT_TCPOPT, v, o);
	else if (level == xlat_named(abi, XLAT_SOL, "SOL_IP"))
		put_value(sb, abi, XLAT_IPOPT, v, o);
	else if (level == xlat_named(abi, XLAT_SOL, "SOL_IPV6"))
		put_value(sb, abi, XLAT_IPV6OPT, v, o);
	else
		put_num(sb, v, o);
}

/* futex's op: the command (with _PRIVATE), then FUTEX_CLOCK_REALTIME. */
static void put_futex_op(struct sbuf *sb, enum sc_abi abi, uint64_t v,
			 const struct xlat_opts *o)
{
	uint64_t clk = xlat_named(abi, XLAT_FUTEXCLOCK, "FUTEX_CLOCK_REALTIME");

	put_value(sb, abi, XLAT_FUTEXOP, v & ~clk, o);
	if (v & clk) {
		sbuf_putc(sb, '|');
		put_bare_flags(sb, abi, XLAT_FUTEXCLOCK, v & clk);
	}
}

/* What fcntl's third argument is, by its command. */
static void put_fcntl_arg(struct sbuf *sb, enum sc_abi abi, uint64_t cmd,
			  uint64_t v, const struct xlat_opts *o)
{
	const char *c = xlat_value(abi, XLAT_FCNTL, cmd);
	char b[32];

	if (!c) {
		put_num(sb, v, o);
	} else if (!strcmp(c, "F_SETFD")) {
		put_flags(sb, abi, XLAT_FDFLAGS, v, o);
	} else if (!strcmp(c, "F_SETFL")) {
		put_flags(sb, abi, XLAT_OPEN, v, o);
	} else if (!strcmp(c, "F_SETSIG")) {
		const char *s = v ? xlat_signal_name(abi, (int)v, b, sizeof(b))
				  : NULL;

		if (s)
			sbuf_puts(sb, s);
		else
			put_num(sb, v, o);
	} else if (!strncmp(c, "F_SETLK", 7) || !strcmp(c, "F_GETLK") ||
		   !strncmp(c, "F_OFD_", 6) || !strcmp(c, "F_GETOWN_EX") ||
		   !strcmp(c, "F_SETOWN_EX")) {
		put_hex(sb, v);
	} else {
		put_num(sb, v, o);
	}
}

/* Which arguments strace prints (a bit per argument) of a call whose
 * arguments depend on its operation, as strace's decoders pick them:
 * futex's by its command (FUTEX_WAKE uaddr, op, val; FUTEX_WAIT_BITSET
 * leaves out uaddr2 but prints val3...), prctl options that take nothing,
 * fcntl commands that take nothing (F_GETFL). All six for the others. */
static unsigned strace_args(enum sc_abi abi, const char *name,
			    const uint64_t args[6])
{
	static const char *const bare_prctl[] = {
		"PR_GET_DUMPABLE", "PR_GET_KEEPCAPS", "PR_GET_SECCOMP",
		"PR_GET_TIMERSLACK", "PR_GET_TIMING",
	};
	static const char *const bare_fcntl[] = {
		"F_GETFD", "F_GETFL", "F_GETOWN", "F_GETSIG", "F_GETLEASE",
		"F_GET_SEALS", "F_GETPIPE_SZ",
	};
	static const struct { const char *cmd; unsigned args; } futex[] = {
		{ "FUTEX_WAIT", 0x0f }, { "FUTEX_LOCK_PI", 0x0b },
		{ "FUTEX_LOCK_PI2", 0x0b }, { "FUTEX_WAIT_BITSET", 0x2f },
		{ "FUTEX_WAKE_BITSET", 0x27 }, { "FUTEX_REQUEUE", 0x1f },
		{ "FUTEX_WAIT_REQUEUE_PI", 0x1f }, { "FUTEX_FD", 0x07 },
		{ "FUTEX_WAKE", 0x07 }, { "FUTEX_UNLOCK_PI", 0x03 },
		{ "FUTEX_TRYLOCK_PI", 0x03 },
	};
	const char *op;
	char cmd[32];
	size_t n;

	if (!strcmp(name, "prctl")) {
		op = xlat_value(abi, XLAT_PRCTL, args[0]);
		for (size_t i = 0; op && i < sizeof(bare_prctl) /
						sizeof(*bare_prctl); i++)
			if (!strcmp(op, bare_prctl[i]))
				return 0x01;
		return 0x3f;
	}
	if (!strcmp(name, "fcntl") || !strcmp(name, "fcntl64")) {
		op = xlat_value(abi, XLAT_FCNTL, (uint32_t)args[1]);
		for (size_t i = 0; op && i < sizeof(bare_fcntl) /
						sizeof(*bare_fcntl); i++)
			if (!strcmp(op, bare_fcntl[i]))
				return 0x03;
		return 0x3f;
	}
	if (strcmp(name, "futex") && strcmp(name, "futex_time64"))
		return 0x3f;
	op = xlat_value(abi, XLAT_FUTEXOP, args[1] &
			~xlat_named(abi, XLAT_FUTEXCLOCK, "FUTEX_CLOCK_REALTIME"));
	if (!op)
		return 0x3f;
	n = strlen(op);
	if (n > 8 && !strcmp(op + n - 8, "_PRIVATE"))
		n -= 8;
	if (n >= sizeof(cmd))
		return 0x3f;
	memcpy(cmd, op, n);
	cmd[n] = 0;
	for (size_t i = 0; i < sizeof(futex) / sizeof(*futex); i++)
		if (!strcmp(cmd, futex[i].cmd))
			return futex[i].args;
	return 0x3f;
}

void xlat_call(struct sbuf *sb, enum sc_abi abi, uint32_t nr,
	       const uint64_t args[6], const struct xlat_opts *o)
{
	static const uint16_t unknown[KTRACE_ARGS_MAX] = {
		KA_NUM, KA_NUM, KA_NUM, KA_NUM, KA_NUM, KA_NUM,
	};
	char nb[32];
	const char *name = xlat_sysname(abi, nr, nb, sizeof(nb));
	const struct ktrace_syscall *sc = ktrace_syscall_nr(abi, nr);
	const uint16_t *kinds = sc ? sc->args : unknown;
	uint64_t open_flags = 0;

	unsigned shown = o->strace && !o->raw ? strace_args(abi, name, args) :
						0x3f;
	bool first = true;

	sbuf_puts(sb, name);
	sbuf_putc(sb, '(');
	for (int i = 0; i < KTRACE_ARGS_MAX && kinds[i] != KA_END; i++) {
		uint64_t v = args[i];
		char b[32];
		const char *s;

		if (kinds[i] == KA_SET(XLAT_OPEN))
			open_flags = v;
		if (kinds[i] == KA_CREATE_MODE &&
		    !(open_flags & (xlat_named(abi, XLAT_OPEN, "O_CREAT") |
				    xlat_named(abi, XLAT_OPEN, "__O_TMPFILE"))))
			break;
		if (!(shown & 1u << i))
			continue;
		if (!first)
			sbuf_puts(sb, o->strace ? ", " : ",");
		first = false;
		if (o->arg_hook && o->arg_hook(o->hook_ctx, sb, i, kinds[i], v))
			continue;
		switch (o->raw ? KA_NUM : KA_KIND(kinds[i])) {
		case KA_PTR: case KA_PATH: case KA_BUF: case KA_IOV:
		case KA_MSGHDR: case KA_STRU_IN: case KA_STRU_OUT:
			if (o->strace && !v)
				sbuf_puts(sb, "NULL");
			else
				put_hex(sb, v);
			break;
		case KA_INT:
			put_dec(sb, (int)v);
			break;
		case KA_UINT:
			put_udec(sb, v, false);
			break;
		case KA_DIRFD:
			/* An int: the upper half of the register is not its. */
			s = xlat_value(abi, XLAT_DIRFD, (int64_t)(int)v);
			if (s) {
				const char *n;

				sbuf_puts(sb, s);
				/* -y: AT_FDCWD</home/me>, as strace -y. */
				if (o->fd_name && (n = o->fd_name(o->fd_ctx,
						o->pid, (int32_t)v)))
					xlat_fd_name(sb, n, o->strace);
			} else {
				put_fd(sb, (int32_t)v, o);
			}
			break;
		case KA_FD:
			put_fd(sb, (int32_t)v, o);
			break;
		case KA_PID:
			if ((int32_t)v < 0)
				put_dec(sb, (int32_t)v);
			else
				put_num(sb, (uint32_t)v, o);
			break;
		case KA_SOCKTYPE:
			put_socktype(sb, abi, v, o);
			break;
		case KA_SOCKPROTO:
			put_sockproto(sb, abi, args[0], v, o);
			break;
		case KA_SOCKOPT:
			put_sockopt(sb, abi, i ? args[i - 1] : 0, v, o);
			break;
		case KA_FUTEX_OP:
			put_futex_op(sb, abi, v, o);
			break;
		case KA_FCNTL_ARG:
			put_fcntl_arg(sb, abi, i ? args[i - 1] : 0, v, o);
			break;
		case KA_CREATE_MODE:
		case KA_MODE:
			sbuf_printf(sb, "%#llo", (unsigned long long)v);
			break;
		case KA_CLONE_FLAGS:
			put_flags(sb, abi, XLAT_CLONE, v, o);
			break;
		case KA_U64_LO:
		case KA_U64_HI:
			/* One number in two registers: printed once. */
			if (i + 1 < KTRACE_ARGS_MAX) {
				uint64_t lo = kinds[i] == KA_U64_LO ? v : args[i + 1];
				uint64_t hi = kinds[i] == KA_U64_LO ? args[i + 1] : v;

				v = (uint32_t)lo | (uint64_t)(uint32_t)hi << 32;
				i++;
			}
			put_num(sb, v, o);
			break;
		case KA_SIGNAL:
			s = xlat_signal_name(abi, (int)v, b, sizeof(b));
			if (s)
				sbuf_puts(sb, s);
			else
				put_num(sb, v, o);
			break;
		case KA_SETVAL:
			if (set_def(abi, KA_SET_OF(kinds[i]))->kind == XLAT_VALUES)
				put_value(sb, abi, KA_SET_OF(kinds[i]), v, o);
			else
				put_flags(sb, abi, KA_SET_OF(kinds[i]), v, o);
			break;
		default:	/* KA_NUM */
			put_num(sb, v, o);
		}
	}
	sbuf_putc(sb, ')');
}

void xlat_ret(struct sbuf *sb, enum sc_abi abi, uint32_t nr, int64_t ret,
	      const struct xlat_opts *o)
{
	xlat_ret_args(sb, abi, nr, ret, NULL, o);
}

/* fcntl's value by its command: F_GETFD's FD_CLOEXEC, F_GETFL's flags. */
static bool ret_fcntl(struct sbuf *sb, enum sc_abi abi, int64_t ret,
		      const uint64_t *args, const struct xlat_opts *o)
{
	const char *c = xlat_value(abi, XLAT_FCNTL, args[1]);

	if (!c || o->raw)
		return false;
	if (!strcmp(c, "F_GETFD")) {
		put_flags(sb, abi, XLAT_FDFLAGS, ret, o);
		return true;
	}
	if (!strcmp(c, "F_GETFL")) {
		put_flags(sb, abi, XLAT_OPEN, ret, o);
		return true;
	}
	return false;
}

/* prctl's value by its option: PR_GET_DUMPABLE's SUID_DUMP_USER. */
static bool ret_prctl(struct sbuf *sb, enum sc_abi abi, int64_t ret,
		      const uint64_t *args, const struct xlat_opts *o)
{
	const char *c = xlat_value(abi, XLAT_PRCTL, args[0]), *n;

	if (!c || o->raw || strcmp(c, "PR_GET_DUMPABLE") ||
	    !(n = xlat_value(abi, XLAT_PRDUMP, (uint64_t)ret)))
		return false;
	sbuf_printf(sb, "%lld<%s>", (long long)ret, n);
	return true;
}

void xlat_ret_args(struct sbuf *sb, enum sc_abi abi, uint32_t nr, int64_t ret,
		   const uint64_t *args, const struct xlat_opts *o)
{
	const struct ktrace_syscall *sc = ktrace_syscall_nr(abi, nr);
	char nb[32];

	sbuf_puts(sb, xlat_sysname(abi, nr, nb, sizeof(nb)));
	sbuf_putc(sb, ' ');
	/* The kernel's restart codes never reach the program: a signal
	 * came, and the call is restarted or fails with EINTR (the
	 * rt_sigreturn that ends the handler returns which). */
	if (ret <= -512 && ret >= -516 && ret != -515 && !o->raw) {
		sbuf_printf(sb, "RESTART %s (%s)", xlat_errno_name(-ret),
			    xlat_errno_msg(-ret));
		return;
	}
	if (ret < 0 && ret >= -4095) {
		const char *name = xlat_errno_name(-ret);
		const char *msg = xlat_errno_msg(-ret);

		sbuf_printf(sb, "-1 errno %lld", (long long)-ret);
		if (!o->raw && name)
			sbuf_printf(sb, " %s", msg && *msg ? msg : name);
		return;
	}
	if (args && sc && sc->args[1] == KA_SET(XLAT_FCNTL) &&
	    ret_fcntl(sb, abi, ret, args, o))
		return;
	if (args && sc && sc->args[0] == KA_SET(XLAT_PRCTL) &&
	    ret_prctl(sb, abi, ret, args, o))
		return;
	put_dec(sb, ret);
	if (!o->decimal && (ret >= 0x10000 || ret < 0))
		sbuf_printf(sb, "/%#llx", (unsigned long long)ret);
}
