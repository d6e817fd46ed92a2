// SPDX-License-Identifier: GPL-2.0-only
/* macho — Mach-O files of a macOS kernel and its kexts, and their ELF
 * image for lib/dwarf; see macho.h. Every offset and count read from a
 * file is checked against the file's size before it is used. */
#include "macho.h"
#include "../lib/util.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MH_MAGIC_64 0xfeedfacfu
#define MH_MAGIC 0xfeedfaceu
#define FAT_MAGIC 0xcafebabeu
#define FAT_MAGIC_64 0xcafebabfu
#define LC_SYMTAB 0x2u
#define LC_SEGMENT_64 0x19u
#define LC_UUID 0x1bu
#define LC_FILESET_ENTRY 0x80000035u
#define N_STAB 0xe0
#define N_TYPE 0x0e
#define N_SECT 0x0e
#define N_EXT 0x01
#define S_ATTR_PURE_INSTRUCTIONS 0x80000000u
#define S_ATTR_SOME_INSTRUCTIONS 0x00000400u

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[0] << 24;
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* Whether [off, off + len) lies inside the mapping. */
static bool inside(const struct macho *m, uint64_t off, uint64_t len)
{
	return off <= m->maplen && len <= m->maplen - off;
}

static void name16(char *dst, const unsigned char *src)
{
	memcpy(dst, src, 16);
	dst[16] = '\0';
}

/* Read the header and load commands at m->hdr. The arrays grow one
 * element at a time (sd_grow from their count). */
static const char *parse(struct macho *m)
{
	const unsigned char *h;
	uint32_t ncmds, sizeofcmds;
	uint64_t off;

	if (!inside(m, m->hdr, 32))
		return "truncated Mach-O header";
	h = m->map + m->hdr;
	if (le32(h) == MH_MAGIC)
		return "32-bit Mach-O (only 64-bit kernels are read)";
	if (le32(h) != MH_MAGIC_64)
		return "not a Mach-O file";
	m->cputype = le32(h + 4);
	m->cpusubtype = le32(h + 8);
	m->filetype = le32(h + 12);
	ncmds = le32(h + 16);
	sizeofcmds = le32(h + 20);
	off = m->hdr + 32;
	if (!inside(m, off, sizeofcmds))
		return "truncated load commands";
	for (uint32_t i = 0; i < ncmds; i++) {
		const unsigned char *c = m->map + off;
		uint32_t cmd, size;

		if (!inside(m, off, 8))
			return "truncated load command";
		cmd = le32(c);
		size = le32(c + 4);
		if (size < 8 || !inside(m, off, size))
			return "bad load command size";
		if (cmd == LC_SEGMENT_64 && size >= 72) {
			struct macho_seg *s;
			uint32_t nsects = le32(c + 64);

			if ((uint64_t)nsects * 80 > size - 72)
				return "bad segment command";
			sd_grow(&m->segs, &(size_t){ m->nsegs }, m->nsegs + 1,
				sizeof(*s));
			s = &m->segs[m->nsegs++];
			name16(s->name, c + 8);
			s->vmaddr = le64(c + 24);
			s->vmsize = le64(c + 32);
			s->fileoff = le64(c + 40);
			s->filesize = le64(c + 48);
			for (uint32_t k = 0; k < nsects; k++) {
				const unsigned char *q = c + 72 + 80 * k;
				struct macho_sect *t;

				sd_grow(&m->sects, &(size_t){ m->nsects },
					m->nsects + 1, sizeof(*t));
				t = &m->sects[m->nsects++];
				name16(t->name, q);
				name16(t->seg, q + 16);
				t->addr = le64(q + 32);
				t->size = le64(q + 40);
				t->offset = le32(q + 48);
				t->flags = le32(q + 64);
			}
		} else if (cmd == LC_SYMTAB && size >= 24) {
			m->symoff = le32(c + 8);
			m->nsyms = le32(c + 12);
			m->stroff = le32(c + 16);
			m->strsize = le32(c + 20);
			if (!inside(m, m->slice + m->symoff,
				    (uint64_t)m->nsyms * 16) ||
			    !inside(m, m->slice + m->stroff, m->strsize))
				m->nsyms = m->strsize = 0;
		} else if (cmd == LC_UUID && size >= 24) {
			memcpy(m->uuid, c + 8, 16);
			m->has_uuid = true;
		} else if (cmd == LC_FILESET_ENTRY && size >= 32) {
			struct macho_entry *e;
			uint32_t id = le32(c + 24);

			if (id >= size)
				return "bad fileset entry";
			sd_grow(&m->entries, &(size_t){ m->nentries },
				m->nentries + 1, sizeof(*e));
			e = &m->entries[m->nentries++];
			e->vmaddr = le64(c + 8);
			e->fileoff = le64(c + 16);
			e->id = sd_strndup((const char *)c + id, size - id);
		}
		off += size;
	}
	return NULL;
}

struct macho *macho_open(const char *path, uint32_t cputype,
			 const char **why)
{
	struct macho *m;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const char *err;
	void *map;

	*why = NULL;
	if (fd < 0) {
		*why = strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 32) {
		*why = S_ISDIR(st.st_mode) ? "a directory" : "not a Mach-O file";
		close(fd);
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		*why = strerror(errno);
		return NULL;
	}
	m = sd_calloc(1, sizeof(*m));
	m->path = sd_strdup(path);
	m->map = map;
	m->maplen = (size_t)st.st_size;
	if (be32(m->map) == FAT_MAGIC || be32(m->map) == FAT_MAGIC_64) {
		bool wide = be32(m->map) == FAT_MAGIC_64;
		uint32_t n = be32(m->map + 4), asz = wide ? 32 : 20;
		bool found = false;

		if (n == 0 || n > 64 || !inside(m, 8, (uint64_t)n * asz)) {
			*why = "bad fat (universal) header";
			macho_close(m);
			return NULL;
		}
		for (uint32_t i = 0; i < n && !found; i++) {
			const unsigned char *a = m->map + 8 + i * asz;
			uint32_t cpu = be32(a);

			if (cputype ? cpu == cputype :
				      cpu == MACHO_CPU_X86_64 || i == n - 1) {
				m->slice = wide ? be64(a + 8) : be32(a + 8);
				found = true;
			}
		}
		if (!found && !cputype)
			m->slice = wide ? be64(m->map + 16) : be32(m->map + 16);
		else if (!found) {
			char arch[16];

			static __thread char msg[64];
			snprintf(msg, sizeof(msg), "no %s slice in the fat file",
				 macho_arch(cputype, arch));
			*why = msg;
			macho_close(m);
			return NULL;
		}
	}
	m->hdr = m->slice;
	if ((err = parse(m))) {
		*why = err;
		macho_close(m);
		return NULL;
	}
	return m;
}

struct macho *macho_open_entry(struct macho *fs, const char *id)
{
	for (size_t i = 0; i < fs->nentries; i++) {
		struct macho *m;

		if (id ? strcmp(fs->entries[i].id, id) :
			 strcmp(fs->entries[i].id, "com.apple.kernel"))
			continue;
		m = sd_calloc(1, sizeof(*m));
		m->path = sd_strdup(fs->path);
		m->map = fs->map;
		m->maplen = fs->maplen;
		m->slice = fs->slice;
		m->hdr = fs->slice + fs->entries[i].fileoff;
		m->owner = fs;
		if (parse(m)) {
			macho_close(m);
			return NULL;
		}
		return m;
	}
	return NULL;
}

void macho_close(struct macho *m)
{
	if (!m)
		return;
	if (!m->owner && m->map)
		munmap((void *)m->map, m->maplen);
	for (size_t i = 0; i < m->nentries; i++)
		free(m->entries[i].id);
	free(m->entries);
	free(m->segs);
	free(m->sects);
	free(m->path);
	free(m);
}

const char *macho_uuid(const struct macho *m, char *buf)
{
	const uint8_t *u = m->uuid;

	if (!m->has_uuid) {
		buf[0] = '\0';
		return buf;
	}
	snprintf(buf, 37, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-"
		 "%02X%02X%02X%02X%02X%02X", u[0], u[1], u[2], u[3], u[4],
		 u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
	return buf;
}

bool macho_uuid_is(const struct macho *m, const char *text)
{
	char mine[37];
	const char *p = macho_uuid(m, mine), *q = text;

	if (!*p || !text)
		return false;
	for (;;) {
		while (*p == '-')
			p++;
		while (*q == '-')
			q++;
		if (!*p || !*q)
			return !*p && !*q;
		if (toupper((unsigned char)*p) != toupper((unsigned char)*q))
			return false;
		p++;
		q++;
	}
}

const char *macho_arch(uint32_t cputype, char *buf)
{
	if (cputype == MACHO_CPU_X86_64)
		return "x86_64";
	if (cputype == MACHO_CPU_ARM64)
		return "arm64";
	snprintf(buf, 16, "cpu 0x%x", cputype);
	return buf;
}

uint64_t macho_text_vmaddr(const struct macho *m)
{
	for (size_t i = 0; i < m->nsegs; i++)
		if (!strcmp(m->segs[i].name, "__TEXT"))
			return m->segs[i].vmaddr;
	for (size_t i = 0; i < m->nsegs; i++)
		if (strcmp(m->segs[i].name, "__PAGEZERO"))
			return m->segs[i].vmaddr;
	return 0;
}

/* ---- the ELF image ---- */

/* The ELF name of a __DWARF section, or NULL for the ones libdw does not
 * read (__apple_names, ...). Mach-O names are cut at 16 bytes. */
static const char *debug_name(const char *macho, char *buf, size_t len)
{
	if (strncmp(macho, "__debug_", 8))
		return NULL;
	if (!strcmp(macho, "__debug_str_offs"))
		return ".debug_str_offsets";
	snprintf(buf, len, ".%s", macho + 2);
	return buf;
}

static bool is_text(const struct macho_sect *s)
{
	return s->flags & (S_ATTR_PURE_INSTRUCTIONS | S_ATTR_SOME_INSTRUCTIONS);
}

struct nsym {
	uint32_t strx;
	uint8_t type, sect;
	uint64_t value, size;
};

static int nsym_order(const void *a, const void *b)
{
	const struct nsym *x = a, *y = b;

	if (x->sect != y->sect)
		return x->sect - y->sect;
	return (x->value > y->value) - (x->value < y->value);
}

/* The defined symbols of m, each sized up to the next address of its
 * section. */
static struct nsym *defined_symbols(const struct macho *m, size_t *n)
{
	struct nsym *v = sd_calloc(m->nsyms + 1, sizeof(*v));
	const unsigned char *tab = m->map + m->slice + m->symoff;

	*n = 0;
	for (uint32_t i = 0; i < m->nsyms; i++) {
		const unsigned char *e = tab + 16 * (size_t)i;
		uint8_t type = e[4], sect = e[5];
		uint32_t strx = le32(e);

		if ((type & N_STAB) || (type & N_TYPE) != N_SECT || !sect ||
		    sect > m->nsects || strx >= m->strsize ||
		    !memchr(m->map + m->slice + m->stroff + strx, 0,
			    m->strsize - strx))
			continue;
		v[*n].strx = strx;
		v[*n].type = type;
		v[*n].sect = sect;
		v[*n].value = le64(e + 8);
		(*n)++;
	}
	qsort(v, *n, sizeof(*v), nsym_order);
	for (size_t i = 0; i < *n; i++) {
		const struct macho_sect *s = &m->sects[v[i].sect - 1];
		uint64_t end = s->addr + s->size;
		size_t j = i + 1;

		while (j < *n && v[j].sect == v[i].sect &&
		       v[j].value == v[i].value)
			j++;
		if (j < *n && v[j].sect == v[i].sect)
			end = v[j].value;
		v[i].size = end > v[i].value ? end - v[i].value : 0;
	}
	return v;
}

struct strtab {
	char *buf;
	size_t len, cap;
};

static uint32_t str_add(struct strtab *t, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t at = (uint32_t)t->len;

	sd_grow(&t->buf, &t->cap, t->len + n, 1);
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	return at;
}

int macho_image(const struct macho *m, const struct macho *dw,
		struct macho_image *img)
{
	/* the symbols: the dSYM's (a full copy) unless it has none */
	const struct macho *ss = dw && dw->nsyms ? dw : m;
	struct strtab shstr = { 0 };
	size_t nsym, nph = 0, nsh = 1, first_sym_sh, nglobal = 0, strcopy;
	struct nsym *syms = defined_symbols(ss, &nsym);
	size_t *sect_sh = sd_calloc(ss->nsects + 1, sizeof(*sect_sh));
	Elf64_Shdr *sh = sd_calloc(ss->nsects + (dw ? dw->nsects : 0) + 5,
				   sizeof(*sh));
	Elf64_Phdr *ph = sd_calloc(m->nsegs + 1, sizeof(*ph));
	Elf64_Sym *st = sd_calloc(nsym + 1, sizeof(*st));
	size_t page = (size_t)sysconf(_SC_PAGESIZE), hdrlen, off, strtab_at;
	uint64_t dwbase = dw ? dw->slice & ~(uint64_t)(page - 1) : 0;
	size_t dwlen = dw ? dw->maplen - dwbase : 0;
	unsigned char *base;
	Elf64_Ehdr *eh;
	char name[64];

	str_add(&shstr, "");
	for (size_t i = 0; i < m->nsegs; i++) {
		const struct macho_seg *g = &m->segs[i];

		if (!g->vmsize || !strcmp(g->name, "__PAGEZERO") ||
		    !strcmp(g->name, "__LINKEDIT") || !strcmp(g->name, "__DWARF"))
			continue;
		ph[nph].p_type = PT_LOAD;
		ph[nph].p_flags = PF_R | (strstr(g->name, "TEXT") ? PF_X : PF_W);
		ph[nph].p_vaddr = ph[nph].p_paddr = g->vmaddr;
		ph[nph].p_memsz = g->vmsize;
		ph[nph].p_align = 1;
		nph++;
	}
	/* the segments' sections as they are in memory, holding nothing */
	for (size_t i = 0; i < ss->nsects; i++) {
		const struct macho_sect *s = &ss->sects[i];

		if (!strcmp(s->seg, "__DWARF"))
			continue;
		snprintf(name, sizeof(name), "%s,%s", s->seg, s->name);
		sh[nsh].sh_name = str_add(&shstr, name);
		sh[nsh].sh_type = SHT_NOBITS;
		sh[nsh].sh_flags = SHF_ALLOC | (is_text(s) ? SHF_EXECINSTR : 0);
		sh[nsh].sh_addr = s->addr;
		sh[nsh].sh_size = s->size;
		sh[nsh].sh_addralign = 1;
		sect_sh[i + 1] = nsh++;
	}
	first_sym_sh = nsh;
	/* .symtab: locals first, as ELF wants; names point into the Mach-O
	 * string table past the leading '_' */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < nsym; i++) {
			const struct nsym *y = &syms[i];
			const char *nm = (const char *)ss->map + ss->slice +
					 ss->stroff + y->strx;
			Elf64_Sym *e;

			if (!sect_sh[y->sect] || !!(y->type & N_EXT) != pass)
				continue;
			e = &st[1 + nglobal++];
			e->st_name = y->strx + (nm[0] == '_' && nm[1]);
			e->st_info = ELF64_ST_INFO(
				y->type & N_EXT ? STB_GLOBAL : STB_LOCAL,
				is_text(&ss->sects[y->sect - 1]) ? STT_FUNC :
								   STT_OBJECT);
			e->st_shndx = (Elf64_Section)sect_sh[y->sect];
			e->st_value = y->value;
			e->st_size = y->size;
			if (!pass)
				sh[nsh].sh_info = (Elf64_Word)(nglobal + 1);
		}
	if (!sh[nsh].sh_info)
		sh[nsh].sh_info = 1;
	/* the rest of the names: .symtab, .strtab, .shstrtab, .debug_* */
	sh[nsh].sh_name = str_add(&shstr, ".symtab");
	sh[nsh + 1].sh_name = str_add(&shstr, ".strtab");
	sh[nsh + 2].sh_name = str_add(&shstr, ".shstrtab");
	for (size_t i = 0; dw && i < dw->nsects; i++) {
		const struct macho_sect *s = &dw->sects[i];
		const char *dn;

		if (strcmp(s->seg, "__DWARF") ||
		    !(dn = debug_name(s->name, name, sizeof(name))) ||
		    !inside(dw, dw->slice + s->offset, s->size))
			continue;
		sh[nsh + 3].sh_name = str_add(&shstr, dn);
		sh[nsh + 3].sh_type = SHT_PROGBITS;
		sh[nsh + 3].sh_size = s->size;
		sh[nsh + 3].sh_offset = dw->slice + s->offset - dwbase;
		sh[nsh + 3].sh_addralign = 1;
		nsh++;
	}
	nsh += 3;
	/* the header part: Ehdr, Phdrs, Shdrs, symbols, a copy of the
	 * string table when it is not in the mapped dSYM, .shstrtab */
	strcopy = ss == dw ? 0 : ss->strsize;
	off = sizeof(*eh) + nph * sizeof(*ph);
	off += nsh * sizeof(*sh);
	{
		size_t symat = off, symlen = (nglobal + 1) * sizeof(*st);

		strtab_at = symat + symlen;
		hdrlen = strtab_at + strcopy + shstr.len;
		hdrlen = (hdrlen + page - 1) / page * page;
		base = mmap(NULL, hdrlen + dwlen, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED) {
			free(syms), free(sect_sh), free(sh), free(ph), free(st);
			free(shstr.buf);
			return -ENOMEM;
		}
		/* the symbol table's section headers know their place now */
		sh[first_sym_sh].sh_type = SHT_SYMTAB;
		sh[first_sym_sh].sh_offset = symat;
		sh[first_sym_sh].sh_size = symlen;
		sh[first_sym_sh].sh_entsize = sizeof(*st);
		sh[first_sym_sh].sh_link = (Elf64_Word)first_sym_sh + 1;
		sh[first_sym_sh].sh_addralign = 8;
		sh[first_sym_sh + 1].sh_type = SHT_STRTAB;
		sh[first_sym_sh + 1].sh_offset = strcopy ? strtab_at :
			hdrlen + ss->slice + ss->stroff - dwbase;
		sh[first_sym_sh + 1].sh_size = ss->strsize;
		sh[first_sym_sh + 1].sh_addralign = 1;
		sh[first_sym_sh + 2].sh_type = SHT_STRTAB;
		sh[first_sym_sh + 2].sh_offset = strtab_at + strcopy;
		sh[first_sym_sh + 2].sh_size = shstr.len;
		sh[first_sym_sh + 2].sh_addralign = 1;
		for (size_t i = first_sym_sh + 3; i < nsh; i++)
			sh[i].sh_offset += hdrlen;
		memcpy(base + symat, st, symlen);
		if (strcopy)
			memcpy(base + strtab_at, ss->map + ss->slice + ss->stroff,
			       strcopy);
		memcpy(base + strtab_at + strcopy, shstr.buf, shstr.len);
	}
	eh = (Elf64_Ehdr *)base;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = m->cputype == MACHO_CPU_ARM64 ? EM_AARCH64 : EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = nph ? sizeof(*eh) : 0;
	eh->e_shoff = sizeof(*eh) + nph * sizeof(*ph);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = (Elf64_Half)nph;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = (Elf64_Half)nsh;
	eh->e_shstrndx = (Elf64_Half)(first_sym_sh + 2);
	memcpy(base + eh->e_phoff, ph, nph * sizeof(*ph));
	memcpy(base + eh->e_shoff, sh, nsh * sizeof(*sh));
	/* the dSYM beneath, copy-on-write: nothing is read until used */
	if (dw) {
		int fd = open(dw->path, O_RDONLY | O_CLOEXEC);
		void *p = fd < 0 ? MAP_FAILED :
			  mmap(base + hdrlen, dwlen, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_FIXED, fd, (off_t)dwbase);

		if (fd >= 0)
			close(fd);
		if (p == MAP_FAILED) {
			int err = errno;

			munmap(base, hdrlen + dwlen);
			free(syms), free(sect_sh), free(sh), free(ph), free(st);
			free(shstr.buf);
			return -err;
		}
	}
	img->base = base;
	img->len = hdrlen + dwlen;
	free(syms);
	free(sect_sh);
	free(sh);
	free(ph);
	free(st);
	free(shstr.buf);
	return 0;
}

void macho_image_free(struct macho_image *img)
{
	if (img->base)
		munmap(img->base, img->len);
	img->base = NULL;
	img->len = 0;
}
