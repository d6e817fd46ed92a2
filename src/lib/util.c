// SPDX-License-Identifier: GPL-2.0-only
/* util — diagnostics, allocation, parsing of durations and CPU lists,
 * string buffers. See util.h. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "sonde";

void sd_set_prog(const char *name)
{
	prog = name;
}

const char *sd_prog(void)
{
	return prog;
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", prog, kind, line);
}

void sd_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void sd_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void sd_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	exit(SD_EXIT_FAIL);
}

static _Noreturn void oom(size_t n)
{
	fprintf(stderr, "%s: out of memory allocating %zu bytes\n", prog, n);
	abort();
}

void *sd_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *sd_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *sd_realloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *sd_strdup(const char *s)
{
	return sd_strndup(s, strlen(s));
}

char *sd_strndup(const char *s, size_t n)
{
	char *p = sd_malloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void sd_grow(void *arr, size_t *cap, size_t need, size_t elem)
{
	void **pp = arr;
	size_t c = *cap;

	if (need <= c)
		return;
	if (c < 16)
		c = 16;
	while (c < need)
		c *= 2;
	*pp = sd_realloc(*pp, c * elem);
	*cap = c;
}

int sd_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
	};
	char num[32], *end;
	size_t n = 0;
	double v;

	/* Digits and at most one point, then a unit: no signs, exponents,
	 * hex, "inf" or blanks, which strtod alone would accept. */
	if (!s)
		return -EINVAL;
	while ((isdigit((unsigned char)s[n]) || s[n] == '.') && n < sizeof(num) - 1)
		n++;
	if (n == 0 || n == sizeof(num) - 1)
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	errno = 0;
	v = strtod(num, &end);
	if (errno || *end || !isfinite(v))
		return -EINVAL;
	end = (char *)s + n;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			double r = v * units[i].mult;

			if (r > 1e18)
				return -EINVAL;
			*ns = (uint64_t)(r + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

char *sd_fmt_duration(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000000ull)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else if (ns >= 1000ull)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

int sd_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int sd_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_cpu(const char **p, long *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v > 1 << 20)
		return -EINVAL;
	*p = end;
	*out = v;
	return 0;
}

int sd_parse_cpulist(const char *s, bool *set, int ncpus)
{
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		long lo, hi;

		if (parse_cpu(&p, &lo))
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &hi) || hi < lo)
				return -EINVAL;
		}
		if (hi >= ncpus)
			return -ERANGE;
		for (long c = lo; c <= hi; c++)
			set[c] = true;
		if (*p == '\0' || *p == '\n')
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

int sd_read_cpulist(const char *path, bool *set, int ncpus)
{
	size_t len;
	char *buf = sd_read_file(path, &len);
	int ret;

	if (!buf)
		return -errno;
	ret = sd_parse_cpulist(buf, set, ncpus);
	free(buf);
	return ret;
}

char *sd_read_file(const char *path, size_t *lenp)
{
	size_t len = 0, cap = 1 << 16;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = sd_malloc(cap);
	for (;;) {
		ssize_t n;

		if (cap - len < 4096 + 1) {
			cap *= 2;
			buf = sd_realloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static size_t page_round(size_t n)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);

	return (n + ps - 1) & ~(ps - 1);
}

void region_init(struct region *r, size_t cap)
{
	cap = page_round(cap ? cap : 1);
	r->base = mmap(NULL, cap, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (r->base == MAP_FAILED)
		oom(cap);
	r->len = 0;
	r->cap = cap;
}

size_t region_append(struct region *r, size_t n)
{
	size_t off = r->len;

	if (r->len + n > r->cap) {
		size_t cap = r->cap * 2;
		char *p;

		while (cap < r->len + n)
			cap *= 2;
		cap = page_round(cap);
		p = mremap(r->base, r->cap, cap, MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			oom(cap);
		/* Best effort: older kernels fault the pages in lazily. */
		madvise(p + r->cap, cap - r->cap, MADV_POPULATE_WRITE);
		r->base = p;
		r->cap = cap;
	}
	r->len += n;
	return off;
}

void region_free(struct region *r)
{
	if (r->base && r->cap)
		munmap(r->base, r->cap);
	r->base = NULL;
	r->len = r->cap = 0;
}

char *sd_u64_dec(char *end, uint64_t v)
{
	/* Two digits a division: printf's digits cost more than the rest
	 * of a kdump line. */
	static const char d2[201] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	char *p = end;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, d2 + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, d2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

uint64_t sd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void sbuf_init(struct sbuf *sb)
{
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void sbuf_free(struct sbuf *sb)
{
	free(sb->buf);
	sbuf_init(sb);
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

static inline void sbuf_reserve(struct sbuf *sb, size_t n)
{
	/* The common case, room enough, without a call. */
	if (sb->len + n + 1 > sb->cap)
		sd_grow(&sb->buf, &sb->cap, sb->len + n + 1, 1);
}

void sbuf_grow_for(struct sbuf *sb, size_t n)
{
	sd_grow(&sb->buf, &sb->cap, sb->len + n + 1, 1);
}

void sbuf_vprintf(struct sbuf *sb, const char *fmt, va_list ap)
{
	size_t room = sb->buf ? sb->cap - sb->len : 0;
	va_list aq;
	int n;

	/* Into the room there is (most calls fit: one formatting, not a
	 * measuring one first); again after growing when it did not. */
	va_copy(aq, ap);
	n = vsnprintf(room ? sb->buf + sb->len : NULL, room, fmt, aq);
	va_end(aq);
	if (n < 0) {
		if (room)
			sb->buf[sb->len] = '\0';
		return;
	}
	if ((size_t)n >= room) {
		sbuf_reserve(sb, n);
		vsnprintf(sb->buf + sb->len, n + 1, fmt, ap);
	}
	sb->len += n;
}

void sbuf_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbuf_vprintf(sb, fmt, ap);
	va_end(ap);
}

char *sbuf_steal(struct sbuf *sb)
{
	char *p;

	sbuf_reserve(sb, 0);
	p = sb->buf;
	sbuf_init(sb);
	return p;
}
