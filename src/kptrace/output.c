// SPDX-License-Identifier: GPL-2.0-only
/* output — prints parsed and symbolized reports: the text form kptrace
 * users know (one block per report, `object`function+0xoff at file:line`
 * per frame, inlined callees below it) and the JSON form documented in
 * docs/kptrace.md. */
#include "kptrace.h"
#include "../lib/demangle.h"
#include "../lib/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const section_names[] = {
	[KP_SEC_TASK] = "task", [KP_SEC_IRQ] = "irq",
	[KP_SEC_SOFTIRQ] = "softirq", [KP_SEC_NMI] = "nmi",
	[KP_SEC_EXC] = "exception",
};

static const char *strip(const char *file, const char *prefix)
{
	size_t n = prefix ? strlen(prefix) : 0;

	if (file && n && !strncmp(file, prefix, n)) {
		file += n;
		while (*file == '/')
			file++;
	}
	return file;
}

static const char *object_of(const struct kp_frame *f)
{
	if (f->object)
		return f->object;
	return f->module ? f->module : "vmlinux";
}

/* A name as the reader sees it: Rust demangled (Linux), C++ too (macOS:
 * IOKit and kexts are C++). */
static const char *shown(const struct kp_report *r, const char *name,
			 char *buf, size_t len)
{
	return r->macos ? demangle_name(name, DEMANGLE_ALL, buf, len) :
			  kp_display_name(name, buf, len);
}

/* A file as a frame shows it: macOS files by their name, as kptrace
 * printed them (JSON keeps the path). */
static const char *file_shown(const struct kp_report *r, const char *file,
			      const char *pfx)
{
	const char *b;

	if (r->macos && file && (b = strrchr(file, '/')))
		return b + 1;
	return strip(file, pfx);
}

/* Linux: object`function+0xoff; macOS: object`function + off, the
 * offset in decimal as Apple's tools print it. */
static void text_frame(FILE *o, const struct kp_report *r,
		       const struct kp_frame *f, const char *pfx)
{
	char buf[KP_MAX_LINE];
	const char *fn = shown(r, f->function ? f->function : f->sym, buf,
			       sizeof(buf));
	uint64_t off = f->function ? f->func_off : f->off;

	fprintf(o, "  %c %s`", f->reliable || f->pc ? '-' : '?',
		object_of(f));
	if (fn && r->macos)
		fprintf(o, "%s + %" PRIu64, fn, off);
	else if (fn)
		fprintf(o, "%s+0x%" PRIx64, fn, off);
	else
		fprintf(o, "0x%" PRIx64, f->lookup ? f->lookup : f->addr);
	if (f->file)
		fprintf(o, " at %s:%d", file_shown(r, f->file, pfx), f->lineno);
	fputc('\n', o);
	for (int i = 0; i < f->ninlines; i++) {
		const struct kp_inline *in = &f->inlines[i];

		fprintf(o, "      (inlined) %s", in->function ?
			shown(r, in->function, buf, sizeof(buf)) : "??");
		if (in->file)
			fprintf(o, " at %s:%d", file_shown(r, in->file, pfx),
				in->line);
		fputc('\n', o);
	}
}

void kp_print_text(FILE *o, const struct kp_report *r, const char *pfx)
{
	int stack = -1;
	enum kp_section sec = KP_SEC_TASK;

	fprintf(o, "%s\n", r->title);
	if (r->panic)
		fprintf(o, "  panic: %s\n", r->panic);
	fprintf(o, "  kernel %s", r->release ? r->release : "(release unknown)");
	if (r->os_build)
		fprintf(o, ", build %s", r->os_build);
	if (r->has_kaslr_used)
		fprintf(o, ", %s 0x%" PRIx64 " (%s)",
			r->has_slide ? "slide" : "KASLR offset",
			r->kaslr_used, r->kaslr_source);
	if (r->symfile)
		fprintf(o, ", symbols from %s%s", r->symfile,
			r->dwarf ? "" : " (no DWARF: function+offset only)");
	if (r->fallback)
		fprintf(o, ", symbols from %s (no DWARF: function+offset only)",
			r->fallback);
	fprintf(o, "\n");
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(o, "  note: %s\n", r->notes[i]);
	for (size_t i = 0; i < r->nframes; i++) {
		const struct kp_frame *f = &r->frames[i];

		if (f->stack != stack) {
			if (stack >= 0 || (r->nstacks > 1 && f->stack > 0) ||
			    (r->stacks && strcmp(r->stacks[f->stack],
						 "Call Trace") &&
			     strcmp(r->stacks[f->stack], "Call trace")))
				fprintf(o, "  %s:\n", r->stacks[f->stack]);
			stack = f->stack;
			sec = KP_SEC_TASK;
		}
		if (f->section != sec) {
			fprintf(o, "  <%s>\n", section_names[f->section]);
			sec = f->section;
		}
		text_frame(o, r, f, pfx);
	}
	if (!r->nframes)
		fprintf(o, "  (no frames in the report)\n");
	if (r->has_user_pc)
		fprintf(o, "  user space: pc 0x%" PRIx64 "\n", r->user_pc);
}

static void hex_or_null(struct json *j, const char *key, bool has, uint64_t v)
{
	char buf[24];

	json_key(j, key);
	if (!has) {
		json_null(j);
		return;
	}
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	json_str(j, buf);
}

static void str_or_null(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	if (s)
		json_str(j, s);
	else
		json_null(j);
}

static void json_frame(struct json *j, const struct kp_report *r,
		       const struct kp_frame *f, const char *pfx)
{
	json_obj_begin(j);
	hex_or_null(j, "addr", f->has_addr, f->addr);
	hex_or_null(j, "pc_lookup", f->lookup != 0, f->lookup);
	json_key(j, "pc");
	json_bool(j, f->pc);
	json_key(j, "reliable");
	json_bool(j, f->reliable);
	json_key(j, "user");
	json_bool(j, f->user);
	json_key(j, "section");
	json_str(j, section_names[f->section]);
	json_key(j, "stack");
	json_i64(j, f->stack);
	str_or_null(j, "module", f->module);
	str_or_null(j, "object", object_of(f));
	str_or_null(j, "buildid", f->buildid);
	str_or_null(j, "symbol", f->sym);
	hex_or_null(j, "symbol_offset", f->has_off, f->off);
	hex_or_null(j, "symbol_size", f->has_size, f->size);
	str_or_null(j, "function", f->function ? f->function : f->sym);
	{
		/* a Rust (or on macOS C++) function's readable name; null
		 * for any other */
		const char *fn = f->function ? f->function : f->sym;
		char buf[KP_MAX_LINE];
		const char *d = shown(r, fn, buf, sizeof(buf));

		str_or_null(j, "demangled", d != fn ? d : NULL);
	}
	hex_or_null(j, "offset", f->function || f->has_off,
		    f->function ? f->func_off : f->off);
	str_or_null(j, "file", strip(f->file, pfx));
	json_key(j, "line");
	if (f->file)
		json_i64(j, f->lineno);
	else
		json_null(j);
	json_key(j, "inlines");
	json_arr_begin(j);
	for (int i = 0; i < f->ninlines; i++) {
		json_obj_begin(j);
		str_or_null(j, "function", f->inlines[i].function);
		str_or_null(j, "file", strip(f->inlines[i].file, pfx));
		json_key(j, "line");
		json_i64(j, f->inlines[i].line);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "input_line");
	json_i64(j, f->line);
	json_obj_end(j);
}

void kp_print_json_report(struct json *j, const struct kp_report *r,
			  const char *pfx)
{
	json_obj_begin(j);
	str_or_null(j, "kind", r->kind);
	str_or_null(j, "title", r->title);
	str_or_null(j, "culprit", r->culprit);
	str_or_null(j, "release", r->release);
	str_or_null(j, "arch", r->arch);
	str_or_null(j, "os_build", r->os_build);
	str_or_null(j, "kernel_uuid", r->kernel_uuid);
	hex_or_null(j, "kaslr_offset", r->has_kaslr_used, r->kaslr_used);
	str_or_null(j, "kaslr_source", r->kaslr_source);
	str_or_null(j, "panic", r->panic);
	hex_or_null(j, "user_pc", r->has_user_pc, r->user_pc);
	str_or_null(j, "symbols", r->symfile ? r->symfile : r->fallback);
	json_key(j, "dwarf");
	json_bool(j, r->dwarf);
	json_key(j, "first_line");
	json_i64(j, r->first_line);
	json_key(j, "last_line");
	json_i64(j, r->last_line);
	json_key(j, "notes");
	json_arr_begin(j);
	for (size_t i = 0; i < r->nnotes; i++)
		json_str(j, r->notes[i]);
	json_arr_end(j);
	json_key(j, "modules");
	json_arr_begin(j);
	for (size_t i = 0; i < r->nmodules; i++)
		json_str(j, r->modules[i]);
	json_arr_end(j);
	json_key(j, "stacks");
	json_arr_begin(j);
	for (size_t i = 0; i < r->nstacks; i++)
		json_str(j, r->stacks[i]);
	json_arr_end(j);
	if (r->nkexts) {
		json_key(j, "kexts");
		json_arr_begin(j);
		for (size_t i = 0; i < r->nkexts; i++) {
			const struct kp_kext *k = &r->kexts[i];

			json_obj_begin(j);
			str_or_null(j, "bundle", k->bundle);
			str_or_null(j, "version", k->version);
			str_or_null(j, "uuid", k->uuid);
			hex_or_null(j, "start", true, k->start);
			hex_or_null(j, "end", true, k->end);
			json_obj_end(j);
		}
		json_arr_end(j);
	}
	json_key(j, "frames");
	json_arr_begin(j);
	for (size_t i = 0; i < r->nframes; i++)
		json_frame(j, r, &r->frames[i], pfx);
	json_arr_end(j);
	json_obj_end(j);
}
