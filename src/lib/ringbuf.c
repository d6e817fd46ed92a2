// SPDX-License-Identifier: GPL-2.0-only
/* ringbuf — batched consumer of a BPF ring buffer. The layout is the
 * kernel's (kernel/bpf/ringbuf.c, as libbpf maps it): a page holding the
 * consumer position (ours to write), then a page holding the producer
 * position followed by the data area, mapped twice in a row so that a
 * record wrapping around the end reads as one piece. Each record starts
 * with an 8-byte header: its length, with a busy bit while the producer
 * writes it and a discard bit if it gave it up. */
#include "ringbuf.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

struct ringbuf {
	int epfd;
	int kickfd;		/* eventfd: ringbuf_kick() */
	size_t page, size;
	uint64_t *cons_pos;	/* read-write page */
	const uint64_t *prod_pos;	/* read-only: page, then data twice */
	const char *data;
	uint64_t mask;
};

struct ringbuf *ringbuf_open(int map_fd, size_t size)
{
	struct ringbuf *r = calloc(1, sizeof(*r));
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	void *p;
	int err;

	if (!r)
		return NULL;
	if (!size || size & (size - 1)) {
		free(r);
		errno = EINVAL;
		return NULL;
	}
	r->page = sysconf(_SC_PAGESIZE);
	r->size = size;
	r->mask = size - 1;
	r->cons_pos = MAP_FAILED;
	r->prod_pos = MAP_FAILED;
	r->kickfd = -1;
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0)
		goto fail;
	r->kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->kickfd < 0 ||
	    epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->kickfd, &ev))
		goto fail;
	p = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	r->cons_pos = p;
	p = mmap(NULL, r->page + 2 * size, PROT_READ, MAP_SHARED, map_fd,
		 r->page);
	if (p == MAP_FAILED)
		goto fail;
	r->prod_pos = p;
	r->data = (const char *)p + r->page;
	/* Edge-triggered: a wait ends on a wake-up, not on data present. */
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, map_fd, &ev))
		goto fail;
	return r;
fail:
	err = errno;
	ringbuf_close(r);
	errno = err;
	return NULL;
}

void ringbuf_close(struct ringbuf *r)
{
	if (!r)
		return;
	if (r->prod_pos != MAP_FAILED)
		munmap((void *)r->prod_pos, r->page + 2 * r->size);
	if (r->cons_pos != MAP_FAILED)
		munmap(r->cons_pos, r->page);
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->kickfd >= 0)
		close(r->kickfd);
	free(r);
}

long ringbuf_drain(struct ringbuf *r, ringbuf_fn fn, void *ctx)
{
	uint64_t cons = __atomic_load_n(r->cons_pos, __ATOMIC_RELAXED);
	uint64_t prod = __atomic_load_n(r->prod_pos, __ATOMIC_ACQUIRE);
	long n = 0;
	int err = 0;

	while (cons < prod) {
		const uint32_t *hdr = (const void *)(r->data + (cons & r->mask));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

		if (len & BPF_RINGBUF_BUSY_BIT)
			break;		/* still being written: later */
		if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
			err = fn(ctx, (const char *)hdr + BPF_RINGBUF_HDR_SZ,
				 len);
			if (err < 0)
				break;
			n++;
		}
		len &= ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
		cons += (len + BPF_RINGBUF_HDR_SZ + 7) & ~7ull;
	}
	__atomic_store_n(r->cons_pos, cons, __ATOMIC_RELEASE);
	return err < 0 ? err : n;
}

int ringbuf_wait(struct ringbuf *r, int timeout_ms)
{
	struct epoll_event ev;
	int n = epoll_wait(r->epfd, &ev, 1, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 1 : -errno;
	return n > 0;
}

void ringbuf_kick(struct ringbuf *r)
{
	uint64_t one = 1;

	if (write(r->kickfd, &one, sizeof(one)) < 0) {
		/* (the counter is full: a wake-up is pending anyway) */
	}
}
