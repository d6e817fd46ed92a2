// SPDX-License-Identifier: GPL-2.0-only
/* ringbuf — a consumer of one BPF ring buffer (BPF_MAP_TYPE_RINGBUF) for
 * high record rates, where libbpf's ring_buffer__poll() costs too much:
 * libbpf publishes its position after every record (the producers, which
 * read it at every reservation, then miss in their cache each time) and
 * waits level-triggered (a consumer that keeps up never sleeps, so it
 * takes records one by one). Here a drain publishes its position once,
 * after every record it took, and a wait ends only when a producer forces
 * a wake-up (BPF_RB_FORCE_WAKEUP) or on its timeout: the producers choose
 * when the consumer works. Prefix ringbuf_. */
#ifndef SONDE_RINGBUF_H
#define SONDE_RINGBUF_H

#include <stddef.h>

struct ringbuf;

/* Map the ring buffer map_fd of size bytes (its max_entries). NULL and
 * errno set on failure. */
struct ringbuf *ringbuf_open(int map_fd, size_t size);
void ringbuf_close(struct ringbuf *r);

/* Hand every committed record, in order, to fn (data and the length the
 * producer reserved), up to the first one still being written; then give
 * their space back at once. The records seen, or fn's negative return
 * (the records before it are given back). */
typedef int (*ringbuf_fn)(void *ctx, const void *data, size_t len);
long ringbuf_drain(struct ringbuf *r, ringbuf_fn fn, void *ctx);

/* Sleep until a producer forces a wake-up or timeout_ms pass (records
 * written meanwhile without one do not end it). 1 when woken, 0 when the
 * time passed, or -errno. */
int ringbuf_wait(struct ringbuf *r, int timeout_ms);

/* End a ringbuf_wait() now or the next one at once (it returns 1): from
 * another thread, e.g. to make the consumer drain a last time and stop. */
void ringbuf_kick(struct ringbuf *r);

#endif
