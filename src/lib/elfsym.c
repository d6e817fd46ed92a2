// SPDX-License-Identifier: GPL-2.0-only
/* elfsym — ELF function symbols through libelf (elfutils). See elfsym.h. */
#include "elfsym.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

struct esym {
	uint64_t addr, size;
	const char *name;
	uint32_t index;		/* order in the file */
	int rank;		/* 2 global, 1 weak, 0 local */
};

struct eload {
	uint64_t off, filesz, vaddr;
};

struct elfsym {
	struct esym *syms;
	size_t n, cap;
	struct esym *all;	/* with aliases (same address), for elfsym_get */
	size_t nall;
	struct eload *loads;
	size_t nloads, caploads;
	struct sbuf names;	/* NUL-separated; syms index into it */
	char build_id[2 * 64 + 1];
};

static void init_libelf(void)
{
	static bool done;

	if (!done) {
		elf_version(EV_CURRENT);
		done = true;
	}
}

static void read_build_id(struct elfsym *e, Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &name_off,
						&desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0) {
				const unsigned char *id =
					(unsigned char *)d->d_buf + desc_off;
				size_t n = nh.n_descsz > 64 ? 64 : nh.n_descsz;

				for (size_t i = 0; i < n; i++)
					sprintf(e->build_id + 2 * i, "%02x", id[i]);
				return;
			}
		}
	}
}

static void read_loads(struct elfsym *e, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		sd_grow(&e->loads, &e->caploads, e->nloads + 1,
			sizeof(*e->loads));
		e->loads[e->nloads++] = (struct eload){ ph.p_offset,
							ph.p_filesz,
							ph.p_vaddr };
	}
}

/* Add the function symbols of every section of type `type`. */
static size_t read_syms(struct elfsym *e, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	size_t added = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;
			int t, bind;

			if (!gelf_getsym(d, i, &s))
				break;
			t = GELF_ST_TYPE(s.st_info);
			bind = GELF_ST_BIND(s.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) ||
			    s.st_shndx == SHN_UNDEF || !s.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			sd_grow(&e->syms, &e->cap, e->n + 1, sizeof(*e->syms));
			e->syms[e->n] = (struct esym){
				s.st_value, s.st_size,
				(const char *)(uintptr_t)e->names.len,
				(uint32_t)e->n,
				bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0 };
			e->n++;
			sbuf_put(&e->names, name, strlen(name) + 1);
			added++;
		}
	}
	return added;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* At one address, the name lookups give: the sized symbol, then
	 * global before weak before local (__vdso_clock_gettime, not its
	 * weak alias clock_gettime: as perf and libdwfl choose), then the
	 * first in the file. */
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static void finish(struct elfsym *e)
{
	size_t w = 0;

	if (e->n)
		qsort(e->syms, e->n, sizeof(*e->syms), cmp_sym);
	e->nall = e->n;
	e->all = sd_malloc(sizeof(*e->all) * (e->n ? e->n : 1));
	if (e->n)
		memcpy(e->all, e->syms, sizeof(*e->all) * e->n);
	for (size_t i = 0; i < e->nall; i++)
		e->all[i].name = e->names.buf + (uintptr_t)e->all[i].name;
	for (size_t r = 0; r < e->n; r++) {
		if (w && e->syms[w - 1].addr == e->syms[r].addr)
			continue;
		e->syms[w++] = e->syms[r];
	}
	e->n = w;
	for (size_t i = 0; i < e->n; i++)
		e->syms[i].name = e->names.buf + (uintptr_t)e->syms[i].name;
}

static struct elfsym *from_elf(Elf *elf)
{
	struct elfsym *e;

	if (elf_kind(elf) != ELF_K_ELF) {
		errno = ENOEXEC;
		return NULL;
	}
	e = sd_calloc(1, sizeof(*e));
	sbuf_init(&e->names);
	read_build_id(e, elf);
	read_loads(e, elf);
	if (read_syms(e, elf, SHT_SYMTAB) == 0)
		read_syms(e, elf, SHT_DYNSYM);
	return e;
}

/* A stripped binary's symbols from /usr/lib/debug/.build-id/xx/rest.debug. */
static void add_debug_file(struct elfsym *e)
{
	char path[256];
	int fd;
	Elf *elf;

	if (strlen(e->build_id) < 4)
		return;
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 e->build_id, e->build_id + 2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		e->n = 0;
		sbuf_reset(&e->names);
		if (read_syms(e, elf, SHT_SYMTAB) == 0)
			read_syms(e, elf, SHT_DYNSYM);
		elf_end(elf);
	}
	close(fd);
}

static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

struct elfsym *elfsym_open(const char *path)
{
	struct elfsym *e;
	bool stripped;
	Elf *elf;
	int fd;

	init_libelf();
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		close(fd);
		errno = ENOEXEC;
		return NULL;
	}
	e = from_elf(elf);
	stripped = e && !has_symtab(elf);
	elf_end(elf);
	close(fd);
	if (!e)
		return NULL;
	if (stripped)
		add_debug_file(e);
	finish(e);
	return e;
}

struct elfsym *elfsym_open_vdso(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	struct elfsym *e;
	size_t size;
	Elf *elf;

	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	init_libelf();
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	elf = elf_memory((char *)base, size);
	if (!elf)
		return NULL;
	e = from_elf(elf);
	elf_end(elf);
	if (e)
		finish(e);
	return e;
}

void elfsym_close(struct elfsym *e)
{
	if (!e)
		return;
	free(e->syms);
	free(e->all);
	free(e->loads);
	sbuf_free(&e->names);
	free(e);
}

bool elfsym_off_to_addr(const struct elfsym *e, uint64_t off, uint64_t *addr)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct eload *l = &e->loads[i];

		if (off >= l->off && off < l->off + l->filesz) {
			*addr = off - l->off + l->vaddr;
			return true;
		}
	}
	return false;
}

const char *elfsym_lookup(const struct elfsym *e, uint64_t addr,
			  uint64_t *delta)
{
	size_t lo = 0, hi = e->n;
	const struct esym *s;

	if (!e->n || addr < e->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	s = &e->syms[lo];
	/* A sized symbol covers [addr, addr+size); unsized ones (some asm)
	 * run to the next symbol. */
	if (s->size && addr >= s->addr + s->size)
		return NULL;
	if (!s->size && lo + 1 == e->n)
		return NULL;
	*delta = addr - s->addr;
	return s->name;
}

size_t elfsym_count(const struct elfsym *e)
{
	return e->n;
}

const char *elfsym_build_id(const struct elfsym *e)
{
	return e->build_id;
}

const char *elfsym_get(const struct elfsym *e, size_t i, uint64_t *addr,
		       uint64_t *size)
{
	if (i >= e->nall)
		return NULL;
	*addr = e->all[i].addr;
	*size = e->all[i].size;
	return e->all[i].name;
}

int elfsym_binding_rank(const struct elfsym *e, size_t i)
{
	return i < e->nall ? e->all[i].rank : -1;
}

bool elfsym_addr_to_off(const struct elfsym *e, uint64_t addr, uint64_t *off)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct eload *l = &e->loads[i];

		if (addr >= l->vaddr && addr < l->vaddr + l->filesz) {
			*off = addr - l->vaddr + l->off;
			return true;
		}
	}
	return false;
}
