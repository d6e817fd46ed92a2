// SPDX-License-Identifier: GPL-2.0-only
/* providers — the table of providers, probe lookup across them, and each
 * provider's state in a session. */
#include "kit.h"
#include "../../lib/util.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct dt_provider *const providers[] = {
	&dt_prov_dtrace, &dt_prov_profile, &dt_prov_syscall, &dt_prov_proc,
	&dt_prov_sched, &dt_prov_pid, &dt_prov_usdt, &dt_prov_fbt,
};

struct dt_provs {
	void *state[ARRAY_SIZE(providers)];
	enum dt_errtag fail_tag;	/* a description refused (dt_provs_fail) */
	char fail[256];
};

int dt_provs_fail(struct dt_provs *ps, enum dt_errtag tag, const char *fmt,
		  ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->fail, sizeof(ps->fail), fmt, ap);
	va_end(ap);
	ps->fail_tag = tag;
	return -EDOM;
}

const char *dt_provs_failure(struct dt_provs *ps, enum dt_errtag *tag)
{
	*tag = ps->fail_tag;
	return ps->fail;
}

struct dt_provs *dt_provs_new(void)
{
	return sd_calloc(1, sizeof(struct dt_provs));
}

void dt_provs_free(struct dt_provs *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(providers); i++) {
		if (ps->state[i] && providers[i]->state_free)
			providers[i]->state_free(ps->state[i]);
		free(ps->state[i]);
	}
	free(ps);
}

void *dt_provs_state(struct dt_provs *ps, const struct dt_provider *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(providers); i++) {
		if (providers[i] != p)
			continue;
		if (!ps->state[i])
			ps->state[i] = sd_calloc(1, p->state_size ?
						 p->state_size : 1);
		return ps->state[i];
	}
	return NULL;
}

bool dt_glob(const char *pattern, const char *s)
{
	return !*pattern || fnmatch(pattern, s, 0) == 0;
}

int dt_probes_match(struct dt_provs *ps, const struct dt_pdesc *pd,
		    dt_probe_fn fn, void *arg)
{
	int total = 0;

	for (size_t i = 0; i < ARRAY_SIZE(providers); i++) {
		int n;

		if (providers[i]->owns ? !providers[i]->owns(pd->prov) :
		    !dt_glob(pd->prov, providers[i]->name))
			continue;
		n = providers[i]->match(ps, pd, fn, arg);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

struct dt_probe *dt_probe_by_id(struct dt_provs *ps, uint32_t id)
{
	for (size_t i = 0; i < ARRAY_SIZE(providers); i++) {
		struct dt_probe *p = providers[i]->by_id(ps, id);

		if (p)
			return p;
	}
	return NULL;
}

/* dtrace-utils' stability attributes of its providers: a probe
 * description's (the least of the provider's, module's, function's and
 * name's: Private/Private/Unknown for all of these) and its arguments'. */
void dt_probe_attrs(const struct dt_probe *p, const char *desc[3],
		    const char *args[3])
{
	static const struct {
		const struct dt_provider *prov;
		const char *args[3];
	} t[] = {
		{ &dt_prov_dtrace, { "Stable", "Stable", "Common" } },
		{ &dt_prov_profile, { "Evolving", "Evolving", "Common" } },
		{ &dt_prov_syscall, { "Private", "Private", "ISA" } },
		{ &dt_prov_proc, { "Evolving", "Evolving", "ISA" } },
		{ &dt_prov_sched, { "Evolving", "Evolving", "ISA" } },
		{ &dt_prov_fbt, { "Private", "Private", "ISA" } },
	};

	desc[0] = desc[1] = "Private";
	desc[2] = "Unknown";
	args[0] = args[1] = "Private";	/* pid, usdt */
	args[2] = "Unknown";
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (t[i].prov == p->prov)
			memcpy(args, t[i].args, sizeof(t[i].args));
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
