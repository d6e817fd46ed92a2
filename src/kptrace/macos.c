// SPDX-License-Identifier: GPL-2.0-only
/* macos — parses macOS panic reports, as kptrace read them: the classic
 * text .panic (Intel "Backtrace (CPU n), Frame : Return Address" lines,
 * symbolicated or not; Apple silicon "lr: 0x... fp: 0x..." lines) and the
 * JSON .panic/.ips whose panicString / macOSPanicString holds the same
 * text. It keeps the OS build, the kernel slide(s) and the kexts in the
 * backtrace (bundle id, version, UUID, address range), and gives each
 * frame its unslid address: kernel addresses minus the slide, kext
 * addresses as offsets into their kext. symbolize.c names unslid kernel
 * addresses from a symbol map (-S, nm-style) when one is given. */
#include "report.h"
#include "../lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

bool kp_macos_detect(const char *buf, size_t len)
{
	size_t n = len < 65536 ? len : 65536;

	return memmem(buf, n, "panic(cpu ", 10) &&
	       (memmem(buf, n, "Backtrace (CPU", 14) ||
		memmem(buf, n, "Kernel slide", 12) ||
		memmem(buf, n, "panicString", 11) ||
		memmem(buf, n, "mach_kernel", 11) ||
		memmem(buf, n, "Panicked thread", 15));
}

/* The JSON string value of "key" in buf, decoded; NULL if absent. */
static char *json_string(const char *buf, size_t len, const char *key)
{
	char pat[64];
	const char *p, *end = buf + len;
	struct sbuf sb;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = memmem(buf, len, pat, strlen(pat));
	if (!p)
		return NULL;
	p += strlen(pat);
	while (p < end && (*p == ' ' || *p == ':' || *p == '\t' || *p == '\n'))
		p++;
	if (p >= end || *p != '"')
		return NULL;
	p++;
	sbuf_init(&sb);
	while (p < end && *p != '"') {
		if (*p == '\\' && p + 1 < end) {
			p++;
			switch (*p) {
			case 'n': sbuf_putc(&sb, '\n'); break;
			case 't': sbuf_putc(&sb, '\t'); break;
			case 'r': break;
			case 'u':
				if (end - p > 4) {
					char hex[5] = { p[1], p[2], p[3], p[4], 0 };
					long c = strtol(hex, NULL, 16);

					sbuf_putc(&sb, c > 0 && c < 128 ? (char)c : '?');
					p += 4;
				}
				break;
			default: sbuf_putc(&sb, *p); break;
			}
			p++;
			continue;
		}
		sbuf_putc(&sb, *p++);
	}
	sbuf_putc(&sb, '\0');
	return sbuf_steal(&sb);
}

/* Replace a string field (a report may repeat a line). */
static void set_str(char **field, char *v)
{
	free(*field);
	*field = v;
}

static uint64_t hexnum(const char *s, const char **end)
{
	char *e;
	uint64_t v = strtoull(s, &e, 16);

	if (end)
		*end = e;
	return v;
}

/* "com.apple.iokit.IOUSBFamily(900.4.2)[B3A7...]@0xffffff7f9b18c000->0x..." */
static void parse_kext(struct kp_report *r, const char *s)
{
	const char *p = s, *lp = strchr(s, '('), *at = strstr(s, "@0x");
	const char *arrow = strstr(s, "->0x");
	struct kp_kext *k;

	if (!at || !arrow || !lp || lp > at)
		return;
	r->kexts = sd_realloc(r->kexts, (r->nkexts + 1) * sizeof(*r->kexts));
	k = &r->kexts[r->nkexts++];
	memset(k, 0, sizeof(*k));
	k->bundle = sd_strndup(p, (size_t)(lp - p));
	k->version = sd_strndup(lp + 1, strcspn(lp + 1, ")"));
	if ((p = strchr(lp, '[')) && p < at)
		k->uuid = sd_strndup(p + 1, strcspn(p + 1, "]"));
	k->start = hexnum(at + 1, NULL);
	k->end = hexnum(arrow + 2, NULL);
}

/* "0xffffff887d7535f0 : 0xffffff801a1aca1d mach_kernel : _func + 0x48d" */
static bool intel_frame(struct kp_report *r, const char *s, int lineno)
{
	const char *p = s, *e;
	uint64_t ret;
	struct kp_frame *f;

	if (!starts(p, "0x"))
		return false;
	hexnum(p, &e);
	if (!starts(e, " : 0x"))
		return false;
	ret = hexnum(e + 3, &e);
	f = kp_frame_add(r);
	f->addr = ret;
	f->has_addr = true;
	f->line = lineno;
	while (*e == ' ')
		e++;
	/* symbolicated: "object : symbol + 0xoff" */
	if (*e) {
		const char *c = strstr(e, " : ");

		if (c) {
			const char *sym = c + 3, *plus = strstr(sym, " + 0x");

			f->module = sd_strndup(e, (size_t)(c - e));
			if (plus) {
				f->sym = sd_strndup(sym, (size_t)(plus - sym));
				f->off = hexnum(plus + 3, NULL);
				f->has_off = true;
			} else {
				f->sym = sd_strdup(sym);
			}
		}
	}
	return true;
}

/* An arm64e return address without its pointer-authentication code: the
 * bits above the virtual address become copies of bit 55 again (kernel
 * addresses all ones, user ones zero). */
static uint64_t strip_pac(uint64_t a)
{
	return a >> 55 & 1 ? a | 0xffff800000000000ull :
			     a & 0x00007fffffffffffull;
}

/* "lr: 0xfffffe001d2c0ae0  fp: 0xfffffec134007010" */
static bool arm_frame(struct kp_report *r, const char *s, int lineno)
{
	struct kp_frame *f;

	if (!starts(s, "lr: 0x"))
		return false;
	f = kp_frame_add(r);
	f->addr = strip_pac(hexnum(s + 4, NULL));
	if (!r->arch)
		r->arch = sd_strdup("arm64");
	f->has_addr = true;
	f->line = lineno;
	return true;
}

static char *line_value(const char *s, const char *key)
{
	const char *p = s + strlen(key);

	while (*p == ' ' || *p == '\t')
		p++;
	return sd_strdup(p);
}

static void parse_text(const char *text, size_t len, struct kp_report *r)
{
	const char *p = text, *end = text + len;
	int lineno = 0;
	bool in_kexts = false, want_osbuild = false, want_kver = false;
	bool exec_slide = false;
	char line[4096];

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *s;

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		for (size_t i = 0; i < n; i++)
			if (line[i] == '\r' || line[i] == '\0')
				line[i] = ' ';
		p = nl ? nl + 1 : end;
		lineno++;
		s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (want_osbuild && *s) {
			set_str(&r->os_build, sd_strdup(s));
			want_osbuild = false;
			continue;
		}
		if (want_kver && *s) {
			set_str(&r->release, sd_strdup(s));
			want_kver = false;
			continue;
		}
		if (starts(s, "panic(cpu ") && !r->kind) {
			const char *m = strstr(s, "): ");
			size_t mlen;

			r->first_line = lineno;
			r->kind = sd_strdup("panic");
			if (m) {
				m += 3;
				mlen = strcspn(m, "\n");
				if (mlen > 160)
					mlen = 160;
				r->title = sd_malloc(mlen + 8);
				snprintf(r->title, mlen + 8, "panic: %.*s",
					 (int)mlen, m);
			}
			continue;
		}
		if (starts(s, "Backtrace (CPU") && !r->arch)
			r->arch = sd_strdup("x86_64");
		if (starts(s, "Backtrace (CPU") || starts(s, "Panicked thread:")) {
			char *lbl = sd_strndup(s, strcspn(s, ","));

			kp_stack_add(r, lbl);
			free(lbl);
			in_kexts = false;
			continue;
		}
		if (starts(s, "Kernel Extensions in backtrace")) {
			in_kexts = true;
			continue;
		}
		if (in_kexts) {
			if (starts(s, "dependency:"))
				continue;
			if (strstr(s, "@0x") && strstr(s, "->0x")) {
				parse_kext(r, s);
				continue;
			}
			in_kexts = false;
		}
		if (r->kind && (intel_frame(r, s, lineno) ||
				arm_frame(r, s, lineno))) {
			r->last_line = lineno;
			continue;
		}
		if (starts(s, "Mac OS version:")) {
			char *v = line_value(s, "Mac OS version:");

			if (*v)
				set_str(&r->os_build, v);
			else
				free(v), want_osbuild = true;
		} else if (starts(s, "OS version:") && !r->os_build) {
			set_str(&r->os_build, line_value(s, "OS version:"));
		} else if (starts(s, "Kernel version:")) {
			char *v = line_value(s, "Kernel version:");

			if (*v)
				set_str(&r->release, v);
			else
				free(v), want_kver = true;
		} else if (starts(s, "Kernel UUID:")) {
			set_str(&r->kernel_uuid, line_value(s, "Kernel UUID:"));
		} else if (starts(s, "Kernel text exec slide:")) {
			char *v = line_value(s, "Kernel text exec slide:");

			r->slide = hexnum(v, NULL);
			r->has_slide = exec_slide = r->exec_slide = true;
			free(v);
		} else if (starts(s, "Kernel slide:") && !exec_slide) {
			char *v = line_value(s, "Kernel slide:");

			r->slide = hexnum(v, NULL);
			r->has_slide = true;
			free(v);
		}
	}
}

/* The build of an .ips: "build" or the header's "os_version", "macOS
 * 14.2 (23C71)" or "iPhone OS 14.6 (18F72)": what is in parentheses. */
static char *ips_build(const char *buf, size_t len)
{
	char *v = json_string(buf, len, "build");
	char *open, *close;

	if (!v)
		v = json_string(buf, len, "os_version");
	if (v && (open = strrchr(v, '(')) && (close = strchr(open, ')')) &&
	    close > open + 1) {
		char *b = sd_strndup(open + 1, (size_t)(close - open - 1));

		free(v);
		return b;
	}
	return v;
}

/* The arch a kernel version names: "...RELEASE_X86_64" or
 * "...RELEASE_ARM64_T6020". */
static void arch_of_version(struct kp_report *r)
{
	if (r->arch || !r->release)
		return;
	if (strstr(r->release, "_X86_64"))
		r->arch = sd_strdup("x86_64");
	else if (strstr(r->release, "_ARM64"))
		r->arch = sd_strdup("arm64");
}

int kp_macos_parse(const char *buf, size_t len, struct kp_reports *out)
{
	char *json = json_string(buf, len, "macOSPanicString");
	struct kp_report *r;

	if (!json)
		json = json_string(buf, len, "panicString");
	sd_grow(&out->v, &out->cap, out->n + 1, sizeof(*out->v));
	r = &out->v[out->n];
	memset(r, 0, sizeof(*r));
	if (json) {
		parse_text(json, strlen(json), r);
		if (!r->os_build)
			r->os_build = ips_build(buf, len);
		free(json);
	} else {
		parse_text(buf, len, r);
	}
	if (!r->kind) {		/* not a panic after all */
		kp_report_free(r);
		return -ENOENT;
	}
	if (!r->title)
		r->title = sd_strdup("panic");
	arch_of_version(r);
	r->macos = true;
	for (size_t i = 0; i < r->nframes; i++)
		r->frames[i].stack = 0;
	if (!r->nstacks)
		kp_stack_add(r, "Backtrace");
	out->n++;
	kp_event_add(out, out->n - 1);
	for (size_t i = 0; i < len; i++)
		out->lines += buf[i] == '\n';
	return 0;
}
