// SPDX-License-Identifier: GPL-2.0-only
/* elfsym — function symbols of one ELF file (.symtab, else .dynsym; a
 * separate debug file found by build-id under /usr/lib/debug when the
 * binary is stripped), looked up by file offset or by address. Used to
 * name user-space code; DWARF lines and inlines belong to a richer module. */
#ifndef SONDE_ELFSYM_H
#define SONDE_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsym;

/* Load a file's symbols. NULL with errno set when it is not a readable
 * ELF file. */
struct elfsym *elfsym_open(const char *path);
/* The kernel's vDSO, read from this process's own mapping (the same image
 * in every process). NULL if there is none. */
struct elfsym *elfsym_open_vdso(void);
void elfsym_close(struct elfsym *e);

/* Convert a file offset (from a mapping: addr - start + pgoff) to the ELF
 * virtual address through the PT_LOAD segments; false if no segment holds
 * it. */
bool elfsym_off_to_addr(const struct elfsym *e, uint64_t off, uint64_t *addr);
/* The function containing an ELF virtual address: its name, and the offset
 * from its start in *delta; NULL if none. */
const char *elfsym_lookup(const struct elfsym *e, uint64_t addr,
			  uint64_t *delta);
size_t elfsym_count(const struct elfsym *e);
/* Symbol i, aliases included (sorted by address): its name, address and
 * size; NULL past the end. */
const char *elfsym_get(const struct elfsym *e, size_t i, uint64_t *addr,
		       uint64_t *size);
/* Symbol i's binding as a rank: 2 global, 1 weak, 0 local; -1 past the
 * end. */
int elfsym_binding_rank(const struct elfsym *e, size_t i);
/* The file offset of an ELF virtual address (the reverse of
 * elfsym_off_to_addr): where a uprobe on it goes. */
bool elfsym_addr_to_off(const struct elfsym *e, uint64_t addr,
			uint64_t *off);
/* Hex build-id, or "" when the file has none. */
const char *elfsym_build_id(const struct elfsym *e);

#endif
