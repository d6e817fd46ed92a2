// SPDX-License-Identifier: GPL-2.0-only
/* util — small helpers every tool shares: diagnostics, allocation that never
 * returns NULL, duration / size / CPU-list parsing, a growable string buffer
 * and time. Knows nothing about any tool. */
#ifndef SONDE_UTIL_H
#define SONDE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit codes: 1 for runtime failures, 2 for usage errors. */
enum { SD_EXIT_FAIL = 1, SD_EXIT_USAGE = 2 };

/* Diagnostics are prefixed with the program name set here ("sonde hot"). */
void sd_set_prog(const char *name);
const char *sd_prog(void);
void sd_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void sd_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation: abort with a message on exhaustion, never return NULL. */
void *sd_malloc(size_t n);
void *sd_calloc(size_t n, size_t size);
void *sd_realloc(void *p, size_t n);
char *sd_strdup(const char *s);
char *sd_strndup(const char *s, size_t n);
/* Grow *arr (of *cap elements of size elem) so it holds at least need. */
void sd_grow(void *arr, size_t *cap, size_t need, size_t elem);

/* "500ms", "10s", "1m", "2h", "1.5s", "250us"; a bare number is seconds.
 * Returns 0 and stores nanoseconds, or -EINVAL. */
int sd_parse_duration(const char *s, uint64_t *ns);
/* Format nanoseconds as "5.00 s", "512 ms", "12.3 us" into buf. */
char *sd_fmt_duration(uint64_t ns, char *buf, size_t len);
/* A size: a decimal (or 0x hex) count with an optional binary-multiple
 * suffix k, m, g or t (either case): "4k" is 4096. Returns 0, or -EINVAL for
 * bad syntax and -ERANGE when the value does not fit in 64 bits. */
int sd_parse_size(const char *s, uint64_t *out);
/* Unsigned decimal (or 0x hex) integer with range check; 0 or -EINVAL. */
int sd_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* CPU lists as the kernel prints them: "0-3,5,7-8". Sets bits in a bool
 * array of ncpus entries. Returns 0, or -EINVAL for syntax errors and
 * -ERANGE for a CPU >= ncpus. */
int sd_parse_cpulist(const char *s, bool *set, int ncpus);
/* Read a CPU list file such as /sys/devices/system/cpu/online. */
int sd_read_cpulist(const char *path, bool *set, int ncpus);

/* Read a whole (possibly /proc) file into a NUL-terminated malloc'd buffer.
 * Returns the buffer and stores its length, or NULL with errno set. */
char *sd_read_file(const char *path, size_t *len);

/* A growable memory region backed by an anonymous mapping whose pages are
 * populated in one call as it grows (page faults one by one cost ~2.5 us
 * each on some VMs). Contents may move when it grows: keep offsets. */
struct region {
	char *base;
	size_t len, cap;
};
void region_init(struct region *r, size_t cap);
/* Append n bytes (uninitialized); returns their offset. */
size_t region_append(struct region *r, size_t n);
void region_free(struct region *r);

/* v's decimal digits, written backwards so that they end at end (no
 * NUL); returns where they start. At most 20 bytes. */
char *sd_u64_dec(char *end, uint64_t v);

/* Monotonic clock in nanoseconds. */
uint64_t sd_now_ns(void);

/* Growable string buffer. */
struct sbuf {
	char *buf;
	size_t len, cap;
};
void sbuf_init(struct sbuf *sb);
void sbuf_free(struct sbuf *sb);
void sbuf_reset(struct sbuf *sb);
/* Room for n more bytes and the NUL (the slow path of the two below). */
void sbuf_grow_for(struct sbuf *sb, size_t n);

/* Inline: a call per byte or piece was much of kdump's text time. */
static inline void sbuf_putc(struct sbuf *sb, char c)
{
	if (sb->len + 2 > sb->cap)
		sbuf_grow_for(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

static inline void sbuf_put(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 > sb->cap)
		sbuf_grow_for(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/* (Inline too: the length of a literal is then known when compiling.) */
static inline void sbuf_puts(struct sbuf *sb, const char *s)
{
	sbuf_put(sb, s, strlen(s));
}

void sbuf_printf(struct sbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sbuf_vprintf(struct sbuf *sb, const char *fmt, va_list ap);
/* Detach the buffer (NUL-terminated, caller frees). */
char *sbuf_steal(struct sbuf *sb);

#endif
