// SPDX-License-Identifier: GPL-2.0-only
/* perf — perf_event_open wrapper and mmap ring buffer reader. See perf.h. */
#include "perf.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			  flags | PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

int perf_ring_map(struct perf_ring *r, int fd, int cpu, size_t pages)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	memset(r, 0, sizeof(*r));
	if (pages == 0 || (pages & (pages - 1)))
		return -EINVAL;
	r->map_size = (pages + 1) * psz;
	p = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->fd = fd;
	r->cpu = cpu;
	r->meta = p;
	r->data = (char *)p + psz;
	r->data_size = pages * psz;
	return 0;
}

void perf_ring_unmap(struct perf_ring *r)
{
	if (r->meta)
		munmap(r->meta, r->map_size);
	free(r->scratch);
	r->meta = NULL;
	r->scratch = NULL;
}

void perf_ring_begin(struct perf_ring *r)
{
	r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
}

uint64_t perf_ring_tail(const struct perf_ring *r)
{
	return r->meta->data_tail;
}

const struct perf_event_header *perf_ring_next(struct perf_ring *r,
					       uint64_t *pos)
{
	const struct perf_event_header *h;
	size_t mask = r->data_size - 1, off, size;

	if (*pos >= r->head)
		return NULL;
	off = *pos & mask;
	h = (const void *)(r->data + off);
	size = h->size;
	if (size < sizeof(*h) || size > r->head - *pos) {
		/* A corrupt header: skip everything up to the head. */
		*pos = r->head;
		return NULL;
	}
	if (off + size > r->data_size) {
		size_t first = r->data_size - off;

		sd_grow(&r->scratch, &r->scratch_cap, size, 1);
		memcpy(r->scratch, r->data + off, first);
		memcpy(r->scratch + first, r->data, size - first);
		h = (const void *)r->scratch;
	}
	*pos += size;
	return h;
}

void perf_ring_end(struct perf_ring *r)
{
	__atomic_store_n(&r->meta->data_tail, r->head, __ATOMIC_RELEASE);
}

struct cursor {
	const char *p, *end;
};

static int take(struct cursor *c, void *out, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return -EINVAL;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	return 0;
}

int perf_parse_sample(const struct perf_event_header *h, uint64_t st,
		      struct perf_sample *s)
{
	struct cursor c = { (const char *)(h + 1), (const char *)h + h->size };
	uint32_t pair[2];
	uint64_t v;

	memset(s, 0, sizeof(*s));
	s->misc = h->misc;
	if (st & PERF_SAMPLE_IDENTIFIER && take(&c, &s->id, 8))
		return -EINVAL;
	if (st & PERF_SAMPLE_IP && take(&c, &s->ip, 8))
		return -EINVAL;
	if (st & PERF_SAMPLE_TID) {
		if (take(&c, pair, 8))
			return -EINVAL;
		s->pid = pair[0];
		s->tid = pair[1];
	}
	if (st & PERF_SAMPLE_TIME && take(&c, &s->time, 8))
		return -EINVAL;
	if (st & PERF_SAMPLE_ADDR && take(&c, &s->addr, 8))
		return -EINVAL;
	if (st & PERF_SAMPLE_ID && take(&c, &s->id, 8))
		return -EINVAL;
	if (st & PERF_SAMPLE_STREAM_ID && take(&c, &v, 8))
		return -EINVAL;
	if (st & PERF_SAMPLE_CPU) {
		if (take(&c, pair, 8))
			return -EINVAL;
		s->cpu = pair[0];
	}
	if (st & PERF_SAMPLE_PERIOD && take(&c, &s->period, 8))
		return -EINVAL;
	if (st & PERF_SAMPLE_READ)
		return -EINVAL;	/* not supported: layout depends on read_format */
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (take(&c, &s->nr, 8))
			return -EINVAL;
		if (s->nr > (size_t)(c.end - c.p) / 8)
			return -EINVAL;
		s->chain = (const uint64_t *)c.p;
		c.p += s->nr * 8;
	}
	return 0;
}

int perf_parse_sample_id(const struct perf_event_header *h, uint64_t st,
			 struct perf_sample *s)
{
	size_t n = 0;
	const char *end = (const char *)h + h->size;
	struct cursor c;
	uint32_t pair[2];
	uint64_t v;

	memset(s, 0, sizeof(*s));
	n += !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
	     !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
	     !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER);
	if (h->size < sizeof(*h) + n * 8)
		return -EINVAL;
	c.p = end - n * 8;
	c.end = end;
	if (st & PERF_SAMPLE_TID) {
		take(&c, pair, 8);
		s->pid = pair[0];
		s->tid = pair[1];
	}
	if (st & PERF_SAMPLE_TIME)
		take(&c, &s->time, 8);
	if (st & PERF_SAMPLE_ID)
		take(&c, &s->id, 8);
	if (st & PERF_SAMPLE_STREAM_ID)
		take(&c, &v, 8);
	if (st & PERF_SAMPLE_CPU) {
		take(&c, pair, 8);
		s->cpu = pair[0];
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		take(&c, &s->id, 8);
	return 0;
}

const char *perf_open_error(int err, bool hardware, char *buf, size_t len)
{
	char *par = sd_read_file("/proc/sys/kernel/perf_event_paranoid", NULL);
	int paranoid = par ? atoi(par) : 2;

	free(par);
	err = err < 0 ? -err : err;
	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(buf, len, "%s (need root or CAP_PERFMON; "
			 "kernel.perf_event_paranoid is %d)",
			 strerror(err), paranoid);
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		snprintf(buf, len, "%s (%s)", strerror(err),
			 hardware ? "this machine has no hardware PMU for this "
				    "event; use the default cpu-clock"
				  : "this kernel does not support the event");
		break;
	case EMFILE:
		snprintf(buf, len, "%s (raise the limit with ulimit -n)",
			 strerror(err));
		break;
	case EINVAL:
		snprintf(buf, len, "%s (the kernel rejected the sampling "
			 "parameters; kernel.perf_event_max_sample_rate may be "
			 "lower than the requested rate)", strerror(err));
		break;
	case ENOSYS:
		snprintf(buf, len, "%s (this kernel has no perf_event support)",
			 strerror(err));
		break;
	default:
		snprintf(buf, len, "%s", strerror(err));
	}
	return buf;
}
