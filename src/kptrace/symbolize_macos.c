// SPDX-License-Identifier: GPL-2.0-only
/* symbolize_macos — names the frames of a macOS panic report against a
 * Kernel Debug Kit and the user's kexts, in one process. The KDK is chosen
 * by the report's build and its kernel by the report's Kernel UUID
 * (kdk.c); a kext of "Kernel Extensions in backtrace" by bundle id and
 * UUID, from --kext or the KDK. Kernel frames are un-slid by the kernel
 * (text exec) slide, kext frames made offsets into their kext's __TEXT;
 * each return address is looked up at itself - 1 in an ELF image of the
 * Mach-O's symbols and its dSYM's DWARF (macho.c), through lib/dwarf as
 * Linux frames are: function from LC_SYMTAB, file:line and the inlined
 * calls from DWARF. Whatever is missing or does not match becomes a note,
 * never a wrong name; frames without symbols stay un-slid addresses, and
 * -S (an nm-style map of the kernel) still names those. */
#include "kptrace.h"
#include "kdk.h"
#include "macho.h"
#include "../lib/dwarf.h"
#include "../lib/ksym.h"
#include "../lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_KDKS "/Library/Developer/KDKs"

/* A kernel or kext open for lookups, kept between reports. */
struct mobj {
	struct kdk_file f;
	char *dsym;		/* its dSYM's DWARF file, or NULL */
	struct macho *dw;
	struct macho_image img;
	struct dsym *d;
	bool dwarf;
};

static struct mobj **mobjs;
static size_t nmobjs, capmobjs;

void kp_macos_done(void)
{
	for (size_t i = 0; i < nmobjs; i++) {
		struct mobj *o = mobjs[i];

		if (o->d)
			dsym_close(o->d);
		macho_image_free(&o->img);
		macho_close(o->dw);
		kdk_file_free(&o->f);
		free(o->dsym);
		free(o);
	}
	free(mobjs);
	mobjs = NULL;
	nmobjs = capmobjs = 0;
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

/* Open f for lookups (taking it over): its dSYM when one matches, the ELF
 * image, lib/dwarf. A file already open is shared. NULL when the image
 * cannot be made (a note says why). */
static struct mobj *mobj_open(struct kp_report *r, struct kdk_file *f)
{
	struct mobj *o;
	const char *why = NULL;
	char u1[37], u2[37];
	int err;

	for (size_t i = 0; i < nmobjs; i++)
		if (!strcmp(mobjs[i]->f.path, f->path) &&
		    mobjs[i]->f.m->hdr == f->m->hdr) {
			kdk_file_free(f);
			return mobjs[i];
		}
	o = sd_calloc(1, sizeof(*o));
	o->f = *f;
	memset(f, 0, sizeof(*f));
	/* a kext inside a kernel collection has no dSYM of the collection's
	 * name: its symbols only */
	if (o->f.m == o->f.file || !o->f.bundle)
		o->dsym = kdk_dsym(o->f.path, o->f.bundle_dir);
	if (o->dsym) {
		o->dw = macho_open(o->dsym, o->f.m->cputype, &why);
		if (!o->dw) {
			kp_note(r, "%s: %s; symbols only", o->dsym, why);
		} else if (o->f.m->has_uuid &&
			   !macho_uuid_is(o->dw, macho_uuid(o->f.m, u1))) {
			kp_note(r, "%s has UUID %s, %s %s; not used", o->dsym,
				macho_uuid(o->dw, u2), o->f.path, u1);
			macho_close(o->dw);
			o->dw = NULL;
		}
	} else if (o->f.m == o->f.file || !o->f.bundle) {
		kp_note(r, "%s: no dSYM beside it: symbols only, no file:line",
			o->f.path);
	}
	err = macho_image(o->f.m, o->dw, &o->img);
	if (!err)
		o->d = dsym_open_memory(o->f.path, o->img.base, o->img.len, &why);
	if (!o->d) {
		kp_note(r, "%s: %s", o->f.path, err ? strerror(-err) :
			why ? why : "no symbols");
		macho_image_free(&o->img);
		macho_close(o->dw);
		kdk_file_free(&o->f);
		free(o->dsym);
		free(o);
		return NULL;
	}
	o->dwarf = o->dw && dsym_has_dwarf(o->d);
	sd_grow(&mobjs, &capmobjs, nmobjs + 1, sizeof(*mobjs));
	mobjs[nmobjs++] = o;
	return o;
}

static uint32_t cputype_of(const struct kp_report *r)
{
	if (r->arch && !strcmp(r->arch, "arm64"))
		return MACHO_CPU_ARM64;
	if (r->arch && !strcmp(r->arch, "x86_64"))
		return MACHO_CPU_X86_64;
	return 0;
}

/* The KDK kernel of the report, or NULL (notes say why). *kdk gets the
 * KDK's path for its kexts. */
static struct mobj *kernel_for(struct kp_report *r, const struct kp_symopts *o,
			       char **kdk)
{
	const char *dir = o->kdk ? o->kdk : DEFAULT_KDKS;
	char *seen = NULL;
	struct kdk_file f;
	bool exists;
	int err;

	*kdk = kdk_find(dir, r->os_build, &seen, &exists);
	if (!*kdk) {
		if (!exists)
			kp_note(r, "no KDK: %s does not exist (give --kdk DIR); "
				"kernel frames are shown un-slid", dir);
		else
			kp_note(r, "no KDK for build %s (Kernel UUID %s) in %s; "
				"found %s; kernel frames are shown un-slid",
				r->os_build ? r->os_build : "(not stated)",
				r->kernel_uuid ? r->kernel_uuid : "not stated",
				dir, *seen ? seen : "none");
		free(seen);
		return NULL;
	}
	err = kdk_kernel(*kdk, cputype_of(r), r->kernel_uuid, r->release, &f,
			 &seen);
	if (err) {
		kp_note(r, "%s: no kernel %s%s (found: %s); kernel frames are "
			"shown un-slid", base_name(*kdk),
			r->kernel_uuid ? "with UUID " : "for ",
			r->kernel_uuid ? r->kernel_uuid :
			r->release ? r->release : "this report",
			*seen ? seen : "none");
		free(seen);
		return NULL;
	}
	return mobj_open(r, &f);
}

/* The kext of the report named k: from --kext by bundle id (or by UUID
 * for a bare Mach-O), else from the KDK. NULL with a note when none
 * matches. */
static struct mobj *kext_for(struct kp_report *r, const struct kp_symopts *o,
			     const char *kdk, const struct kp_kext *k)
{
	uint32_t cpu = cputype_of(r);
	struct kdk_file f;
	char u[37];
	bool named = false;

	for (size_t i = 0; i < o->nkexts; i++) {
		const char *why;

		if (kdk_kext_arg(o->kexts[i], cpu, &f, &why))
			continue;
		if (f.file->filetype == MACHO_FILESET) {
			/* a kernel collection: its entry of that bundle id */
			struct macho *e = macho_open_entry(f.file, k->bundle);

			if (!e) {
				kdk_file_free(&f);
				continue;
			}
			if (f.m != f.file)
				macho_close(f.m);
			f.m = e;
			free(f.bundle);
			f.bundle = sd_strdup(k->bundle);
		}
		if (f.bundle ? strcmp(f.bundle, k->bundle) :
			       !k->uuid || !macho_uuid_is(f.m, k->uuid)) {
			kdk_file_free(&f);
			continue;
		}
		named = true;
		if (k->uuid && !macho_uuid_is(f.m, k->uuid)) {
			kp_note(r, "%s: UUID %s, the report's %s %s; not used",
				o->kexts[i], macho_uuid(f.m, u), k->bundle,
				k->uuid);
			kdk_file_free(&f);
			continue;
		}
		return mobj_open(r, &f);
	}
	if (kdk && !kdk_kext_in(kdk, k->bundle, cpu, &f)) {
		if (!k->uuid || macho_uuid_is(f.m, k->uuid))
			return mobj_open(r, &f);
		kp_note(r, "%s: UUID %s, the report's %s %s; not used",
			f.bundle_dir, macho_uuid(f.m, u), k->bundle, k->uuid);
		kdk_file_free(&f);
		return NULL;
	}
	if (!named)
		kp_note(r, "kext %s: not given (--kext) nor in the KDK; its "
			"frames are offsets into it", k->bundle);
	return NULL;
}

/* Fill a frame from a lookup of its return address (un-slid) in o. */
static void locate(struct kp_frame *f, struct mobj *o, uint64_t ret)
{
	struct dsym_loc locs[16];
	int n = dsym_lookup(o->d, ret - 1, locs, 16);

	if (n <= 0 || !locs[n - 1].func)
		return;
	free(f->function);
	f->function = sd_strdup(locs[n - 1].func);
	f->func_off = locs[n - 1].func_off + 1;
	if (locs[n - 1].file) {
		f->file = sd_strdup(locs[n - 1].file);
		f->lineno = locs[n - 1].line;
	}
	if (n > 1) {
		f->inlines = sd_calloc((size_t)n - 1, sizeof(*f->inlines));
		for (int i = n - 2; i >= 0; i--) {
			struct kp_inline *in = &f->inlines[f->ninlines++];
			/* a C++ function by its linkage name: with its
			 * parameters once demangled */
			const char *fn = locs[i].linkage ? locs[i].linkage :
							   locs[i].func;

			in->function = fn ? sd_strdup(fn) : NULL;
			in->file = locs[i].file ? sd_strdup(locs[i].file) : NULL;
			in->line = locs[i].line;
		}
	}
}

int kp_macos_symbolize(struct kp_report *r, const struct kp_symopts *o)
{
	struct ksym_table *t = NULL;
	struct mobj *kernel, **kexts = NULL;
	char *kdk = NULL;

	if (r->has_slide) {
		r->kaslr_used = r->slide;
		r->has_kaslr_used = true;
		r->kaslr_source = r->exec_slide ? "Kernel text exec slide" :
						  "Kernel slide";
	}
	kernel = kernel_for(r, o, &kdk);
	if (kernel) {
		r->symfile = sd_strdup(kernel->f.path);
		r->dwarf = kernel->dwarf;
	}
	if (o->sysmap && !kernel) {
		t = ksym_load(o->sysmap);
		if (!t || !t->n) {
			kp_note(r, "%s: no symbols read", o->sysmap);
			ksym_free(t);
			t = NULL;
		} else {
			r->fallback = sd_strdup(o->sysmap);
		}
	}
	if (r->nkexts)
		kexts = sd_calloc(r->nkexts, sizeof(*kexts));
	for (size_t i = 0; i < r->nframes; i++) {
		struct kp_frame *f = &r->frames[i];
		const struct kp_kext *k = NULL;
		size_t kj = 0;
		struct ksym s;

		for (size_t j = 0; j < r->nkexts; j++)
			if (f->addr >= r->kexts[j].start &&
			    f->addr <= r->kexts[j].end) {
				k = &r->kexts[j];
				kj = j;
			}
		if (k) {
			/* each kext looked for once, at its first frame */
			if (!kexts[kj])
				kexts[kj] = kext_for(r, o, kdk, k) ?:
					    (struct mobj *)-1;
			f->object = sd_strdup(k->bundle);
			f->lookup = f->addr - k->start;
			if (kexts[kj] != (struct mobj *)-1) {
				f->lookup += macho_text_vmaddr(kexts[kj]->f.m);
				locate(f, kexts[kj], f->lookup);
			}
			continue;
		}
		f->object = sd_strdup(f->module &&
				      strcmp(f->module, "mach_kernel") ?
				      f->module : "kernel");
		f->lookup = f->addr - (r->has_slide ? r->slide : 0);
		if (kernel && !f->sym)
			locate(f, kernel, f->lookup);
		else if (t && !f->sym &&
			 ksym_lookup(t, f->lookup - (i ? 1 : 0), &s)) {
			f->function = sd_strdup(s.name);
			f->func_off = f->lookup - s.addr;
		}
	}
	if (!r->has_slide)
		kp_note(r, "the report states no kernel slide: kernel "
			"addresses are shown as printed");
	free(kexts);
	free(kdk);
	ksym_free(t);
	return 0;
}
