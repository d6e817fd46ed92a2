// SPDX-License-Identifier: GPL-2.0-only
/* providers — the table of providers, and probe lookup across them. */
#include "provider.h"

#include <fnmatch.h>
#include <string.h>

static const struct dt_provider *const providers[] = {
	&dt_prov_dtrace, &dt_prov_profile, &dt_prov_syscall, &dt_prov_proc, &dt_prov_sched, &dt_prov_pid, &dt_prov_usdt, &dt_prov_fbt,
};

bool dt_glob(const char *pattern, const char *s)
{
	return !*pattern || fnmatch(pattern, s, 0) == 0;
}

int dt_probes_match(const struct dt_pdesc *pd, dt_probe_fn fn, void *arg)
{
	int total = 0;

	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++) {
		int n;

		if (providers[i]->owns ? !providers[i]->owns(pd->prov) :
		    !dt_glob(pd->prov, providers[i]->name))
			continue;
		n = providers[i]->match(pd, fn, arg);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

struct dt_probe *dt_probe_by_id(uint32_t id)
{
	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++) {
		struct dt_probe *p = providers[i]->by_id(id);

		if (p)
			return p;
	}
	return NULL;
}

const char *dt_probe_field(const struct dt_probe *p, int which)
{
	switch (which) {
	case 0: return p->provname ? p->provname : p->prov->name;
	case 1: return p->mod;
	case 2: return p->func;
	default: return p->name;
	}
}
