// SPDX-License-Identifier: GPL-2.0-only
/* kdump_stru — the bytes of a STRU record (a structure a call read or
 * wrote, format.h) decoded: as FreeBSD kdump prints a STRU line
 * ("struct sockaddr { AF_INET, 127.0.0.1:8080 }") or inline as strace
 * prints the argument ("{sa_family=AF_INET, sin_port=htons(8080), ...}").
 * Layouts that differ between ABIs come from kstructs_ARCH.c (generated
 * from the UAPI headers); structures of longs are read by the ABI's word
 * size; the rest are the same on every ABI. Constants are named through
 * the generated xlat sets. Bytes past what was recorded are never read. */
#include "kdump_stru.h"
#include "kdump.h"
#include "kstructs.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

struct rd {
	const unsigned char *p;
	uint32_t n;
};

/* An unsigned field, or 0 when it lies past the recorded bytes. */
static uint64_t get(const struct rd *r, uint32_t off, uint32_t size)
{
	uint64_t v = 0;

	if (!size || size > 8 || off + size > r->n)
		return 0;
	for (uint32_t i = size; i-- > 0;)
		v = v << 8 | r->p[off + i];
	return v;
}

static int64_t sget(const struct rd *r, uint32_t off, uint32_t size)
{
	uint64_t v = get(r, off, size);

	if (size && size < 8 && v >> (size * 8 - 1))
		v |= ~0ull << (size * 8);
	return (int64_t)v;
}

static uint64_t fget(const struct rd *r, struct kd_field f)
{
	return get(r, f.off, f.size);
}

static bool has(const struct rd *r, struct kd_field f)
{
	return f.size && f.off + f.size <= r->n;
}

static unsigned word(enum sc_abi abi)
{
	return abi == SC_I386 ? 4 : 8;
}

static void put_quoted(struct sbuf *sb, const unsigned char *p, size_t n)
{
	sbuf_putc(sb, '"');
	kd_put_escaped(sb, p, n);
	sbuf_putc(sb, '"');
}

/* ---- sockaddr ---- */

static const char *family(uint64_t fam)
{
	const char *s = xlat_value(SC_X86_64, XLAT_AF, fam);

	return s ? s : "AF_?";
}

/* An address as "127.0.0.1:8080", "[::1]:8080", "/path" or "@name". */
static bool sockaddr_name(struct sbuf *sb, const struct rd *rp)
{
	const struct rd r = *rp;
	uint64_t fam = get(&r, 0, 2);
	char a[INET6_ADDRSTRLEN];

	if (r.n < 2)
		return false;
	if (fam == AF_INET && r.n >= 8) {
		inet_ntop(AF_INET, r.p + 4, a, sizeof(a));
		sbuf_printf(sb, "%s:%u", a, ntohs((uint16_t)get(&r, 2, 2)));
		return true;
	}
	if (fam == AF_INET6 && r.n >= 24) {
		inet_ntop(AF_INET6, r.p + 8, a, sizeof(a));
		sbuf_printf(sb, "[%s]:%u", a, ntohs((uint16_t)get(&r, 2, 2)));
		return true;
	}
	if (fam == AF_UNIX) {
		size_t n = r.n - 2;
		const unsigned char *p = r.p + 2;

		if (n && p[0] == '\0') {
			sbuf_putc(sb, '@');
			kd_put_escaped(sb, p + 1, n - 1);
		} else {
			kd_put_escaped(sb, p, strnlen((const char *)p, n));
		}
		return true;
	}
	return false;
}

bool kd_stru_sockaddr_name(struct sbuf *sb, const struct ktr_stru *st)
{
	struct rd r = { (const unsigned char *)st->data, st->data_len };

	return st->kind == KTR_STRU_SOCKADDR && sockaddr_name(sb, &r);
}

static bool sockaddr(struct sbuf *sb, const struct rd *r, bool bsd)
{
	uint64_t fam = get(r, 0, 2);
	char a[INET6_ADDRSTRLEN];

	if (r->n < 2)
		return false;
	if (bsd) {
		sbuf_printf(sb, "struct sockaddr { %s", family(fam));
		if (fam == AF_INET || fam == AF_INET6 || fam == AF_UNIX) {
			size_t mark = sb->len;

			sbuf_puts(sb, ", ");
			if (!sockaddr_name(sb, r)) {
				sb->len = mark;
				sb->buf[mark] = '\0';
			}
		} else if (fam == AF_NETLINK && r->n >= 12) {
			sbuf_printf(sb, ", pid=%u, groups=%#x",
				    (unsigned)get(r, 4, 4), (unsigned)get(r, 8, 4));
		}
		sbuf_puts(sb, " }");
		return true;
	}
	sbuf_printf(sb, "{sa_family=%s", family(fam));
	if (fam == AF_INET && r->n >= 8) {
		inet_ntop(AF_INET, r->p + 4, a, sizeof(a));
		sbuf_printf(sb, ", sin_port=htons(%u), sin_addr=inet_addr(\"%s\")",
			    ntohs((uint16_t)get(r, 2, 2)), a);
	} else if (fam == AF_INET6 && r->n >= 28) {
		inet_ntop(AF_INET6, r->p + 8, a, sizeof(a));
		sbuf_printf(sb, ", sin6_port=htons(%u), sin6_flowinfo=htonl(%u), "
			    "inet_pton(AF_INET6, \"%s\", &sin6_addr), "
			    "sin6_scope_id=%u", ntohs((uint16_t)get(r, 2, 2)),
			    ntohl((uint32_t)get(r, 4, 4)), a,
			    (unsigned)get(r, 24, 4));
	} else if (fam == AF_UNIX && r->n > 2) {
		const unsigned char *p = r->p + 2;
		size_t n = r->n - 2;

		sbuf_puts(sb, ", sun_path=");
		if (p[0] == '\0') {
			sbuf_putc(sb, '@');
			put_quoted(sb, p + 1, strnlen((const char *)p + 1, n - 1));
		} else {
			put_quoted(sb, p, strnlen((const char *)p, n));
		}
	} else if (fam == AF_NETLINK && r->n >= 12) {
		sbuf_printf(sb, ", nl_pid=%u, nl_groups=%08x",
			    (unsigned)get(r, 4, 4), (unsigned)get(r, 8, 4));
	} else if (r->n > 2) {
		sbuf_puts(sb, ", sa_data=");
		put_quoted(sb, r->p + 2, r->n - 2);
	}
	sbuf_putc(sb, '}');
	return true;
}

/* ---- stat, statx ---- */

static void mode_string(struct sbuf *sb, uint32_t m)
{
	static const char types[16] = {
		[1] = 'p', [2] = 'c', [4] = 'd', [6] = 'b', [8] = '-',
		[10] = 'l', [12] = 's',
	};
	char s[11];
	const char *rwx = "rwxrwxrwx";

	s[0] = types[(m >> 12) & 15] ? types[(m >> 12) & 15] : '?';
	for (int i = 0; i < 9; i++)
		s[1 + i] = m & (0400 >> i) ? rwx[i] : '-';
	if (m & 04000)
		s[3] = s[3] == 'x' ? 's' : 'S';
	if (m & 02000)
		s[6] = s[6] == 'x' ? 's' : 'S';
	if (m & 01000)
		s[9] = s[9] == 'x' ? 't' : 'T';
	s[10] = '\0';
	sbuf_puts(sb, s);
}

/* strace's S_IFREG|0644. */
static void mode_names(struct sbuf *sb, enum sc_abi abi, uint32_t m)
{
	const char *t = xlat_value(abi, XLAT_SIFMT, m & 0170000);

	if (t)
		sbuf_printf(sb, "%s|%#o", t, m & 07777);
	else
		sbuf_printf(sb, "%#o", m);
}

static const void *stat_layout(enum sc_abi abi, uint16_t kind)
{
	if (kind == KTR_STRU_STAT64)
		return abi == SC_I386 ? &kd_layout_stat64_i386 : NULL;
	switch (abi) {
	case SC_X86_64: case SC_X32: return &kd_layout_stat_x86_64;
	case SC_I386: return &kd_layout_stat_i386;
	case SC_AARCH64: return &kd_layout_stat_aarch64;
	default: return NULL;
	}
}

static bool stat_(struct sbuf *sb, enum sc_abi abi, const struct rd *r,
		  uint16_t kind, bool bsd)
{
	/* stat and stat64 layouts share their fields' order. */
	const struct kd_layout_stat *l = stat_layout(abi, kind);
	uint32_t mode;

	if (!l || !l->_size || !has(r, l->st_mode) || !has(r, l->st_size))
		return false;
	mode = (uint32_t)fget(r, l->st_mode);
	if (!bsd) {
		sbuf_puts(sb, "{st_mode=");
		mode_names(sb, abi, mode);
		if ((mode & 0170000) == 0020000 || (mode & 0170000) == 0060000) {
			uint64_t d = fget(r, l->st_rdev);

			sbuf_printf(sb, ", st_rdev=makedev(%#llx, %#llx)",
				    (unsigned long long)((d >> 8) & 0xfff),
				    (unsigned long long)((d & 0xff) |
							 ((d >> 12) & ~0xffull)));
		} else {
			sbuf_printf(sb, ", st_size=%lld",
				    (long long)fget(r, l->st_size));
		}
		sbuf_puts(sb, ", ...}");
		return true;
	}
	sbuf_printf(sb, "struct %s { dev=%llu, ino=%llu, mode=",
		    kind == KTR_STRU_STAT64 ? "stat64" : "stat",
		    (unsigned long long)fget(r, l->st_dev),
		    (unsigned long long)fget(r, l->st_ino));
	mode_string(sb, mode);
	sbuf_printf(sb, ", nlink=%llu, uid=%llu, gid=%llu, rdev=%llu, "
		    "size=%lld, blksize=%lld, blocks=%lld, atime=%lld.%09llu, "
		    "mtime=%lld.%09llu, ctime=%lld.%09llu }",
		    (unsigned long long)fget(r, l->st_nlink),
		    (unsigned long long)fget(r, l->st_uid),
		    (unsigned long long)fget(r, l->st_gid),
		    (unsigned long long)fget(r, l->st_rdev),
		    (long long)fget(r, l->st_size),
		    (long long)fget(r, l->st_blksize),
		    (long long)fget(r, l->st_blocks),
		    (long long)fget(r, l->st_atime),
		    (unsigned long long)fget(r, l->st_atime_nsec),
		    (long long)fget(r, l->st_mtime),
		    (unsigned long long)fget(r, l->st_mtime_nsec),
		    (long long)fget(r, l->st_ctime),
		    (unsigned long long)fget(r, l->st_ctime_nsec));
	return true;
}

static bool statx_(struct sbuf *sb, enum sc_abi abi, const struct rd *r,
		   bool bsd)
{
	const struct kd_layout_statx *l = &kd_layout_statx_x86_64;
	uint32_t mode;

	if (!has(r, l->stx_size))
		return false;
	mode = (uint32_t)fget(r, l->stx_mode);
	if (!bsd) {
		sbuf_puts(sb, "{stx_mask=");
		xlat_flags(sb, abi, XLAT_STATX, fget(r, l->stx_mask));
		sbuf_printf(sb, ", stx_attributes=%#llx, stx_mode=",
			    (unsigned long long)fget(r, l->stx_attributes));
		mode_names(sb, abi, mode);
		sbuf_printf(sb, ", stx_size=%llu, ...}",
			    (unsigned long long)fget(r, l->stx_size));
		return true;
	}
	sbuf_puts(sb, "struct statx { mask=");
	xlat_flags(sb, abi, XLAT_STATX, fget(r, l->stx_mask));
	sbuf_puts(sb, ", mode=");
	mode_string(sb, mode);
	sbuf_printf(sb, ", nlink=%llu, uid=%llu, gid=%llu, ino=%llu, size=%llu, "
		    "blksize=%llu, blocks=%llu }",
		    (unsigned long long)fget(r, l->stx_nlink),
		    (unsigned long long)fget(r, l->stx_uid),
		    (unsigned long long)fget(r, l->stx_gid),
		    (unsigned long long)fget(r, l->stx_ino),
		    (unsigned long long)fget(r, l->stx_size),
		    (unsigned long long)fget(r, l->stx_blksize),
		    (unsigned long long)fget(r, l->stx_blocks));
	return true;
}

/* ---- signals ---- */

/* "USR1" for SIGUSR1 (strace's sigset spelling), "RT_3" for SIGRT3. */
static void sig_short(struct sbuf *sb, enum sc_abi abi, int sig)
{
	char b[32];
	const char *s = xlat_signal_name(abi, sig, b, sizeof(b));

	if (!s)
		sbuf_printf(sb, "%d", sig);
	else if (!strncmp(s, "SIGRT", 5) && s[5] >= '0' && s[5] <= '9')
		sbuf_printf(sb, "RT_%s", s + 5);
	else
		sbuf_puts(sb, s + 3);
}

/* strace's [USR1 TERM], or ~[...] of those not set when most are. */
static void sigset(struct sbuf *sb, enum sc_abi abi, uint64_t set,
		   unsigned nsig)
{
	unsigned count = 0;
	bool inv;

	for (unsigned s = 0; s < nsig; s++)
		count += (set >> s) & 1;
	inv = count > nsig / 2;
	if (inv)
		sbuf_putc(sb, '~');
	sbuf_putc(sb, '[');
	count = 0;
	for (unsigned s = 0; s < nsig; s++) {
		if (((set >> s) & 1) == inv)
			continue;
		if (count++)
			sbuf_putc(sb, ' ');
		sig_short(sb, abi, s + 1);
	}
	sbuf_putc(sb, ']');
}

static void handler(struct sbuf *sb, uint64_t h)
{
	if (h == 0)
		sbuf_puts(sb, "SIG_DFL");
	else if (h == 1)
		sbuf_puts(sb, "SIG_IGN");
	else
		sbuf_printf(sb, "%#llx", (unsigned long long)h);
}

static bool sigaction_(struct sbuf *sb, enum sc_abi abi, const struct rd *r,
		       bool bsd)
{
	unsigned w = word(abi);
	uint64_t h = get(r, 0, w), fl = get(r, w, w), re = get(r, 2 * w, w);
	uint64_t mask = get(r, 3 * w, 8);

	if (r->n < 3 * w + 8)
		return false;
	sbuf_puts(sb, bsd ? "struct sigaction { handler=" : "{sa_handler=");
	handler(sb, h);
	sbuf_puts(sb, bsd ? ", mask=" : ", sa_mask=");
	sigset(sb, abi, mask, 64);
	sbuf_puts(sb, bsd ? ", flags=" : ", sa_flags=");
	xlat_flags(sb, abi, XLAT_SA, fl);
	if (fl & xlat_named(abi, XLAT_SA, "SA_RESTORER"))
		sbuf_printf(sb, bsd ? ", restorer=%#llx" : ", sa_restorer=%#llx",
			    (unsigned long long)re);
	sbuf_puts(sb, bsd ? " }" : "}");
	return true;
}

static bool siginfo_(struct sbuf *sb, enum sc_abi abi, const struct rd *r,
		     bool bsd)
{
	const struct kd_layout_siginfo *l = abi == SC_I386 ?
		&kd_layout_siginfo_i386 : abi == SC_AARCH64 ?
		&kd_layout_siginfo_aarch64 : &kd_layout_siginfo_x86_64;
	int sig = (int)sget(r, l->si_signo.off, l->si_signo.size);
	int code = (int)sget(r, l->si_code.off, l->si_code.size);
	char b[32];
	const char *sn = xlat_signal_name(abi, sig, b, sizeof(b));
	const char *cn = sig == 17 ? xlat_value(abi, XLAT_CLD, code) :
				     xlat_value(abi, XLAT_SICODE, code);

	if (!has(r, l->si_status))
		return false;
	if (!sig) {
		sbuf_puts(sb, bsd ? "siginfo { }" : "{}");
		return true;
	}
	sbuf_printf(sb, bsd ? "siginfo { signo=%s, code=" :
			      "{si_signo=%s, si_code=", sn ? sn : "?");
	if (cn)
		sbuf_puts(sb, cn);
	else
		sbuf_printf(sb, "%d", code);
	sbuf_printf(sb, bsd ? ", pid=%lld, uid=%lld, status=%lld }" :
			      ", si_pid=%lld, si_uid=%lld, si_status=%lld, "
			      "si_utime=%lld, si_stime=%lld}",
		    (long long)sget(r, l->si_pid.off, l->si_pid.size),
		    (long long)sget(r, l->si_uid.off, l->si_uid.size),
		    (long long)sget(r, l->si_status.off, l->si_status.size),
		    (long long)sget(r, l->si_utime.off, l->si_utime.size),
		    (long long)sget(r, l->si_stime.off, l->si_stime.size));
	return true;
}

/* A wait status as strace spells it. */
static void wstatus(struct sbuf *sb, enum sc_abi abi, int s, bool bsd)
{
	char b[32];
	const char *n;

	if ((s & 0x7f) == 0) {
		sbuf_printf(sb, bsd ? "exited %d" :
				      "[{WIFEXITED(s) && WEXITSTATUS(s) == %d}]",
			    (s >> 8) & 0xff);
		return;
	}
	if ((s & 0xff) == 0x7f) {
		n = xlat_signal_name(abi, (s >> 8) & 0xff, b, sizeof(b));
		sbuf_printf(sb, bsd ? "stopped %s" :
				      "[{WIFSTOPPED(s) && WSTOPSIG(s) == %s}]",
			    n ? n : "?");
		return;
	}
	n = xlat_signal_name(abi, s & 0x7f, b, sizeof(b));
	sbuf_printf(sb, bsd ? "killed %s%s" :
			      "[{WIFSIGNALED(s) && WTERMSIG(s) == %s%s}]",
		    n ? n : "?", s & 0x80 ? (bsd ? " (core dumped)" :
					     " && WCOREDUMP(s)") : "");
}

/* ---- times, limits ---- */

static void timepair(struct sbuf *sb, const struct rd *r, uint32_t off,
		     unsigned w, const char *sub)
{
	sbuf_printf(sb, "{tv_sec=%lld, %s=%lld}", (long long)sget(r, off, w),
		    sub, (long long)sget(r, off + w, w));
}

static void limit(struct sbuf *sb, uint64_t v, unsigned w, bool bsd)
{
	uint64_t inf = w == 4 ? 0xffffffffull : ~0ull;

	if (v == inf)
		sbuf_puts(sb, bsd ? "infinity" :
			      w == 4 ? "RLIM_INFINITY" : "RLIM64_INFINITY");
	else if (!bsd && v && v % 1024 == 0)
		sbuf_printf(sb, "%llu*1024", (unsigned long long)v / 1024);
	else
		sbuf_printf(sb, "%llu", (unsigned long long)v);
}

/* ---- arrays ---- */

static bool pollfds(struct sbuf *sb, enum sc_abi abi, const struct rd *r,
		    bool bsd)
{
	uint32_t n = r->n / 8;

	sbuf_puts(sb, bsd ? "struct pollfd[] { " : "[");
	for (uint32_t i = 0; i < n; i++) {
		uint64_t ev = get(r, i * 8 + 4, 2), rev = get(r, i * 8 + 6, 2);

		sbuf_printf(sb, "%s{fd=%d, events=", i ? ", " : "",
			    (int)sget(r, i * 8, 4));
		xlat_flags(sb, abi, XLAT_POLL, ev);
		if (rev) {
			sbuf_puts(sb, ", revents=");
			xlat_flags(sb, abi, XLAT_POLL, rev);
		}
		sbuf_putc(sb, '}');
	}
	sbuf_puts(sb, bsd ? " }" : "]");
	return true;
}

static bool epoll_events(struct sbuf *sb, enum sc_abi abi, const struct rd *r,
			 bool bsd)
{
	const struct kd_layout_epoll *l = abi == SC_AARCH64 ?
		&kd_layout_epoll_aarch64 : &kd_layout_epoll_x86_64;
	uint32_t n = l->_size ? r->n / l->_size : 0;

	if (!n)
		return false;
	sbuf_puts(sb, bsd ? "struct epoll_event[] { " : n > 1 ? "[" : "");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t o = i * l->_size;
		uint64_t d = get(r, o + l->data.off, 8);

		sbuf_puts(sb, i ? ", {events=" : "{events=");
		xlat_flags(sb, abi, XLAT_EPOLLEV, get(r, o + l->events.off, 4));
		sbuf_printf(sb, ", data={u32=%u, u64=%llu}}", (uint32_t)d,
			    (unsigned long long)d);
	}
	sbuf_puts(sb, bsd ? " }" : n > 1 ? "]" : "");
	return true;
}

static bool iovecs(struct sbuf *sb, enum sc_abi abi, const struct rd *r,
		   bool bsd)
{
	unsigned w = abi == SC_X32 ? 4 : word(abi);
	uint32_t n = r->n / (2 * w);

	sbuf_puts(sb, bsd ? "struct iovec[] { " : "[");
	for (uint32_t i = 0; i < n; i++)
		sbuf_printf(sb, "%s{iov_base=%#llx, iov_len=%llu}",
			    i ? ", " : "",
			    (unsigned long long)get(r, i * 2 * w, w),
			    (unsigned long long)get(r, i * 2 * w + w, w));
	sbuf_puts(sb, bsd ? " }" : "]");
	return true;
}

static bool strings(struct sbuf *sb, const struct rd *r, bool bsd,
		    const char *name)
{
	uint32_t i = 0, k = 0;

	sbuf_printf(sb, bsd ? "%s { " : "[", name);
	while (i < r->n) {
		size_t l = strnlen((const char *)r->p + i, r->n - i);

		if (k++)
			sbuf_puts(sb, ", ");
		put_quoted(sb, r->p + i, l);
		i += l + 1;
	}
	sbuf_puts(sb, bsd ? " }" : "]");
	return true;
}

/* getdents64's linux_dirent64 entries: ino (8), off (8), reclen (2), type
 * (1), name: the same on every ABI. */
static bool dirents(struct sbuf *sb, const struct rd *r, bool bsd)
{
	static const char *const types[16] = {
		[0] = "DT_UNKNOWN", [1] = "DT_FIFO", [2] = "DT_CHR",
		[4] = "DT_DIR", [6] = "DT_BLK", [8] = "DT_REG", [10] = "DT_LNK",
		[12] = "DT_SOCK", [14] = "DT_WHT",
	};
	uint32_t off = 0, k = 0;

	sbuf_puts(sb, bsd ? "struct dirent64[] { " : "[");
	while (off + 19 < r->n) {
		uint32_t reclen = (uint32_t)get(r, off + 16, 2);
		uint32_t t = (uint32_t)get(r, off + 18, 1);
		uint32_t nmax = reclen > 19 ? reclen - 19 : 0;

		if (reclen < 19 || off + 19 + 1 > r->n)
			break;
		if (nmax > r->n - off - 19)
			nmax = r->n - off - 19;
		sbuf_printf(sb, "%s{d_ino=%llu, d_off=%lld, d_reclen=%u, "
			    "d_type=%s, d_name=", k++ ? ", " : "",
			    (unsigned long long)get(r, off, 8),
			    (long long)get(r, off + 8, 8), reclen,
			    t < 16 && types[t] ? types[t] : "?");
		put_quoted(sb, r->p + off + 19,
			   strnlen((const char *)r->p + off + 19, nmax));
		sbuf_putc(sb, '}');
		off += reclen;
	}
	sbuf_puts(sb, bsd ? " }" : "]");
	return true;
}

static bool utsname(struct sbuf *sb, enum sc_abi abi, const struct rd *r,
		    bool bsd)
{
	const struct kd_layout_utsname *l = &kd_layout_utsname_x86_64;
	const struct kd_field f[6] = { l->sysname, l->nodename, l->release,
				       l->version, l->machine, l->domainname };
	static const char *const names[6] = { "sysname", "nodename",
		"release", "version", "machine", "domainname" };

	(void)abi;
	if (!has(r, l->domainname))
		return false;
	sbuf_puts(sb, bsd ? "struct utsname { " : "{");
	for (int i = 0; i < 6; i++) {
		sbuf_printf(sb, "%s%s=", i ? ", " : "", names[i]);
		put_quoted(sb, r->p + f[i].off,
			   strnlen((const char *)r->p + f[i].off, f[i].size));
	}
	sbuf_puts(sb, bsd ? " }" : "}");
	return true;
}

bool kd_stru_put(struct sbuf *sb, enum sc_abi abi, const struct ktr_stru *st,
		 enum kd_stru_style style)
{
	struct rd r = { (const unsigned char *)st->data, st->data_len };
	bool bsd = style == KD_STRU_BSD;
	unsigned w = word(abi);
	size_t mark = sb->len;
	bool ok;

	switch (st->kind) {
	case KTR_STRU_SOCKADDR:
		ok = sockaddr(sb, &r, bsd);
		break;
	case KTR_STRU_STAT:
	case KTR_STRU_STAT64:
		ok = stat_(sb, abi, &r, st->kind, bsd);
		break;
	case KTR_STRU_STATX:
		ok = statx_(sb, abi, &r, bsd);
		break;
	case KTR_STRU_FDPAIR:
		ok = r.n >= 8;
		if (ok)
			sbuf_printf(sb, bsd ? "int[2] { %d, %d }" : "[%d, %d]",
				    (int)sget(&r, 0, 4), (int)sget(&r, 4, 4));
		break;
	case KTR_STRU_WSTATUS:
		ok = r.n >= 4;
		if (ok) {
			sbuf_puts(sb, bsd ? "wait status { " : "");
			wstatus(sb, abi, (int)sget(&r, 0, 4), bsd);
			sbuf_puts(sb, bsd ? " }" : "");
		}
		break;
	case KTR_STRU_SIGINFO:
		ok = siginfo_(sb, abi, &r, bsd);
		break;
	case KTR_STRU_POLLFD:
		ok = pollfds(sb, abi, &r, bsd);
		break;
	case KTR_STRU_SIGACTION:
		ok = sigaction_(sb, abi, &r, bsd);
		break;
	case KTR_STRU_SIGSET:
		ok = r.n >= 4;
		if (ok) {
			sbuf_puts(sb, bsd ? "sigset_t " : "");
			sigset(sb, abi, get(&r, 0, r.n >= 8 ? 8 : 4),
			       r.n >= 8 ? 64 : 32);
		}
		break;
	case KTR_STRU_TIMESPEC:
	case KTR_STRU_TIMESPEC64:
	case KTR_STRU_TIMEVAL: {
		unsigned ww = st->kind == KTR_STRU_TIMESPEC64 ? 8 : w;

		ok = r.n >= 2 * ww;
		if (ok) {
			sbuf_puts(sb, bsd ? (st->kind == KTR_STRU_TIMEVAL ?
					     "struct timeval " :
					     "struct timespec ") : "");
			timepair(sb, &r, 0, ww, st->kind == KTR_STRU_TIMEVAL ?
				 "tv_usec" : "tv_nsec");
		}
		break;
	}
	case KTR_STRU_ITIMERSPEC:
	case KTR_STRU_ITIMERSPEC64:
	case KTR_STRU_ITIMERVAL: {
		unsigned ww = st->kind == KTR_STRU_ITIMERSPEC64 ? 8 : w;
		const char *sub = st->kind == KTR_STRU_ITIMERVAL ? "tv_usec" :
								   "tv_nsec";

		ok = r.n >= 4 * ww;
		if (ok) {
			sbuf_puts(sb, bsd ? (st->kind == KTR_STRU_ITIMERVAL ?
					     "struct itimerval " :
					     "struct itimerspec ") : "");
			sbuf_puts(sb, "{it_interval=");
			timepair(sb, &r, 0, ww, sub);
			sbuf_puts(sb, ", it_value=");
			timepair(sb, &r, 2 * ww, ww, sub);
			sbuf_putc(sb, '}');
		}
		break;
	}
	case KTR_STRU_RLIMIT:
	case KTR_STRU_RLIMIT64: {
		unsigned ww = st->kind == KTR_STRU_RLIMIT64 ? 8 : w;

		ok = r.n >= 2 * ww;
		if (ok) {
			sbuf_puts(sb, bsd ? "struct rlimit { cur=" :
					    "{rlim_cur=");
			limit(sb, get(&r, 0, ww), ww, bsd);
			sbuf_puts(sb, bsd ? ", max=" : ", rlim_max=");
			limit(sb, get(&r, ww, ww), ww, bsd);
			sbuf_puts(sb, bsd ? " }" : "}");
		}
		break;
	}
	case KTR_STRU_UTSNAME:
		ok = utsname(sb, abi, &r, bsd);
		break;
	case KTR_STRU_EPOLL_EVENT:
		ok = epoll_events(sb, abi, &r, bsd);
		break;
	case KTR_STRU_IOVEC:
		ok = iovecs(sb, abi, &r, bsd);
		break;
	case KTR_STRU_ENVP:
		ok = strings(sb, &r, bsd, "envp");
		break;
	case KTR_STRU_DIRENT64:
		ok = dirents(sb, &r, bsd);
		break;
	case KTR_STRU_INT:
		ok = r.n >= 4;
		if (ok)
			sbuf_printf(sb, bsd ? "int %d" : "[%d]",
				    (int)sget(&r, 0, 4));
		break;
	case KTR_STRU_BYTES:
		/* strace: a setsockopt's int "[1]", other bytes in hex
		 * ("\x01\x02", as strace prints getrandom's). */
		ok = true;
		if (!bsd && r.n == 4 && st->dir == KTR_STRU_IN) {
			sbuf_printf(sb, "[%d]", (int)sget(&r, 0, 4));
			break;
		}
		sbuf_puts(sb, bsd ? "bytes \"" : "\"");
		for (uint32_t i = 0; i < r.n; i++)
			if (bsd)
				kd_put_escaped(sb, r.p + i, 1);
			else
				sbuf_printf(sb, "\\x%02x", r.p[i]);
		sbuf_putc(sb, '"');
		if (st->total > r.n)
			sbuf_puts(sb, "...");
		break;
	default:
		ok = false;
	}
	if (!ok) {
		sb->len = mark;
		if (sb->buf)
			sb->buf[mark] = '\0';
	}
	return ok;
}
