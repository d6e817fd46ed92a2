// SPDX-License-Identifier: GPL-2.0-only
/* reader — checked reading of trace files. */
#include "reader.h"
#include "../lib/crc32c.h"
#include "../lib/syscalls.h"
#include "../lib/util.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int ktr_check_header(const void *buf, size_t len, struct ktr_file_header *h)
{
	const char *b = buf;
	struct ktr_file_header tmp;
	size_t m = len < 8 ? len : 8;

	if (memcmp(b, KTR_MAGIC, m))
		return -EINVAL;
	if (len < sizeof(tmp))
		return -ENODATA;
	memcpy(&tmp, buf, sizeof(tmp));
	if (tmp.byte_order != KTR_LITTLE && tmp.byte_order != KTR_BIG)
		return -EBADMSG;
	if (tmp.byte_order != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
			       KTR_LITTLE : KTR_BIG))
		return -EPROTONOSUPPORT;
	if (tmp.version < KTR_VERSION_MIN || tmp.version > KTR_VERSION ||
	    (tmp.abi != SC_X86_64 && tmp.abi != SC_AARCH64))
		return -EPROTONOSUPPORT;
	if (tmp.hdr_len < sizeof(tmp) || tmp.hdr_len > 65536 ||
	    tmp.hdr_len % 8)
		return -EBADMSG;
	tmp.release[sizeof(tmp.release) - 1] = '\0';
	tmp.hostname[sizeof(tmp.hostname) - 1] = '\0';
	if (h)
		*h = tmp;
	return 0;
}

/* The smallest valid length of each record type. */
static const uint32_t min_len[KTR_NTYPES] = {
	[KTR_CALL] = sizeof(struct ktr_call),
	[KTR_RET] = sizeof(struct ktr_ret),
	[KTR_NAMI] = sizeof(struct ktr_nami) + 8,
	[KTR_GIO] = sizeof(struct ktr_gio),
	[KTR_PSIG] = offsetof(struct ktr_psig, addr),	/* version 1's */
	[KTR_CSW] = sizeof(struct ktr_csw),
	[KTR_FORK] = sizeof(struct ktr_fork),
	[KTR_EXEC] = sizeof(struct ktr_exec),
	[KTR_EXIT] = sizeof(struct ktr_exit),
	[KTR_DROP] = sizeof(struct ktr_drop),
	[KTR_RETGIO] = sizeof(struct ktr_retgio),
	[KTR_CALLRET] = sizeof(struct ktr_callret),
	[KTR_STRU] = sizeof(struct ktr_stru),
	[KTR_END] = sizeof(struct ktr_end),
	[KTR_SUM] = sizeof(struct ktr_sum),
	[KTR_FD] = sizeof(struct ktr_fd) + 8,
};

int ktr_check_record(const void *buf, size_t avail, uint32_t *lenp)
{
	struct ktr_rec h;
	uint32_t len;

	if (avail < sizeof(uint32_t))
		return -ENODATA;
	memcpy(&len, buf, sizeof(len));
	if (len < sizeof(h) || len > KTR_REC_MAX || len % 8)
		return -EBADMSG;
	if (avail >= offsetof(struct ktr_rec, flags)) {
		uint16_t type;

		/* A SUM record, framing, is never longer: one that says
		 * so is damaged, not the end of a recording cut short. */
		memcpy(&type, (const char *)buf + offsetof(struct ktr_rec, type),
		       sizeof(type));
		if (type == KTR_SUM && len != sizeof(struct ktr_sum))
			return -EBADMSG;
	}
	if (avail < len)
		return -ENODATA;
	memcpy(&h, buf, sizeof(h));
	if (h.type < KTR_NTYPES && min_len[h.type] && len < min_len[h.type])
		return -EBADMSG;
	if (h.type == KTR_GIO) {
		struct ktr_gio g;

		memcpy(&g, buf, sizeof(g));
		if (g.data_len > len - sizeof(g))
			return -EBADMSG;
	} else if (h.type == KTR_RETGIO) {
		struct ktr_retgio g;

		memcpy(&g, buf, sizeof(g));
		if (g.data_len > len - sizeof(g))
			return -EBADMSG;
	} else if (h.type == KTR_CALLRET) {
		struct ktr_callret c;

		memcpy(&c, buf, sizeof(c));
		if (c.data_len > len - sizeof(c) || c.gio > 1 ||
		    (!c.gio && c.data_len))
			return -EBADMSG;
	} else if (h.type == KTR_STRU) {
		struct ktr_stru st;

		memcpy(&st, buf, sizeof(st));
		if (st.data_len > len - sizeof(st))
			return -EBADMSG;
	} else if (h.type == KTR_EXEC) {
		struct ktr_exec e;

		memcpy(&e, buf, sizeof(e));
		if ((uint64_t)e.path_len + e.argv_len > len - sizeof(e))
			return -EBADMSG;
	}
	/* Unknown types are skipped by their length: later versions may
	 * add some. */
	*lenp = len;
	return 0;
}

int ktr_pers_abi(int native, unsigned pers)
{
	if (pers == KTR_PERS_NATIVE)
		return native;
	if (native == SC_X86_64 && pers == KTR_PERS_COMPAT)
		return SC_I386;
	if (native == SC_X86_64 && pers == KTR_PERS_X32)
		return SC_X32;
	return -1;
}

int ktr_rec_abi(const struct ktr_file_header *h, const struct ktr_rec *r)
{
	/* Version 1 knew one ABI; its byte there is 0 anyway. */
	return h->version < 2 ? h->abi : ktr_pers_abi(h->abi, r->pers);
}

static uint32_t round8(uint64_t n)
{
	return n > KTR_REC_MAX ? UINT32_MAX : (uint32_t)((n + 7) & ~7ull);
}

bool ktr_record_exact(const struct ktr_rec *r)
{
	const char *p = (const char *)r;

	switch (r->type) {
	case KTR_NAMI: {
		size_t n = r->len - sizeof(struct ktr_nami);
		const char *path = p + sizeof(struct ktr_nami);
		size_t l = strnlen(path, n);

		return l < n && r->len == round8(sizeof(struct ktr_nami) + l + 1);
	}
	case KTR_FD: {
		size_t n = r->len - sizeof(struct ktr_fd);
		const char *path = p + sizeof(struct ktr_fd);
		size_t l = strnlen(path, n);

		return l < n && r->len == round8(sizeof(struct ktr_fd) + l + 1);
	}
	case KTR_GIO:
		return r->len == round8(sizeof(struct ktr_gio) +
					((const struct ktr_gio *)r)->data_len);
	case KTR_RETGIO:
		return r->len == round8(sizeof(struct ktr_retgio) +
					((const struct ktr_retgio *)r)->data_len);
	case KTR_CALLRET:
		return r->len == round8(sizeof(struct ktr_callret) +
					((const struct ktr_callret *)r)->data_len);
	case KTR_PSIG:
		/* Version 1's, or version 2's with addr and status. */
		return r->len == round8(offsetof(struct ktr_psig, addr)) ||
		       r->len == round8(sizeof(struct ktr_psig));
	case KTR_STRU:
		return r->len == round8(sizeof(struct ktr_stru) +
					((const struct ktr_stru *)r)->data_len);
	case KTR_EXEC: {
		const struct ktr_exec *e = (const void *)r;

		return r->len == round8(sizeof(*e) + (uint64_t)e->path_len +
					e->argv_len);
	}
	default:
		return r->type >= KTR_NTYPES || !min_len[r->type] ||
		       r->len == round8(min_len[r->type]);
	}
}

const char *ktr_strerror(int err)
{
	switch (err) {
	case -ENODATA: return "truncated";
	case -EINVAL: return "not a sonde trace file";
	case -EPROTONOSUPPORT: return "a trace format version, byte order or "
				      "ABI this kdump does not read";
	case -EBADMSG: return "corrupt record";
	default: return strerror(-err);
	}
}

void ktr_reader_init(struct ktr_reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cap = 1 << 20;
	r->buf = sd_malloc(r->cap);
}

void ktr_reader_free(struct ktr_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

/* crc continued over p[0..n) with algorithm algo (KTR_SUM_*). */
static uint32_t sum_of(unsigned algo, uint32_t crc, const void *p, size_t n)
{
	if (algo == KTR_SUM_CRC32)
		return crc32(crc, p, n);
	if (algo == KTR_SUM_CRC32C)
		return crc32c(crc, p, n);
	return crc;
}

/* The n bytes at buf[start] are read past: into the running checksum. */
static void sum_add(struct ktr_reader *r, size_t n)
{
	r->sum_crc = sum_of(r->hdr.sum_algo, r->sum_crc, r->buf + r->start, n);
	r->sum_bytes += n;
}

/* Make at least want unread bytes available, if the file has them:
 * 0, or -errno. */
static int fill(struct ktr_reader *r, size_t want)
{
	while (r->end - r->start < want) {
		ssize_t n;

		if (r->start && r->end + (want - (r->end - r->start)) > r->cap) {
			memmove(r->buf, r->buf + r->start, r->end - r->start);
			r->end -= r->start;
			r->start = 0;
		}
		if (want > r->cap) {
			r->cap = want;
			r->buf = sd_realloc(r->buf, r->cap);
		}
		n = read(r->fd, r->buf + r->end, r->cap - r->end);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0) {
			r->eof = true;
			return 0;
		}
		r->eof = false;
		r->end += n;
	}
	return 0;
}

int ktr_reader_header(struct ktr_reader *r)
{
	int err = fill(r, sizeof(struct ktr_file_header));

	if (err)
		return err;
	err = ktr_check_header(r->buf + r->start, r->end - r->start, &r->hdr);
	if (err)
		return err;
	err = fill(r, r->hdr.hdr_len);
	if (err)
		return err;
	if (r->end - r->start < r->hdr.hdr_len)
		return -ENODATA;
	r->sum_crc = 0;
	r->sum_bytes = 0;
	sum_add(r, r->hdr.hdr_len);
	r->start += r->hdr.hdr_len;
	r->offset += r->hdr.hdr_len;
	return 0;
}

/* A SUM record at buf[start]: check the bytes since the last one, and
 * the record itself (its crc as 0). One whose algorithm is not the
 * header's is damaged (a header of no checksums has no SUM records);
 * one of an algorithm this reader does not know, the header's too
 * (a later recorder's), cannot be checked. */
static void sum_check(struct ktr_reader *r, uint32_t len)
{
	struct ktr_sum s;
	uint64_t from = r->offset - r->sum_bytes;
	uint64_t bytes = r->sum_bytes;
	uint32_t crc;

	memcpy(&s, r->buf + r->start, sizeof(s));
	crc = s.crc;
	s.crc = 0;
	if (r->hdr.sum_algo != KTR_SUM_CRC32 &&
	    r->hdr.sum_algo != KTR_SUM_CRC32C && s.algo == r->hdr.sum_algo) {
		r->sum_unknown++;
	} else if (s.algo == r->hdr.sum_algo && s.bytes == 0 &&
		   crc == sum_of(r->hdr.sum_algo, 0, &s, sizeof(s))) {
		/* A recording appended to the file begins (its SUM covers
		 * only itself): what came before it since the last check,
		 * no check covers. */
		r->sum_uncovered += bytes;
	} else if (s.algo == r->hdr.sum_algo && s.bytes == bytes &&
		   crc == sum_of(r->hdr.sum_algo, r->sum_crc, &s, sizeof(s))) {
		r->sum_ok++;
	} else {
		r->sum_bad++;
		r->sum_bad_from = from;
		r->sum_bad_to = r->offset + len;
	}
	r->sum_crc = 0;
	r->sum_bytes = 0;
}

int ktr_reader_next(struct ktr_reader *r, const struct ktr_rec **rec)
{
	for (;;) {
		uint32_t len = 0;
		int err = fill(r, sizeof(uint32_t));

		if (err)
			return err;
		if (r->end == r->start)
			return 0;
		err = ktr_check_record(r->buf + r->start, r->end - r->start,
				       &len);
		if (err == -ENODATA && r->end - r->start >= sizeof(uint32_t)) {
			memcpy(&len, r->buf + r->start, sizeof(len));
			if ((err = fill(r, len)))
				return err;
			err = ktr_check_record(r->buf + r->start,
					       r->end - r->start, &len);
		}
		if (err)
			return err;
		/* Records are 8-byte aligned in the file; keep them aligned
		 * in memory too (start only ever moves by multiples of 8). */
		*rec = (const struct ktr_rec *)(r->buf + r->start);
		if (r->strict && !ktr_record_exact(*rec))
			return -EBADMSG;
		if ((*rec)->type == KTR_SUM) {
			sum_check(r, len);
			r->end_unsummed = 0;
		} else {
			if (r->end_unsummed)
				r->end_unsummed = 2;
			else if ((*rec)->type == KTR_END && r->hdr.sum_algo)
				r->end_unsummed = 1;
			sum_add(r, len);
			r->start += len;
			r->offset += len;
			return 1;
		}
		r->start += len;
		r->offset += len;
	}
}

void ktr_reader_eof(struct ktr_reader *r)
{
	if (r->end_unsummed == 2) {
		r->sum_bad++;
		r->sum_bad_from = r->offset - r->sum_bytes;
		r->sum_bad_to = r->offset;
	}
	r->end_unsummed = 0;
}

/* The largest pid or tid Linux hands out (PID_MAX_LIMIT). */
#define KTR_PID_LIMIT (4u << 20)
#define KTR_RESYNC_CHAIN 3
#define KTR_RESYNC_SPREAD 3600000000000ull	/* 1 h in ns */

/* The record at buf[0..avail) looks real: 1, 0 not, -ENODATA it goes
 * past avail (*len is then what it claims). */
static int plausible(const void *buf, size_t avail, uint32_t *len)
{
	struct ktr_rec h;
	int err;

	if (avail < sizeof(h))
		return -ENODATA;
	memcpy(&h, buf, sizeof(h));
	/* (END and SUM, the recorder's own records, have no process.) */
	if (h.type == 0 || h.type >= KTR_NTYPES || !min_len[h.type] ||
	    ((!h.pid || !h.tid) &&
	     !((h.type == KTR_END || h.type == KTR_SUM) && !h.pid && !h.tid)) ||
	    h.pers > KTR_PERS_X32 ||
	    h.pid > KTR_PID_LIMIT || h.tid > KTR_PID_LIMIT || !h.ts)
		return 0;
	err = ktr_check_record(buf, avail, len);
	if (err == -ENODATA) {
		*len = h.len;
		return -ENODATA;
	}
	return err == 0 && ktr_record_exact(buf);
}

static uint64_t rec_ts(const char *p)
{
	struct ktr_rec h;

	memcpy(&h, p, sizeof(h));
	return h.ts;
}

/* Whether the bytes at r->start begin a chain of plausible records:
 * 1 yes, 0 no, or a negative errno. */
static int chain_at(struct ktr_reader *r)
{
	size_t pos = 0;
	uint64_t ts0 = 0;

	for (int i = 0; i < KTR_RESYNC_CHAIN; i++) {
		uint32_t len = 0;
		int ok, err;

		if ((err = fill(r, pos + sizeof(struct ktr_rec))))
			return err;
		ok = plausible(r->buf + r->start + pos,
			       r->end - r->start - pos, &len);
		if (ok == -ENODATA && len <= KTR_REC_MAX) {
			if ((err = fill(r, pos + len)))
				return err;
			ok = plausible(r->buf + r->start + pos,
				       r->end - r->start - pos, &len);
		}
		if (ok == -ENODATA)
			/* The file ends inside it: what there was checked. */
			return i > 0 && r->eof;
		if (ok != 1)
			return 0;
		if (i == 0) {
			ts0 = rec_ts(r->buf + r->start);
		} else {
			uint64_t ts = rec_ts(r->buf + r->start + pos);
			uint64_t d = ts > ts0 ? ts - ts0 : ts0 - ts;

			if (d > KTR_RESYNC_SPREAD)
				return 0;
		}
		pos += len;
	}
	return 1;
}

int ktr_reader_resync(struct ktr_reader *r)
{
	for (;;) {
		size_t step;
		int err;

		if ((err = fill(r, 8)))
			return err;
		step = r->end - r->start < 8 ? r->end - r->start : 8;
		sum_add(r, step);
		r->start += step;
		r->offset += step;
		if (step < 8 || r->start == r->end) {
			if ((err = fill(r, 1)))
				return err;
			if (r->start == r->end)
				return 0;
		}
		err = chain_at(r);
		if (err)
			return err < 0 ? err : 1;
	}
}
