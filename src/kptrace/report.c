// SPDX-License-Identifier: GPL-2.0-only
/* report — the report model's life cycle, shared by both parsers,
 * the culprit rules, symbolize.c and output.c: adding frames, stacks,
 * modules and notes to a report, freeing reports, and the two ways a
 * function name is shown (without compiler suffixes for matching, Rust
 * demangled for reading). The model itself is report.h. */
#include "report.h"
#include "../lib/demangle.h"
#include "../lib/util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *kp_func_base(const char *name, char *buf, size_t len)
{
	size_t n = 0;

	if (!name)
		return NULL;
	if (name[0] == '.' && name[1])	/* ppc64 ELFv1 dot symbols */
		name++;
	if (name[0] == '_' && name[1] == 'Z' && isdigit((unsigned char)name[2])) {
		/* a C++ function at namespace level: _Z8fakeNameiii */
		char *e;
		unsigned long l = strtoul(name + 2, &e, 10);

		if (l && l < len && strlen(e) >= l) {
			memcpy(buf, e, l);
			buf[l] = '\0';
			return buf;
		}
	}
	if ((n = demangle_rust_len(name))) {
		/* a Rust symbol: legacy ones hold ".." in their escapes */
		n = n < len ? n : len - 1;
	} else {
		while (name[n] && name[n] != '.' && n + 1 < len)
			n++;
	}
	memcpy(buf, name, n);
	buf[n] = '\0';
	return buf;
}

const char *kp_display_name(const char *name, char *buf, size_t len)
{
	return demangle_display(name, buf, len);
}

struct kp_frame *kp_frame_add(struct kp_report *r)
{
	struct kp_frame *f;

	sd_grow(&r->frames, &r->capframes, r->nframes + 1, sizeof(*f));
	f = &r->frames[r->nframes++];
	memset(f, 0, sizeof(*f));
	f->reliable = true;
	f->stack = r->nstacks ? (int)r->nstacks - 1 : 0;
	return f;
}

void kp_stack_add(struct kp_report *r, const char *label)
{
	size_t cap = r->nstacks;

	sd_grow(&r->stacks, &cap, r->nstacks + 1, sizeof(char *));
	r->stacks[r->nstacks++] = sd_strdup(label);
}

void kp_module_add(struct kp_report *r, const char *s, size_t n)
{
	size_t cap = r->nmodules;

	sd_grow(&r->modules, &cap, r->nmodules + 1, sizeof(char *));
	r->modules[r->nmodules++] = sd_strndup(s, n);
}

void kp_frame_free(struct kp_frame *f)
{
	free(f->sym);
	free(f->module);
	free(f->buildid);
	free(f->function);
	free(f->file);
	free(f->object);
	for (int i = 0; i < f->ninlines; i++) {
		free(f->inlines[i].function);
		free(f->inlines[i].file);
	}
	free(f->inlines);
}

void kp_report_free(struct kp_report *r)
{
	for (size_t i = 0; i < r->nframes; i++)
		kp_frame_free(&r->frames[i]);
	free(r->frames);
	for (size_t i = 0; i < r->nmodules; i++)
		free(r->modules[i]);
	free(r->modules);
	for (size_t i = 0; i < r->nstacks; i++)
		free(r->stacks[i]);
	free(r->stacks);
	for (size_t i = 0; i < r->nkexts; i++) {
		free(r->kexts[i].bundle);
		free(r->kexts[i].version);
		free(r->kexts[i].uuid);
	}
	free(r->kexts);
	free(r->kind);
	free(r->culprit);
	free(r->title);
	free(r->release);
	free(r->arch);
	free(r->panic);
	free(r->headline_func);
	free(r->lock_func);
	free(r->os_build);
	free(r->kernel_uuid);
	free(r->symfile);
	free(r->fallback);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
}

void kp_note(struct kp_report *r, const char *fmt, ...)
{
	struct sbuf sb;
	va_list ap;
	size_t cap = r->nnotes;

	sbuf_init(&sb);
	va_start(ap, fmt);
	sbuf_vprintf(&sb, fmt, ap);
	va_end(ap);
	sd_grow(&r->notes, &cap, r->nnotes + 1, sizeof(char *));
	r->notes[r->nnotes++] = sbuf_steal(&sb);
}

void kp_event_add(struct kp_reports *rs, size_t idx)
{
	struct kp_event *e;

	sd_grow(&rs->events, &rs->capevents, rs->nevents + 1, sizeof(*e));
	e = &rs->events[rs->nevents++];
	memset(e, 0, sizeof(*e));
	e->first = idx;
	e->n = 1;
	e->last_line = rs->v[idx].last_line;
	e->last_ts = -1;
	rs->v[idx].event = (int)(rs->nevents - 1);
}

void kp_reports_free(struct kp_reports *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		kp_report_free(&rs->v[i]);
	free(rs->v);
	for (size_t i = 0; i < rs->nmodbases; i++)
		free(rs->modbases[i].name);
	free(rs->modbases);
	for (size_t i = 0; i < rs->nmodsecs; i++) {
		free(rs->modsecs[i].module);
		free(rs->modsecs[i].section);
	}
	free(rs->modsecs);
	free(rs->events);
	memset(rs, 0, sizeof(*rs));
}
