// SPDX-License-Identifier: GPL-2.0-only
/* options — DTrace's options, as -x NAME[=VALUE], #pragma D option
 * NAME[=VALUE] and the flags that stand for them (-b, -q, -w, -Z, -C...)
 * set them: one table row per option dtrace(1) knows, each parsed as
 * dtrace-utils parses it (sizes with k/m/g/t suffixes, rates in hz or as
 * durations, yes/no words for the run-time ones, compiler flags that take
 * no value). What sonde honours is in struct dt_options; the rest are
 * accepted and checked as DTrace checks them, and sonde-dtrace(1) says
 * which do nothing on Linux. */
#include "ast.h"
#include "../lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	o->scratchsize = 8 + 256;	/* as dtrace-utils */
	o->cpu = -1;
	o->version = DT_VERSION(2, 0, 1);
	o->stackindent = 14;
	o->evaltime = DT_EVAL_POSTINIT;	/* as dtrace-utils */
	o->tregs = 8;		/* DIF_DTR_NREGS */
}

void dt_options_free(struct dt_options *o)
{
	for (int i = 0; i < o->ncppopts; i++)
		free(o->cppopts[i]);
	free(o->cppopts);
	for (int i = 0; i < o->nlibdirs; i++)
		free(o->libdirs[i]);
	free(o->libdirs);
	o->cppopts = NULL;
	o->libdirs = NULL;
	o->ncppopts = o->nlibdirs = 0;
}

/* dtrace-utils' dt_optval_parse: a number with an optional k/m/g/t
 * multiplier; no sign. */
static int parse_size(const char *s, uint64_t *out)
{
	size_t n;
	int shift = 0;
	char *end;
	uint64_t v;

	if (!s || !*s)
		return -EINVAL;
	n = strlen(s);
	switch (s[n - 1]) {
	case 't': case 'T': shift = 40; break;
	case 'g': case 'G': shift = 30; break;
	case 'm': case 'M': shift = 20; break;
	case 'k': case 'K': shift = 10; break;
	}
	if (*s == '-' || strtoll(s, NULL, 0) < 0)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || (shift ? end != s + n - 1 : *end != '\0'))
		return -EINVAL;
	if (shift && v > UINT64_MAX >> shift)
		return -EINVAL;
	*out = v << shift;
	return 0;
}

/* A rate: a number of nanoseconds with a unit ("10ms", "2s", "1min") or a
 * frequency ("10hz"); stored as nanoseconds (dtrace-utils' dt_opt_rate). */
static int parse_rate(const char *s, uint64_t *out)
{
	static const struct {
		const char *name;
		uint64_t mul;	/* 0: hz */
	} units[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
		{ "ms", 1000000 }, { "msec", 1000000 },
		{ "s", 1000000000ull }, { "sec", 1000000000ull },
		{ "m", 60000000000ull }, { "min", 60000000000ull },
		{ "h", 3600000000000ull }, { "hour", 3600000000000ull },
		{ "d", 86400000000000ull }, { "day", 86400000000000ull },
		{ "hz", 0 },
	};
	uint64_t mul = 1, v;
	char *end;

	if (!s || !*s || *s == '-' || strtoll(s, NULL, 0) < 0)
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	if (*end) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (!strcasecmp(units[i].name, end))
				break;
		if (i == ARRAY_SIZE(units))
			return -EINVAL;
		mul = units[i].mul;
	}
	if (!mul)
		v = v ? 1000000000ull / v : 0;
	else
		v *= mul;
	*out = v;
	return 0;
}

/* A run-time option's value: absent (set), a number, or a yes/no word;
 * 0 unsets it (dtrace-utils' dt_opt_runtime). */
static int parse_runtime(const char *s, uint64_t *out)
{
	static const char *const yes[] = { "yes", "enable", "enabled", "true",
					   "on", "set" };
	static const char *const no[] = { "no", "disable", "disabled", "false",
					  "off", "unset" };
	char *end;

	if (!s) {
		*out = 1;
		return 0;
	}
	if (!*s) {
		*out = 0;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	if (*s == '-' || strtoll(s, NULL, 0) < 0)
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

/* "2.0", "1.6.3": DT_VERSION, or -EINVAL. Versions DTrace defined. */
static int parse_version(const char *s, uint32_t *out)
{
	static const uint32_t known[] = {
		DT_VERSION(1, 0, 0), DT_VERSION(1, 1, 0), DT_VERSION(1, 2, 0),
		DT_VERSION(1, 2, 1), DT_VERSION(1, 2, 2), DT_VERSION(1, 3, 0),
		DT_VERSION(1, 4, 0), DT_VERSION(1, 4, 1), DT_VERSION(1, 5, 0),
		DT_VERSION(1, 6, 0), DT_VERSION(1, 6, 1), DT_VERSION(1, 6, 2),
		DT_VERSION(1, 6, 3), DT_VERSION(1, 6, 4), DT_VERSION(2, 0, 0),
		DT_VERSION(2, 0, 1),
	};
	unsigned long part[3] = { 0, 0, 0 };
	const char *p = s;
	int n = 0;

	if (!s)
		return -EINVAL;
	while (n < 3) {
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		part[n++] = strtoul(p, &end, 10);
		p = end;
		if (!*p)
			break;
		if (*p++ != '.')
			return -EINVAL;
	}
	if (*p || n < 2 || part[0] > 255 || part[1] > 4095 || part[2] > 4095)
		return -EINVAL;
	*out = DT_VERSION(part[0], part[1], part[2]);
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (known[i] == *out)
			return 0;
	return -ERANGE;
}

static void add_word(char ***list, int *n, const char *prefix, const char *w)
{
	size_t len = strlen(prefix) + strlen(w) + 1;
	char *s = sd_malloc(len);

	snprintf(s, len, "%s%s", prefix, w);
	*list = sd_realloc(*list, sizeof(**list) * (*n + 1));
	(*list)[(*n)++] = s;
}

enum kind {
	K_SIZE,		/* bytes with a k/m/g/t suffix */
	K_RATE,		/* nanoseconds or hz */
	K_RUNTIME,	/* a number or yes/no; bare: set */
	K_FLAG,		/* a compiler flag: no value */
	K_NOFLAG,	/* a flag that clears another (kdefs, udefs) */
	K_STRING,	/* any text */
	K_CPPOPT,	/* -D, -U, -I given as define=, undef=, incdir= */
	K_LIBDIR,
	K_VERSION,
	K_EVALTIME,
	K_BUFPOLICY,
	K_BUFRESIZE,
	K_STDC,
	K_LINKMODE,
	K_LINKTYPE,
	K_IGNORED,	/* a run-time option with no meaning here */
};

bool dt_option_cmdline_only(const char *name)
{
	static const char *const only[] = {
		"cppargs", "cpphdrs", "cpppath", "ctfpath", "define", "incdir",
		"ldpath", "lockmem", "modpath", "procfspath", "stdc", "undef",
	};

	for (size_t i = 0; i < sizeof(only) / sizeof(only[0]); i++)
		if (!strcmp(name, only[i]))
			return true;
	return false;
}

#define OFF(f) offsetof(struct dt_options, f)
#define NONE ((size_t)-1)

static const struct option {
	const char *name;
	enum kind kind;
	size_t off;		/* the field, or NONE */
	uint8_t width;		/* bool (1) or uint64_t (8) fields */
	uint64_t min;		/* sonde's lower bound (sizes) */
	const char *prefix;	/* K_CPPOPT */
} options[] = {
	/* compiler options: dtrace-utils' _dtrace_ctoptions */
	{ "aggpercpu", K_FLAG, OFF(aggpercpu), 1 },
	{ "amin", K_STRING, NONE },
	{ "argref", K_FLAG, OFF(argref), 1 },
	{ "core", K_FLAG, NONE },
	{ "cpp", K_FLAG, OFF(cpp), 1 },
	{ "cppargs", K_STRING, OFF(cppargs) },
	{ "cpphdrs", K_FLAG, OFF(cpphdrs), 1 },
	{ "cpppath", K_STRING, OFF(cpppath) },
	{ "ctypes", K_STRING, NONE },
	{ "ctfpath", K_STRING, NONE },
	{ "defaultargs", K_FLAG, OFF(defaultargs), 1 },
	{ "debug", K_FLAG, NONE },
	{ "debugassert", K_STRING, NONE },
	{ "define", K_CPPOPT, NONE, 0, 0, "-D" },
	{ "disasm", K_RUNTIME, OFF(disasm), 8 },
	{ "dofstashpath", K_STRING, NONE },
	{ "droptags", K_FLAG, OFF(droptags), 1 },
	{ "dtypes", K_STRING, NONE },
	{ "empty", K_FLAG, OFF(empty), 1 },
	{ "errtags", K_FLAG, OFF(errtags), 1 },
	{ "evaltime", K_EVALTIME, NONE },
	{ "incdir", K_CPPOPT, NONE, 0, 0, "-I" },
	{ "iregs", K_RUNTIME, OFF(iregs), 8 },
	{ "kdefs", K_NOFLAG, OFF(knodefs), 1 },
	{ "knodefs", K_FLAG, OFF(knodefs), 1 },
	{ "late", K_STRING, NONE },
	{ "lazyload", K_FLAG, NONE },
	{ "ldpath", K_STRING, OFF(ldpath) },
	{ "libdir", K_LIBDIR, NONE },
	{ "linkmode", K_LINKMODE, OFF(linkmode) },
	{ "linktype", K_LINKTYPE, OFF(linktype) },
	{ "linknommap", K_FLAG, NONE },
	{ "modpath", K_STRING, NONE },
	{ "nolibs", K_FLAG, OFF(nolibs), 1 },
	{ "pgmax", K_SIZE, NONE },
	{ "preallocate", K_SIZE, NONE },
	{ "procfspath", K_STRING, NONE },
	{ "pspec", K_FLAG, OFF(pspec), 1 },
	{ "stdc", K_STDC, OFF(stdc) },
	{ "strip", K_FLAG, NONE },
	{ "syslibdir", K_STRING, NONE },
	{ "sysslice", K_STRING, NONE },
	{ "tree", K_RUNTIME, OFF(tree), 8 },
	{ "tregs", K_RUNTIME, OFF(tregs), 8 },
	{ "udefs", K_NOFLAG, OFF(unodefs), 1 },
	{ "undef", K_CPPOPT, NONE, 0, 0, "-U" },
	{ "unodefs", K_FLAG, OFF(unodefs), 1 },
	{ "useruid", K_STRING, NONE },
	{ "verbose", K_FLAG, NONE },
	{ "version", K_VERSION, NONE },
	{ "zdefs", K_FLAG, OFF(zdefs), 1 },
	/* run-time options: _dtrace_rtoptions and _dtrace_drtoptions */
	{ "aggsize", K_SIZE, OFF(aggsize), 8, 1 },
	{ "bpflog", K_RUNTIME, OFF(bpflog), 8 },
	{ "bpflogsize", K_SIZE, OFF(bpflogsize), 8 },
	{ "bufsize", K_SIZE, OFF(bufsize), 8, 1 },
	{ "bufpolicy", K_BUFPOLICY, NONE },
	{ "bufresize", K_BUFRESIZE, NONE },
	{ "cleanrate", K_RATE, OFF(cleanrate), 8 },
	{ "cpu", K_RUNTIME, NONE },
	{ "destructive", K_RUNTIME, OFF(destructive), 1 },
	{ "dynvarsize", K_SIZE, OFF(dynvarsize), 8, 1 },
	{ "grabanon", K_IGNORED, NONE },
	{ "jstackframes", K_RUNTIME, OFF(jstackframes), 8 },
	{ "jstackstrsize", K_SIZE, OFF(jstackstrsize), 8 },
	{ "lockmem", K_SIZE, OFF(lockmem), 8 },
	{ "maxframes", K_RUNTIME, OFF(maxframes), 8 },
	{ "nspec", K_RUNTIME, OFF(nspec), 8 },
	{ "pcapsize", K_SIZE, OFF(pcapsize), 8 },
	{ "scratchsize", K_SIZE, OFF(scratchsize), 8 },
	{ "specsize", K_SIZE, OFF(specsize), 8 },
	{ "stackframes", K_RUNTIME, OFF(stackframes), 8 },
	{ "statusrate", K_RATE, OFF(statusrate), 8 },
	{ "strsize", K_SIZE, OFF(strsize), 8, 2 },
	/* tests only: the verifier refuses the code of line N */
	{ "testreject", K_SIZE, OFF(testreject), 0 },
	{ "ustackframes", K_RUNTIME, OFF(ustackframes), 8 },
	{ "noresolve", K_RUNTIME, OFF(noresolve), 1 },
	{ "aggrate", K_RATE, OFF(aggrate), 8 },
	{ "aggsortkey", K_RUNTIME, OFF(aggsortkey), 1 },
	{ "aggsortkeypos", K_RUNTIME, OFF(aggsortkeypos), 8 },
	{ "aggsortpos", K_RUNTIME, OFF(aggsortpos), 8 },
	{ "aggsortrev", K_RUNTIME, OFF(aggsortrev), 1 },
	{ "flowindent", K_RUNTIME, OFF(flowindent), 1 },
	{ "quiet", K_RUNTIME, OFF(quiet), 1 },
	{ "quietresize", K_RUNTIME, OFF(quietresize), 1 },
	{ "rawbytes", K_RUNTIME, OFF(rawbytes), 1 },
	{ "stackindent", K_RUNTIME, OFF(stackindent), 8 },
	{ "switchrate", K_RATE, OFF(switchrate), 8 },
	{ "printsize", K_SIZE, OFF(printsize), 8 },
};

static void store(struct dt_options *o, const struct option *op, uint64_t v)
{
	char *f = (char *)o + op->off;

	if (op->off == NONE)
		return;
	if (op->width == 1)
		*(bool *)f = v != 0;
	else
		*(uint64_t *)f = v;
}

static int bad_value(char *err, size_t errlen)
{
	snprintf(err, errlen, "Invalid value for specified option");
	return -EINVAL;
}

int dt_set_option(struct dt_options *o, const char *name, const char *val,
		  char *err, size_t errlen)
{
	const struct option *op = NULL;
	uint64_t v = 0;
	uint32_t ver;
	int r;

	/* sonde's short spellings, kept for earlier scripts */
	if (!strcmp(name, "q"))
		name = "quiet";
	else if (!strcmp(name, "w"))
		name = "destructive";
	for (size_t i = 0; i < ARRAY_SIZE(options) && !op; i++)
		if (!strcmp(options[i].name, name))
			op = &options[i];
	if (!op) {
		snprintf(err, errlen, "Invalid option name");
		return -ENOENT;
	}
	switch (op->kind) {
	case K_FLAG:
	case K_NOFLAG:
		if (val)
			return bad_value(err, errlen);
		store(o, op, op->kind == K_FLAG);
		return 0;
	case K_SIZE:
		if (!val)
			v = 0;
		else if (parse_size(val, &v))
			return bad_value(err, errlen);
		if (op->min && v < op->min)
			return bad_value(err, errlen);
		if (!strcmp(name, "strsize") && v >= UINT16_MAX)
			return bad_value(err, errlen);
		if (!strcmp(name, "scratchsize") && v)
			v = (v + 8 + 7) & ~7ull;
		store(o, op, v);
		return 0;
	case K_RATE:
		if (val && parse_rate(val, &v))
			return bad_value(err, errlen);
		store(o, op, v);
		return 0;
	case K_RUNTIME:
		if (parse_runtime(val, &v))
			return bad_value(err, errlen);
		/* dtrace-utils' dt_opt_iregs: 8 registers, no fewer */
		if (!strcmp(name, "iregs") && (!v || v > 8))
			return bad_value(err, errlen);
		if (!strcmp(name, "iregs") && v < 8) {
			snprintf(err, errlen, "Insufficient registers to "
				 "generate code");
			return -EINVAL;
		}
		if (!strcmp(name, "cpu"))
			o->cpu = val && *val ? (int64_t)v : -1;
		store(o, op, v);
		return 0;
	case K_IGNORED:
		if (parse_runtime(val, &v))
			return bad_value(err, errlen);
		return 0;
	case K_STRING:
		if (!val)
			return bad_value(err, errlen);
		if (op->off != NONE)
			*(const char **)((char *)o + op->off) = val;
		return 0;
	case K_CPPOPT:
		if (!val || !*val)
			return bad_value(err, errlen);
		add_word(&o->cppopts, &o->ncppopts, op->prefix, val);
		return 0;
	case K_LIBDIR:
		if (!val || !*val)
			return bad_value(err, errlen);
		add_word(&o->libdirs, &o->nlibdirs, "", val);
		return 0;
	case K_VERSION:
		if (!val)
			return bad_value(err, errlen);
		r = parse_version(val, &ver);
		if (r == -ERANGE) {
			snprintf(err, errlen, "Requested version is not "
				 "supported by compiler");
			return -EINVAL;
		}
		if (r) {
			snprintf(err, errlen, "Invalid version string");
			return -EINVAL;
		}
		o->version = ver;
		return 0;
	case K_EVALTIME: {
		static const char *const names[] = { "exec", "preinit",
						     "postinit", "main" };

		for (size_t i = 0; val && i < ARRAY_SIZE(names); i++)
			if (!strcmp(val, names[i])) {
				o->evaltime = (uint8_t)i;
				return 0;
			}
		return bad_value(err, errlen);
	}
	case K_BUFPOLICY: {
		static const char *const names[] = { "ring", "fill", "switch" };

		for (size_t i = 0; val && i < ARRAY_SIZE(names); i++)
			if (!strcmp(val, names[i])) {
				o->bufpolicy = (uint8_t)(i + 1);
				return 0;
			}
		return bad_value(err, errlen);
	}
	case K_BUFRESIZE:
		if (val && (!strcmp(val, "auto") || !strcmp(val, "manual"))) {
			o->bufresize = val[0] == 'a' ? 1 : 2;
			return 0;
		}
		return bad_value(err, errlen);
	case K_STDC:
		if (!val || strlen(val) != 1 || !strchr("acst", val[0]))
			return bad_value(err, errlen);
		o->stdc = val;
		return 0;
	case K_LINKMODE:
		if (!val || (strcmp(val, "kernel") && strcmp(val, "primary") &&
			     strcmp(val, "dynamic") && strcmp(val, "static")))
			return bad_value(err, errlen);
		o->linkmode = val;
		return 0;
	case K_LINKTYPE:
		if (!val || (strcmp(val, "elf") && strcmp(val, "dof")))
			return bad_value(err, errlen);
		o->linktype = val;
		return 0;
	}
	return bad_value(err, errlen);
}
