// SPDX-License-Identifier: GPL-2.0-only
/* data — the store behind `sonde hot`: call chains interned by their frames
 * with a count each, and the table of user-space frames (file, offset) they
 * point into. See data.h. */
#include "data.h"
#include "../lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hot_data_init(struct hot_data *d)
{
	memset(d, 0, sizeof(*d));
	d->sym = symbolizer_new(0);
}

void hot_data_free(struct hot_data *d)
{
	for (size_t i = 0; i < d->chains.cap; i++)
		free(d->chains.slots[i].val);
	htab_free(&d->chains);
	for (size_t i = 0; i < d->comms.cap; i++)
		free(d->comms.slots[i].val);
	htab_free(&d->comms);
	htab_free(&d->uindex);
	free(d->uframes);
	symbolizer_free(d->sym);
}

struct chain_key {
	const uint64_t *f;
	uint32_t n, cpu;
	pid_t pid, tid;
};

static bool chain_eq(const void *val, const void *key)
{
	const struct hot_chain *c = val;
	const struct chain_key *k = key;

	return c->n == k->n && c->cpu == k->cpu && c->pid == k->pid &&
	       c->tid == k->tid && memcmp(c->f, k->f, k->n * sizeof(*k->f)) == 0;
}

void hot_data_add_at(struct hot_data *d, const uint64_t *f, uint32_t n,
		     uint32_t cpu, pid_t pid, pid_t tid)
{
	struct chain_key key = { f, n, cpu, pid, tid };
	uint64_t h = hash_bytes(f, n * sizeof(*f),
				n ^ hash_u64((uint64_t)cpu << 32 ^
					     (uint32_t)pid ^ (uint64_t)tid << 40));
	struct hot_chain *c = htab_get(&d->chains, h, chain_eq, &key);

	if (!c) {
		c = sd_malloc(sizeof(*c) + n * sizeof(*f));
		c->count = 0;
		c->cpu = cpu;
		c->pid = pid;
		c->tid = tid;
		c->n = n;
		memcpy(c->f, f, n * sizeof(*f));
		htab_put(&d->chains, h, c);
	}
	c->count++;
}

void hot_data_add(struct hot_data *d, const uint64_t *f, uint32_t n)
{
	hot_data_add_at(d, f, n, 0, 0, 0);
}

static bool comm_eq(const void *val, const void *key)
{
	return ((const struct hot_comm *)val)->tid == *(const pid_t *)key;
}

const char *hot_data_comm(struct hot_data *d, pid_t pid, pid_t tid,
			  const char *comm)
{
	uint64_t h = hash_u64((uint64_t)(uint32_t)tid);
	struct hot_comm *c = htab_get(&d->comms, h, comm_eq, &tid);

	if (!c) {
		c = sd_calloc(1, sizeof(*c));
		c->tid = tid;
		htab_put(&d->comms, h, c);
		if (!comm) {
			char path[64], *s;

			snprintf(path, sizeof(path), "/proc/%d/task/%d/comm",
				 (int)pid, (int)tid);
			s = tid ? sd_read_file(path, NULL) : NULL;
			snprintf(c->comm, sizeof(c->comm), "%s",
				 s ? s : tid ? "?" : "swapper");
			c->comm[strcspn(c->comm, "\n")] = '\0';
			free(s);
		}
	}
	if (comm)
		snprintf(c->comm, sizeof(c->comm), "%s", comm);
	return c->comm;
}

struct uframe_key {
	const struct hot_data *d;
	struct hot_uframe u;
};

/* uindex stores index + 1 as its pointer value. */
static bool uframe_eq(const void *val, const void *key)
{
	const struct uframe_key *k = key;
	const struct hot_uframe *u = &k->d->uframes[(uintptr_t)val - 1];

	return u->file == k->u.file && u->off == k->u.off &&
	       u->pid == k->u.pid;
}

uint64_t hot_data_uframe(struct hot_data *d, pid_t pid, uint64_t addr,
			 uint64_t t)
{
	struct uframe_key key = { d, { PROCMAPS_ANON, pid, addr } };
	uint64_t h;
	void *v;

	/* anonymous code keeps its address and process (a JIT's perf map
	 * names it); code in a file, the file and offset */
	if (procmaps_find(symbolizer_maps(d->sym), pid, addr, t, &key.u.file,
			  &key.u.off))
		key.u.pid = 0;
	else
		key.u = (struct hot_uframe){ PROCMAPS_ANON, pid, addr };
	h = hash_u64(key.u.off ^ ((uint64_t)key.u.file << 44) ^
		     ((uint64_t)(uint32_t)key.u.pid << 20));
	v = htab_get(&d->uindex, h, uframe_eq, &key);
	if (!v) {
		sd_grow(&d->uframes, &d->capuframes, d->nuframes + 1,
			sizeof(*d->uframes));
		d->uframes[d->nuframes++] = key.u;
		v = (void *)(uintptr_t)d->nuframes;
		htab_put(&d->uindex, h, v);
	}
	return HOT_USER_TAG | ((uintptr_t)v - 1);
}
