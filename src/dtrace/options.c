// SPDX-License-Identifier: GPL-2.0-only
/* options — DTrace's run-time options, as -x NAME[=VALUE] or
 * #pragma D option NAME[=VALUE] set them: sizes with k/m/g suffixes,
 * rates in hz or as durations, and the boolean ones. */
#include "ast.h"
#include "../lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dt_options_default(struct dt_options *o)
{
	memset(o, 0, sizeof(*o));
	o->bufsize = 256 << 10;	/* one ring for all CPUs, drained as it fills */
	o->strsize = 256;
	o->aggsize = 4 << 20;
	o->dynvarsize = 1 << 20;
	o->switchrate = 1000000000ull;	/* 1hz, as DTrace */
	o->aggrate = 1000000000ull;
	o->nspec = 1;
	o->specsize = 32 << 10;
	o->scratchsize = 256;	/* as dtrace-utils */
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	case 't': case 'T': v <<= 40; end++; break;
	}
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* A rate: "10hz" or a duration ("100ms"); stored as nanoseconds. */
static int parse_rate(const char *s, uint64_t *out)
{
	size_t n;
	uint64_t hz;
	char buf[32];

	if (!s)
		return -EINVAL;
	n = strlen(s);
	if (n > 2 && n < sizeof(buf) && !strcasecmp(s + n - 2, "hz")) {
		snprintf(buf, sizeof(buf), "%.*s", (int)(n - 2), s);
		if (sd_parse_u64(buf, 1, 1000000000ull, &hz))
			return -EINVAL;
		*out = 1000000000ull / hz;
		return 0;
	}
	if (sd_parse_duration(s, out) || !*out)
		return -EINVAL;
	return 0;
}

static const char *const ignored[] = {
	/* accepted for compatibility; nothing here depends on them */
	"cpu", "cleanrate", "statusrate", "stackframes",
	"ustackframes", "jstackframes", "jstackstrsize", "stackindent",
	"defaultargs", "rawbytes", "zdefs", "linkmode", "temporal",
	"bufpolicy", "bufresize", "aggpercpu", "grabanon", "evaltime",
};

int dt_set_option(struct dt_options *o, const char *name, const char *val,
		  char *err, size_t errlen)
{
	uint64_t v;

	if (!strcmp(name, "quiet") || !strcmp(name, "q")) {
		o->quiet = !val || strcmp(val, "0");
		return 0;
	}
	if (!strcmp(name, "flowindent")) {
		snprintf(err, errlen, "not supported: option flowindent");
		return -EINVAL;
	}
	if (!strcmp(name, "aggsortkey") || !strcmp(name, "aggsortrev")) {
		bool on = !val || strcmp(val, "0");

		if (name[7] == 'k')
			o->aggsortkey = on;
		else
			o->aggsortrev = on;
		return 0;
	}
	if (!strcmp(name, "destructive") || !strcmp(name, "w")) {
		o->destructive = true;
		return 0;
	}
	struct {
		const char *name;
		uint64_t *dst;
		bool rate;
		uint64_t min, max;
	} opts[] = {
		{ "bufsize", &o->bufsize, false, 4096, 1ull << 30 },
		{ "strsize", &o->strsize, false, 8, 4096 },
		{ "aggsize", &o->aggsize, false, 4096, 1ull << 32 },
		{ "dynvarsize", &o->dynvarsize, false, 4096, 1ull << 32 },
		{ "switchrate", &o->switchrate, true, 0, UINT64_MAX },
		{ "aggrate", &o->aggrate, true, 0, UINT64_MAX },
		{ "aggsortpos", &o->aggsortpos, false, 0, 1024 },
		{ "nspec", &o->nspec, false, 1, 256 },
		{ "specsize", &o->specsize, false, 64, 1ull << 30 },
		{ "aggsortkeypos", &o->aggsortkeypos, false, 0, 1024 },
		{ "scratchsize", &o->scratchsize, false, 8, 8192 },
		/* tests: the verifier rejects line N (its message) */
		{ "testreject", &o->testreject, false, 0, INT32_MAX },
	};
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		if (strcmp(opts[i].name, name))
			continue;
		if (opts[i].rate ? parse_rate(val, &v) : parse_size(val, &v)) {
			snprintf(err, errlen, "invalid value '%s' for option "
				 "%s", val ? val : "", name);
			return -EINVAL;
		}
		if (v < opts[i].min || v > opts[i].max) {
			snprintf(err, errlen, "option %s=%s is out of range "
				 "(%llu to %llu)", name, val,
				 (unsigned long long)opts[i].min,
				 (unsigned long long)opts[i].max);
			return -EINVAL;
		}
		*opts[i].dst = v;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
		if (!strcmp(ignored[i], name))
			return 0;
	snprintf(err, errlen, "unknown option '%s'", name);
	return -EINVAL;
}
