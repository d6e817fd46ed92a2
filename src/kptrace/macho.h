// SPDX-License-Identifier: GPL-2.0-only
/* macho — reads the Mach-O files of a macOS kernel and its kexts, as a
 * Kernel Debug Kit ships them: 64-bit x86_64 and arm64 (arm64e) files of
 * type MH_EXECUTE (the kernel), MH_KEXT_BUNDLE and MH_BUNDLE (kexts),
 * MH_DSYM (their dSYMs) and MH_FILESET (a kernel collection: each entry
 * a Mach-O of its own), thin or fat (universal, a slice by architecture).
 * It gives the segments and sections, LC_UUID and the LC_SYMTAB symbols,
 * and wraps a file's symbols and its dSYM's DWARF in an ELF image (the
 * dSYM mapped beneath ELF headers, nothing copied), so that lib/dwarf's
 * line and inline logic — the Linux path's — reads Mach-O too. */
#ifndef SONDE_KPTRACE_MACHO_H
#define SONDE_KPTRACE_MACHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MACHO_CPU_X86_64 0x01000007
#define MACHO_CPU_ARM64 0x0100000c

enum {
	MACHO_EXECUTE = 0x2,
	MACHO_BUNDLE = 0x8,
	MACHO_DSYM = 0xa,
	MACHO_KEXT_BUNDLE = 0xb,
	MACHO_FILESET = 0xc,
};

struct macho_seg {
	char name[17];
	uint64_t vmaddr, vmsize, fileoff, filesize;
};

struct macho_sect {
	char seg[17], name[17];
	uint64_t addr, size;
	uint32_t offset;	/* in the file (of its slice) */
	uint32_t flags;
};

/* A fileset's entry: an inner Mach-O (the kernel, a kext). */
struct macho_entry {
	char *id;		/* "com.apple.kernel", a bundle id */
	uint64_t vmaddr, fileoff;
};

struct macho {
	char *path;
	const unsigned char *map;	/* the whole file, read-only */
	size_t maplen;
	uint64_t slice;			/* where its slice starts (fat) */
	uint64_t hdr;			/* where its header is (a fileset
					 * entry's is inside the slice) */
	uint32_t cputype, cpusubtype, filetype;
	uint8_t uuid[16];
	bool has_uuid;
	struct macho_seg *segs;
	size_t nsegs;
	struct macho_sect *sects;	/* in load-command order: symbols'
					 * n_sect counts from 1 into it */
	size_t nsects;
	uint32_t symoff, nsyms, stroff, strsize;
	struct macho_entry *entries;	/* MH_FILESET only */
	size_t nentries;
	struct macho *owner;		/* the fileset an entry is in */
};

/* Open a Mach-O file; cputype picks a fat file's slice (0: the only one,
 * or x86_64). NULL with *why set (a static string) when it is none. */
struct macho *macho_open(const char *path, uint32_t cputype,
			 const char **why);
/* The fileset entry named id (or the kernel's, "com.apple.kernel", when
 * id is NULL) as a Mach-O of its own; NULL when there is none. */
struct macho *macho_open_entry(struct macho *fileset, const char *id);
void macho_close(struct macho *m);

/* "F73CFE5A-7EF6-3C21-AFA7-742645B733CC" into buf (37 bytes), or "" */
const char *macho_uuid(const struct macho *m, char *buf);
/* Whether a UUID as a report prints it (any case, dashes or not) is m's. */
bool macho_uuid_is(const struct macho *m, const char *text);
/* "x86_64", "arm64", or "cpu 0x..." into buf (16 bytes). */
const char *macho_arch(uint32_t cputype, char *buf);
/* The vmaddr of the segment that holds the file's start (its __TEXT),
 * where a kext's load address is. */
uint64_t macho_text_vmaddr(const struct macho *m);

/* An ELF image (ET_EXEC) with m's segments as PT_LOAD, its sections and
 * LC_SYMTAB (names without Mach-O's leading '_', sizes up to the next
 * symbol) as .symtab, and the __DWARF sections of dwarf (m's dSYM; NULL:
 * none) as .debug_*. Read-only mapping; macho_image_free unmaps it. */
struct macho_image {
	void *base;
	size_t len;
};
int macho_image(const struct macho *m, const struct macho *dwarf,
		 struct macho_image *img);
void macho_image_free(struct macho_image *img);

#endif
