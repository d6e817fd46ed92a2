// SPDX-License-Identifier: GPL-2.0-only
/* perf — perf_event_open and the mmap ring buffer reader, plus a parser for
 * PERF_RECORD_SAMPLE bodies and the error text for failed opens. Tools pick
 * their events and sample types; this module knows nothing of what they
 * aggregate. */
#ifndef SONDE_PERF_H
#define SONDE_PERF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags);

/* One mmap'ed ring: a metadata page followed by 2^n data pages. */
struct perf_ring {
	int fd;
	int cpu;
	struct perf_event_mmap_page *meta;
	char *data;
	size_t data_size;
	size_t map_size;
	char *scratch;		/* a record that wraps around is copied here */
	size_t scratch_cap;
	uint64_t head;		/* snapshot taken by perf_ring_begin() */
};

/* Map `pages` (a power of two) data pages of fd. 0 or -errno. */
int perf_ring_map(struct perf_ring *r, int fd, int cpu, size_t pages);
void perf_ring_unmap(struct perf_ring *r);

/* Reading is two-phase so a tool can make several passes over the same
 * records: begin() snapshots the head, next() walks from *pos (start at
 * perf_ring_tail()) to the snapshot, end() releases everything walked. */
void perf_ring_begin(struct perf_ring *r);
uint64_t perf_ring_tail(const struct perf_ring *r);
const struct perf_event_header *perf_ring_next(struct perf_ring *r,
					       uint64_t *pos);
void perf_ring_end(struct perf_ring *r);

/* The fields of a PERF_RECORD_SAMPLE that sonde asks for. */
struct perf_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr;		/* callchain length */
	const uint64_t *chain;	/* points into the record */
	uint16_t misc;
};

/* Parse a sample record for the given attr.sample_type. Supports IP, TID,
 * TIME, ADDR, ID, STREAM_ID, CPU, PERIOD and CALLCHAIN (in the kernel's
 * order); -EINVAL if the record is shorter than the fields claim. */
int perf_parse_sample(const struct perf_event_header *h, uint64_t sample_type,
		      struct perf_sample *s);
/* The sample_id trailer of a side-band record (attr.sample_id_all), for
 * sample types among TID, TIME, ID, STREAM_ID, CPU. */
int perf_parse_sample_id(const struct perf_event_header *h, uint64_t sample_type,
			 struct perf_sample *s);

/* A sentence that explains a failed perf_event_open to the user: the
 * strerror text plus what to do about it. Reads perf_event_paranoid. */
const char *perf_open_error(int err, bool hardware, char *buf, size_t len);

#endif
