// SPDX-License-Identifier: GPL-2.0-only
/* snapshot — a running D program's counters read as numbers (see
 * snapshot.h; the aggregation walk itself is consume.c's, so entries merge
 * exactly as printa() merges them). */
#include "snapshot.h"
#include "cg.h"
#include "../lib/util.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int dt_drop_counts(struct dt_session *s, struct dt_drops *d)
{
	size_t vsz = ((size_t)s->scratch_size + 7) & ~(size_t)7;
	int ncpu = s->possible_cpus;
	uint32_t zero = 0;
	uint8_t *vals;

	memset(d, 0, sizeof(*d));
	d->specdrops = s->specdrops;
	d->errors = s->errors;
	if (!s->map_fds || s->nmaps <= DT_MAP_SCRATCH ||
	    s->map_fds[DT_MAP_SCRATCH] < 0 || vsz < sizeof(struct dt_counters))
		return -ENOENT;
	vals = sd_calloc((size_t)ncpu, vsz);
	if (bpf_map_lookup_elem(s->map_fds[DT_MAP_SCRATCH], &zero, vals)) {
		int err = -errno;

		free(vals);
		return err;
	}
	for (int c = 0; c < ncpu; c++) {
		struct dt_counters ct;

		memcpy(&ct, vals + (size_t)c * vsz, sizeof(ct));
		d->drops += ct.drops;
		d->aggdrops += ct.aggdrops;
		d->dyndrops += ct.dyndrops;
	}
	free(vals);
	return 0;
}

int dt_attached(const struct dt_session *s)
{
	int n = 0;

	for (int i = 0; i < s->nunits; i++)
		n += s->units[i]->nfds;
	return n;
}

uint32_t dt_agg_capacity(const struct dt_session *s, const struct dt_var *v)
{
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	int i = DT_MAP_FIRST_VAR + v->map;

	if (!s->map_fds || i >= s->nmaps || s->map_fds[i] < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(s->map_fds[i], &info, &len))
		return 0;
	return info.max_entries;
}
