// SPDX-License-Identifier: GPL-2.0-only
/* profile provider — profile-N fires on every CPU and tick-N on one, N
 * times a second or every N units (ns us ms s m h d, or hz: the default).
 * Each probe is a software cpu-clock perf event per CPU running a
 * perf_event BPF program. tick-N binds to CPU 0: on these VMs a timer on
 * an idle CPU other than 0 barely fires. arg0 is the kernel PC when the
 * sample interrupted the kernel, arg1 the user PC when it interrupted
 * user code. */
#include "kit.h"
#include "../emit.h"
#include "../../lib/bpf.h"
#include "../../lib/util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>


static const char *const listed[] = {
	"profile-97", "profile-199", "profile-499", "profile-997",
	"profile-1999", "profile-4001", "profile-4999", "tick-1", "tick-10",
	"tick-100", "tick-500", "tick-1000", "tick-5000",
};
#define NLISTED (sizeof(listed) / sizeof(listed[0]))

/* The listed probes, and those made for other rates as named. */
struct state {
	struct dt_ptable fixed;
	struct dt_probe **dynamic;
	size_t ndynamic, dyncap;
};

/* DTrace's profile provider makes no probe firing more often than every
 * 200 us (dtrace-utils' dt_prov_profile.c): such a name matches nothing. */
#define PERIOD_MIN 200000ull

static uint64_t period_of_name(const char *name);

/* "profile-997" -> period in ns; 0 when the name is not a rate. */
static uint64_t period_of(const char *name)
{
	uint64_t period = period_of_name(name);

	return period < PERIOD_MIN ? 0 : period;
}

static uint64_t period_of_name(const char *name)
{
	const char *s;
	char *end;
	uint64_t v, mult;

	if (!strncmp(name, "profile-", 8))
		s = name + 8;
	else if (!strncmp(name, "tick-", 5))
		s = name + 5;
	else
		return 0;
	if (*s < '0' || *s > '9')
		return 0;
	v = strtoull(s, &end, 10);
	if (!v)
		return 0;
	static const struct { const char *u; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 },
		{ "s", 1000000000ull }, { "sec", 1000000000ull },
		{ "m", 60000000000ull }, { "min", 60000000000ull },
		{ "h", 3600000000000ull }, { "hour", 3600000000000ull },
		{ "d", 86400000000000ull }, { "day", 86400000000000ull },
	};
	if (!*end || !strcasecmp(end, "hz")) {
		if (v > 1000000000ull)
			return 0;
		return 1000000000ull / v;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].u))
			continue;
		mult = units[i].ns;
		if (v > UINT64_MAX / mult)
			return 0;
		return v * mult;
	}
	return 0;
}

static struct state *state(struct dt_provs *ps)
{
	struct state *st = dt_provs_state(ps, &dt_prov_profile);

	if (!st->fixed.probes) {
		dt_ptable_init(&st->fixed, &dt_prov_profile, DT_ID_PROFILE, "",
			       listed, sizeof(listed[0]), NLISTED);
		for (size_t i = 0; i < NLISTED; i++)
			st->fixed.probes[i].arg = period_of(listed[i]);
	}
	return st;
}

static void state_free(void *p)
{
	struct state *st = p;

	for (size_t i = 0; i < st->ndynamic; i++) {
		free((char *)st->dynamic[i]->name);
		free(st->dynamic[i]);
	}
	free(st->dynamic);
	dt_ptable_free(&st->fixed);
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int match(struct dt_provs *ps, const struct dt_pdesc *pd,
		 dt_probe_fn fn, void *arg)
{
	struct state *st = state(ps);
	struct dt_probe *fixed = st->fixed.probes;
	int n = 0;

	if (!dt_glob(pd->mod, "") || !dt_glob(pd->func, ""))
		return 0;
	if (!*pd->name || has_glob(pd->name)) {
		n = dt_ptable_match(&st->fixed, pd, fn, arg);
		for (size_t i = 0; i < st->ndynamic; i++)
			if (dt_glob(pd->name, st->dynamic[i]->name))
				n += fn(st->dynamic[i], arg);
		return n;
	}
	for (size_t i = 0; i < NLISTED; i++)
		if (!strcmp(pd->name, fixed[i].name))
			return fn(&fixed[i], arg);
	for (size_t i = 0; i < st->ndynamic; i++)
		if (!strcmp(pd->name, st->dynamic[i]->name))
			return fn(st->dynamic[i], arg);
	uint64_t period = period_of(pd->name);

	if (!period)
		return 0;
	/* A new rate: made on demand, as DTrace does. */
	struct dt_probe *p = sd_calloc(1, sizeof(*p));

	p->id = DT_ID_DYNAMIC + (uint32_t)st->ndynamic;
	p->prov = &dt_prov_profile;
	p->mod = "";
	p->func = "";
	p->name = sd_strdup(pd->name);
	p->arg = period;
	sd_grow(&st->dynamic, &st->dyncap, st->ndynamic + 1,
		sizeof(*st->dynamic));
	st->dynamic[st->ndynamic++] = p;
	return fn(p, arg);
}

static struct dt_probe *by_id(struct dt_provs *ps, uint32_t id)
{
	struct state *st = state(ps);

	if (id >= DT_ID_DYNAMIC && id < DT_ID_DYNAMIC + st->ndynamic)
		return st->dynamic[id - DT_ID_DYNAMIC];
	return dt_ptable_by_id(&st->fixed, id);
}

/* arg0: the kernel PC when the sample interrupted the kernel, else 0;
 * arg1: the user PC when it interrupted user code, else 0. */
static int arg(struct dt_cg *g, int i)
{
	int r, m, keep = dt_label(g);

	if (i > 1)
		return dt_cg_const(g, 0);
	r = dt_cg_ctx(g);
	m = dt_reg(g);
	dt_emit(g, I_LDX(BPF_DW, m, r, dt_ptregs.mode));
	dt_emit(g, I_LDX(BPF_DW, r, r, dt_ptregs.pc));
	dt_emit(g, I_ALU64_IMM(BPF_AND, m, (int32_t)dt_ptregs.mode_mask));
	dt_jmp_imm(g, i == 1 ? BPF_JEQ : BPF_JNE, m,
		   (int32_t)dt_ptregs.mode_user, keep);
	dt_emit(g, I_MOV_IMM(r, 0));
	dt_place(g, keep);
	dt_reg_free(g, m);
	return r;
}

static long perf_open(struct perf_event_attr *a, int cpu)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static int attach(struct dt_unit *u, char *err, size_t len)
{
	bool tick = !strncmp(u->key, "tick-", 5);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	bool *online = sd_calloc((size_t)ncpu, sizeof(bool));
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = u->arg,
		.disabled = 1,
	};
	int ret = 0;

	if (sd_read_cpulist("/sys/devices/system/cpu/online", online,
			    (int)ncpu))
		online[0] = true;
	u->fds = sd_calloc((size_t)ncpu, sizeof(int));
	/* tick-N: the first CPU this process may run on (0 but under
	 * taskset or -x cpu=N, which binds sonde dtrace to CPU N) */
	int tick_cpu = 0;
	cpu_set_t set;

	if (tick && !sched_getaffinity(0, sizeof(set), &set))
		for (int c = 0; c < ncpu && c < CPU_SETSIZE; c++)
			if (online[c] && CPU_ISSET(c, &set)) {
				tick_cpu = c;
				break;
			}
	for (int cpu = 0; cpu < ncpu; cpu++) {
		if (!online[cpu] || (tick && cpu != tick_cpu))
			continue;
		int fd = (int)perf_open(&a, cpu);

		if (fd < 0) {
			ret = -errno;
			snprintf(err, len, "perf_event_open (cpu-clock, CPU %d) "
				 "for %s: %s", cpu, u->key, strerror(errno));
			break;
		}
		u->fds[u->nfds++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, u->prog_fd) ||
		    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
			ret = -errno;
			snprintf(err, len, "attaching %s to CPU %d: %s", u->key,
				 cpu, strerror(errno));
			break;
		}
	}
	free(online);
	return ret;
}

const struct dt_provider dt_prov_profile = {
	.name = "profile",
	.prog_type = BPF_PROG_TYPE_PERF_EVENT,
	.state_size = sizeof(struct state),
	.state_free = state_free,
	.match = match,
	.by_id = by_id,
	.unit_of = dt_kit_unit_by_name,
	.cg_probe_id = dt_kit_probe_id,
	.cg_arg = arg,
	.cg_probestr = dt_cg_probestr_const,
	.attach = attach,
	.needs = { 1 + SBPF_PERF_EVENT },
};
