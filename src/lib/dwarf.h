// SPDX-License-Identifier: GPL-2.0-only
/* dwarf — source locations through elfutils' libdwfl: for an address in
 * one ELF file (an executable, a shared library, vmlinux, or a relocatable
 * kernel module laid out offline), the function and offset from its ELF
 * symbol, the file:line, and the chain of inlined functions, as
 * `eu-addr2line -f -i` prints them. Separate debug files are found by
 * build-id and debuglink (and DEBUGINFOD_URLS) through libdwfl. */
#ifndef SONDE_DWARF_H
#define SONDE_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dsym;

/* Open one file for lookups in its own address space (ELF virtual
 * addresses; for ET_REL files, the offline layout of its sections, see
 * dsym_section_addr). NULL with errno set, or with *why set to libdwfl's
 * message when it is not usable ELF. */
struct dsym *dsym_open(const char *path, const char **why);
/* The same for an ELF image in memory (size bytes at data, which must
 * stay mapped until dsym_close; name is what messages call it): sonde
 * kptrace wraps a Mach-O dSYM's DWARF in one. */
struct dsym *dsym_open_memory(const char *name, void *data, size_t size,
			      const char **why);
void dsym_close(struct dsym *d);

/* Hex build-id, or "". */
const char *dsym_build_id(const struct dsym *d);
/* Whether DWARF line information was found (in the file or a debug file). */
bool dsym_has_dwarf(struct dsym *d);
/* Where a section (".text", ".init.text", ...) of an ET_REL file was laid
 * out, so that section + offset becomes a lookup address; for other files
 * the section's sh_addr. 0, or -ENOENT. */
int dsym_section_addr(struct dsym *d, const char *section, uint64_t *addr);
/* One section of the file, as dsym_sections reports it. */
struct dsym_section {
	const char *name;
	uint64_t addr;		/* as dsym_section_addr gives it */
	uint64_t size, align;	/* align: 1 when the file says 0 */
	bool alloc, exec;	/* SHF_ALLOC, SHF_EXECINSTR */
};
/* Call fn for every section of the file, in section-header order (an
 * offline kernel module's layout follows that order). Returns the number
 * of sections, or -ENOENT. */
int dsym_sections(struct dsym *d,
		  void (*fn)(const struct dsym_section *sec, void *arg),
		  void *arg);
/* The address of a symbol by name (the first match), 0 or -ENOENT. */
int dsym_symbol_addr(struct dsym *d, const char *name, uint64_t *addr);

/* Call fn for every defined function and object symbol of the file, with
 * its address (in the same space as dsym_lookup's) and size. Returns the
 * number of symbols. */
int dsym_symbols(struct dsym *d,
		 void (*fn)(const char *name, uint64_t addr, uint64_t size,
			    void *arg),
		 void *arg);

/* One level of an address's location. */
struct dsym_loc {
	const char *func;	/* NULL when unknown */
	const char *linkage;	/* the DIE's linkage name (a Rust or C++
				 * symbol: std's inlined functions carry their
				 * path only there); NULL when none */
	uint64_t func_off;	/* from the ELF symbol; only in the outermost */
	const char *file;	/* NULL when there is no line information */
	int line, col;
	bool inlined;		/* this function was inlined into the next */
};

/* Fill locs[0..] for addr, innermost first: locs[0] is the function the
 * address is really in (an inlined one if so) with the address's line;
 * each next entry is the function it was inlined into, with the line of
 * the call. The last entry is the real (out-of-line) function, whose
 * func_off is the offset from its ELF symbol. Returns the number of
 * entries (at most max; 0 when nothing is known). Strings live until
 * dsym_close. */
int dsym_lookup(struct dsym *d, uint64_t addr, struct dsym_loc *locs, int max);
/* How many lookups of each CU read its line program directly (one pass,
 * no table: lib/dwarf_line.c) before libdw's line table is built: 4 by
 * default; 0 for libdw alone, UINT_MAX for direct reads alone (tests
 * compare the two). The answers are the same either way. */
void dsym_set_direct_lines(struct dsym *d, unsigned scans);

#endif
