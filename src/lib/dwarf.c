/* dwarf — libdwfl-based symbolization of one file. See dwarf.h.
 *
 * Each dsym holds its own Dwfl session with the one file reported
 * offline, so ET_REL kernel modules get their sections laid out and
 * relocated by libdwfl. */
#include "dwarf.h"
#include "util.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dsym {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;		/* libdwfl address = ELF address + bias */
	char build_id[2 * 64 + 1];
};

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct dsym *dsym_open(const char *path, const char **why)
{
	struct dsym *d;
	const unsigned char *id;
	GElf_Addr vaddr;
	int n;

	if (why)
		*why = NULL;
	d = sd_calloc(1, sizeof(*d));
	d->dwfl = dwfl_begin(&offline_callbacks);
	if (!d->dwfl) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->mod = dwfl_report_offline(d->dwfl, path, path, -1);
	if (!d->mod || dwfl_report_end(d->dwfl, NULL, NULL) != 0) {
		if (why)
			*why = dwfl_errmsg(-1);
		dwfl_end(d->dwfl);
		free(d);
		errno = access(path, R_OK) ? errno : ENOEXEC;
		return NULL;
	}
	if (!dwfl_module_getelf(d->mod, &d->bias)) {
		if (why)
			*why = dwfl_errmsg(-1);
		dwfl_end(d->dwfl);
		free(d);
		errno = ENOEXEC;
		return NULL;
	}
	n = dwfl_module_build_id(d->mod, &id, &vaddr);
	for (int i = 0; i < n && i < 64; i++)
		sprintf(d->build_id + 2 * i, "%02x", id[i]);
	return d;
}

void dsym_close(struct dsym *d)
{
	if (!d)
		return;
	dwfl_end(d->dwfl);
	free(d);
}

const char *dsym_build_id(const struct dsym *d)
{
	return d->build_id;
}

bool dsym_has_dwarf(struct dsym *d)
{
	Dwarf_Addr bias;

	return dwfl_module_getdwarf(d->mod, &bias) != NULL;
}

int dsym_section_addr(struct dsym *d, const char *section, uint64_t *addr)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, section) == 0) {
			/* dwfl_offline_section_address wrote the layout into
			 * sh_addr of the relocated ELF. */
			*addr = sh.sh_addr;
			return 0;
		}
	}
	return -ENOENT;
}

int dsym_symbol_addr(struct dsym *d, const char *name, uint64_t *addr)
{
	int n = dwfl_module_getsymtab(d->mod);

	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(d->mod, i, &sym, &a,
							NULL, NULL, NULL);

		if (s && strcmp(s, name) == 0 && sym.st_shndx != SHN_UNDEF) {
			*addr = a - d->bias;
			return 0;
		}
	}
	return -ENOENT;
}

int dsym_symbols(struct dsym *d,
		 void (*fn)(const char *name, uint64_t addr, uint64_t size,
			    void *arg),
		 void *arg)
{
	int n = dwfl_module_getsymtab(d->mod), count = 0;

	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *s = dwfl_module_getsym_info(d->mod, i, &sym, &a,
							NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!s || !*s || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_NOTYPE &&
		     type != STT_OBJECT))
			continue;
		fn(s, a - d->bias, sym.st_size, arg);
		count++;
	}
	return count;
}

/* A DIE's name, following abstract_origin and specification; the
 * linkage name when there is no plain one. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	if (!s && (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
		   dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)))
		s = dwarf_formstring(&a);
	return s;
}

/* The call site of an inlined_subroutine DIE: file and line. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, const char **file,
		      int *line, int *col)
{
	Dwarf_Attribute a;
	Dwarf_Word v;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = *col = 0;
	if (dwarf_attr(inl, DW_AT_call_line, &a) && !dwarf_formudata(&a, &v))
		*line = (int)v;
	if (dwarf_attr(inl, DW_AT_call_column, &a) && !dwarf_formudata(&a, &v))
		*col = (int)v;
	if (dwarf_attr(inl, DW_AT_call_file, &a) && !dwarf_formudata(&a, &v) &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && v < nfiles)
		*file = dwarf_filesrc(files, v, NULL, NULL);
}

int dsym_lookup(struct dsym *d, uint64_t addr, struct dsym_loc *locs, int max)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *symname;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu, *scopes = NULL;
	Dwfl_Line *line;
	bool outermost = false;
	int n = 0, nscopes;

	if (max <= 0)
		return 0;
	memset(locs, 0, sizeof(*locs) * max);
	addr += d->bias;
	symname = dwfl_module_addrinfo(d->mod, addr, &off, &sym, NULL, NULL,
				       NULL);

	/* The line of the address itself belongs to the innermost level. */
	line = dwfl_module_getsrc(d->mod, addr);
	if (line)
		locs[0].file = dwfl_lineinfo(line, NULL, &locs[0].line,
					     &locs[0].col, NULL, NULL);

	/* The innermost scope at the address, then all the DIEs it is
	 * nested in (dwarf_getscopes alone skips from an inlined instance to
	 * the CU): inlined instances, then the subprogram they sit in. Each
	 * inlined level's call site is the line of the level outside it. */
	cu = dwfl_module_addrdie(d->mod, addr, &bias);
	nscopes = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	if (nscopes > 0) {
		Dwarf_Die inner = scopes[0], *chain = NULL;
		int nchain = dwarf_getscopes_die(&inner, &chain);

		if (nchain > 0) {
			free(scopes);
			scopes = chain;
			nscopes = nchain;
		}
	}
	for (int i = 0; i < nscopes && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_subprogram)
			continue;
		locs[n].func = die_name(&scopes[i]);
		if (tag == DW_TAG_subprogram) {
			n++;
			outermost = true;
			break;
		}
		locs[n].inlined = true;
		if (n + 1 < max)
			call_site(cu, &scopes[i], &locs[n + 1].file,
				  &locs[n + 1].line, &locs[n + 1].col);
		n++;
	}
	free(scopes);

	if (n == 0) {
		/* No DWARF scope: the ELF symbol and line table alone. */
		if (!symname && !locs[0].file)
			return 0;
		n = 1;
		outermost = true;
	}
	/* The out-of-line function is named by its ELF symbol when one covers
	 * the address (DWARF lacks suffixes such as .cold or .constprop.0). */
	if (outermost && symname) {
		locs[n - 1].func = symname;
		locs[n - 1].func_off = off;
	}
	return n;
}
