// SPDX-License-Identifier: GPL-2.0-only
/* kdk — where the files of a macOS panic are: the Kernel Debug Kit of the
 * report's build (a KDK_<version>_<build>.kdk, or a directory of them),
 * the kernel in it whose LC_UUID is the report's Kernel UUID, kext
 * bundles (Contents/Info.plist's CFBundleIdentifier and
 * CFBundleExecutable, Contents/MacOS/<executable>) given with --kext or
 * in the KDK's System/Library/Extensions, and each file's dSYM (beside it
 * as NAME.dSYM or NAME.kext.dSYM, or inside the bundle). Finding only:
 * symbolize_macos.c opens what it names. */
#ifndef SONDE_KPTRACE_KDK_H
#define SONDE_KPTRACE_KDK_H

#include "macho.h"

#include <stdbool.h>
#include <stddef.h>

/* The KDK for a build: dir itself when it is a KDK (has
 * System/Library/Kernels), else the KDK_*_<build>.kdk inside it. NULL
 * when there is none; *seen then lists the KDKs found ("KDK_14.1_23B74.kdk,
 * ...", malloc'd, "" when none), and *exists whether dir exists. */
char *kdk_find(const char *dir, const char *build, char **seen,
	       bool *exists);

/* A kernel of a KDK, or a kext. */
struct kdk_file {
	char *path;		/* the Mach-O file */
	char *bundle;		/* a kext's bundle id, or NULL */
	char *bundle_dir;	/* a kext bundle's directory, or NULL */
	struct macho *file;	/* opened: the file, a fileset when entry */
	struct macho *m;	/* the Mach-O: file, or its fileset entry */
};
void kdk_file_free(struct kdk_file *f);

/* The kernel of a KDK for the report: the one whose LC_UUID is uuid; with
 * no uuid, the one the kernel version names ("RELEASE_X86_64": kernel,
 * "DEVELOPMENT_ARM64_T6020": kernel.development.t6020). 0, or -ENOENT
 * with *seen listing what was there ("kernel UUID ..., ..."). */
int kdk_kernel(const char *kdk, uint32_t cputype, const char *uuid,
	       const char *version, struct kdk_file *out, char **seen);

/* A --kext argument: a bundle (its Info.plist and executable) or a Mach-O
 * file. 0, or -errno with *why. */
int kdk_kext_arg(const char *path, uint32_t cputype, struct kdk_file *out,
		 const char **why);
/* A kext of a KDK (System/Library/Extensions, and the PlugIns inside
 * them) by bundle id: 0 or -ENOENT. */
int kdk_kext_in(const char *kdk, const char *bundle, uint32_t cputype,
		struct kdk_file *out);

/* The dSYM's DWARF file for a Mach-O file (and its bundle directory),
 * malloc'd, or NULL. */
char *kdk_dsym(const char *path, const char *bundle_dir);

/* The string value of key in an XML property list (Info.plist),
 * malloc'd, or NULL. */
char *kdk_plist_string(const char *path, const char *key);

#endif
