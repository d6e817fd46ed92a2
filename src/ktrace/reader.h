// SPDX-License-Identifier: GPL-2.0-only
/* reader — reads sonde trace files (format.h): validates the header and
 * each record's framing on untrusted bytes, from a buffer (ktr_check_*) or
 * incrementally from a file descriptor (struct ktr_reader), keeping a
 * partial record at the end so that a file still being written can be
 * followed. Never trusts a length it has not checked. Prefix ktr_. */
#ifndef SONDE_KTRACE_READER_H
#define SONDE_KTRACE_READER_H

#include "format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Results besides 0: -ENODATA the bytes end early (truncated, or not yet
 * written); -EINVAL not a sonde trace; -EPROTONOSUPPORT a version, byte
 * order or ABI this reader does not know; -EBADMSG corrupt framing. */

/* Check the header in buf[0..len); on success copy it to *h. */
int ktr_check_header(const void *buf, size_t len, struct ktr_file_header *h);
/* Check the record at buf (avail bytes); on success store its length. */
int ktr_check_record(const void *buf, size_t avail, uint32_t *len);
/* Whether a checked record is exactly as long as its fields make it: its
 * fixed part plus its data, rounded up to 8 (a NAMI: its path and NUL).
 * The recorder writes no more; a longer record is a damaged length that
 * hides the records after it. Unknown types are exact. */
bool ktr_record_exact(const struct ktr_rec *r);
/* A sentence for those results. */
const char *ktr_strerror(int err);

/* The syscall ABI (enum sc_abi) of a record's pers (KTR_PERS_*) on a
 * machine whose own is native: -1 when there is none (no 32-bit table for
 * aarch64 yet). */
int ktr_pers_abi(int native, unsigned pers);
/* The syscall ABI of a record in a file with header h. */
int ktr_rec_abi(const struct ktr_file_header *h, const struct ktr_rec *r);

struct ktr_reader {
	int fd;
	char *buf;
	size_t cap, start, end;	/* unread bytes: buf[start..end) */
	uint64_t offset;	/* file offset of buf[start] */
	bool eof;		/* the last read() returned 0 */
	bool strict;		/* ktr_reader_next: a record longer than its
				 * fields make it is corrupt (ktr_record_exact) */
	struct ktr_file_header hdr;
	/* SUM records (format.h) are checked and consumed here, never
	 * returned: the running checksum of the bytes read since the last one
	 * (skipped corrupt bytes included), and what the checks found. */
	uint32_t sum_crc;
	uint64_t sum_bytes;
	uint64_t sum_ok;	/* stretches whose checksum matched */
	uint64_t sum_bad;	/* stretches whose checksum did not */
	uint64_t sum_bad_from, sum_bad_to;	/* the last of those */
	uint64_t sum_uncovered;	/* bytes no check covered (the end of a
				 * recording cut short, then appended to) */
	uint64_t sum_unknown;	/* SUM records of an algorithm not known */
	uint8_t end_unsummed;	/* an END record was read, no SUM since
				 * (1), and records after it (2) */
};

void ktr_reader_init(struct ktr_reader *r, int fd);
void ktr_reader_free(struct ktr_reader *r);
/* Read and check the header: 0 or a negative result. */
int ktr_reader_header(struct ktr_reader *r);
/* The next record: 1 and *rec (valid until the next call; never a SUM:
 * those are checked into the sum_ counters), 0 at the end
 * of the file on a record boundary, or a negative result (-ENODATA: the
 * file ends inside a record at r->offset; calling again reads on, for
 * files being written). */
int ktr_reader_next(struct ktr_reader *r, const struct ktr_rec **rec);
/* After a corrupt record at r->offset (ktr_reader_next said -EBADMSG):
 * move to the next offset, a multiple of 8 past it, that holds a
 * plausible record — its framing checks, its type is known, its ids and
 * timestamp are non-zero, and the records after it (up to 3, or to the
 * end of what the file holds) check too, their timestamps within an hour
 * of its own. Returns 1 (r->offset is there), 0 (none before the end of
 * the file: r->offset is the end, for a file being written call again
 * once it has grown) or a negative errno. */
int ktr_reader_resync(struct ktr_reader *r);
/* The file ends at r->offset (no more will come): a recording that ended
 * has its SUM right after its END record; other records there instead
 * make the stretch since the last SUM damaged (sum_bad). (A file that
 * ends right after the END record was cut short, not damaged.) */
void ktr_reader_eof(struct ktr_reader *r);

#endif
