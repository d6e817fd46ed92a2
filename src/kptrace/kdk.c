// SPDX-License-Identifier: GPL-2.0-only
/* kdk — finding a macOS panic's kernel, kexts and dSYMs; see kdk.h. */
#include "kdk.h"
#include "../lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *e)
{
	size_t n = strlen(s), m = strlen(e);

	return n >= m && !strcmp(s + n - m, e);
}

static char *join(const char *a, const char *b)
{
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_printf(&sb, "%s/%s", a, b);
	return sbuf_steal(&sb);
}

/* "KDK_14.2_23C71.kdk" -> "23C71" into buf, or "" */
static const char *kdk_build(const char *name, char *buf, size_t len)
{
	const char *u = strrchr(name, '_');
	size_t n;

	buf[0] = '\0';
	if (!u || !ends_with(name, ".kdk"))
		return buf;
	n = strlen(u + 1) - 4;
	if (n && n < len)
		snprintf(buf, len, "%.*s", (int)n, u + 1);
	return buf;
}

char *kdk_find(const char *dir, const char *build, char **seen,
	       bool *exists)
{
	char *k = join(dir, "System/Library/Kernels");
	struct sbuf list;
	struct dirent *e;
	char *found = NULL;
	DIR *d;

	*seen = NULL;
	*exists = is_dir(dir);
	if (is_dir(k)) {		/* a KDK itself */
		free(k);
		return sd_strdup(dir);
	}
	free(k);
	sbuf_init(&list);
	if ((d = opendir(dir))) {
		while ((e = readdir(d))) {
			char b[64], *p;

			if (!ends_with(e->d_name, ".kdk"))
				continue;
			p = join(dir, e->d_name);
			if (!found && build &&
			    !strcmp(kdk_build(e->d_name, b, sizeof(b)), build))
				found = p;
			else
				free(p);
			sbuf_printf(&list, "%s%s", list.len ? ", " : "",
				    e->d_name);
		}
		closedir(d);
	}
	if (found) {
		sbuf_free(&list);
		return found;
	}
	sbuf_putc(&list, '\0');
	*seen = sbuf_steal(&list);
	return NULL;
}

void kdk_file_free(struct kdk_file *f)
{
	if (f->m != f->file)
		macho_close(f->m);
	macho_close(f->file);
	free(f->path);
	free(f->bundle);
	free(f->bundle_dir);
	memset(f, 0, sizeof(*f));
}

/* Open path as a Mach-O of cputype; a fileset's entry id (its kernel's
 * when id is NULL). */
static int open_file(const char *path, uint32_t cputype, const char *id,
		     struct kdk_file *out, const char **why)
{
	memset(out, 0, sizeof(*out));
	out->file = macho_open(path, cputype, why);
	if (!out->file)
		return -ENOEXEC;
	if (cputype && out->file->cputype != cputype) {
		*why = "another architecture";
		macho_close(out->file);
		out->file = NULL;
		return -ENOEXEC;
	}
	out->m = out->file;
	if (out->file->filetype == MACHO_FILESET) {
		out->m = macho_open_entry(out->file, id);
		if (!out->m) {
			*why = "no such entry in the kernel collection";
			macho_close(out->file);
			out->file = NULL;
			return -ENOENT;
		}
	}
	out->path = sd_strdup(path);
	return 0;
}

/* The kernel file a kernel version names: "...RELEASE_X86_64" ->
 * "kernel", "DEVELOPMENT_ARM64_T6020" -> "kernel.development.t6020". */
static void variant_name(const char *version, char *buf, size_t len)
{
	const char *p = version ? strrchr(version, '/') : NULL;
	char kind[32] = "", soc[32] = "";

	snprintf(buf, len, "kernel");
	if (!p || sscanf(p + 1, "%31[A-Z]_", kind) != 1)
		return;
	for (char *c = kind; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	p = strstr(p, "_ARM64_");
	if (p)
		for (size_t i = 0; p[7 + i] && !isspace((unsigned char)p[7 + i]) &&
				   i + 1 < sizeof(soc); i++)
			soc[i] = (char)tolower((unsigned char)p[7 + i]),
			soc[i + 1] = '\0';
	if (!strcmp(kind, "release") && !*soc)
		return;
	snprintf(buf, len, "kernel.%s%s%s", kind, *soc ? "." : "", soc);
}

int kdk_kernel(const char *kdk, uint32_t cputype, const char *uuid,
	       const char *version, struct kdk_file *out, char **seen)
{
	char *dir = join(kdk, "System/Library/Kernels"), want[64];
	struct sbuf list;
	struct dirent *e;
	DIR *d = opendir(dir);
	int ret = -ENOENT;

	sbuf_init(&list);
	variant_name(version, want, sizeof(want));
	while (d && ret && (e = readdir(d))) {
		char *p, u[37];
		const char *why;
		struct kdk_file f;

		if (e->d_name[0] == '.' || ends_with(e->d_name, ".dSYM"))
			continue;
		p = join(dir, e->d_name);
		if (!is_file(p) || open_file(p, cputype, NULL, &f, &why)) {
			free(p);
			continue;
		}
		free(p);
		sbuf_printf(&list, "%s%s UUID %s", list.len ? ", " : "",
			    e->d_name, *macho_uuid(f.m, u) ? u : "none");
		if (uuid ? macho_uuid_is(f.m, uuid) : !strcmp(e->d_name, want)) {
			*out = f;
			ret = 0;
		} else {
			kdk_file_free(&f);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	sbuf_putc(&list, '\0');
	if (ret)
		*seen = sbuf_steal(&list);
	else
		sbuf_free(&list);
	return ret;
}

char *kdk_plist_string(const char *path, const char *key)
{
	size_t len;
	char *buf = sd_read_file(path, &len), pat[128], *p, *s, *e;

	if (!buf)
		return NULL;
	snprintf(pat, sizeof(pat), "<key>%s</key>", key);
	p = strstr(buf, pat);
	if (!p || !(s = strstr(p + strlen(pat), "<string>")) ||
	    !(e = strstr(s, "</string>"))) {
		free(buf);
		return NULL;
	}
	/* only blanks between the key and its value */
	for (const char *q = p + strlen(pat); q < s; q++)
		if (!isspace((unsigned char)*q)) {
			free(buf);
			return NULL;
		}
	s += 8;
	p = sd_strndup(s, (size_t)(e - s));
	free(buf);
	return p;
}

/* A bundle directory: its Info.plist (macOS Contents/ or flat) and
 * executable. */
static int open_bundle(const char *dir, uint32_t cputype,
		       struct kdk_file *out, const char **why)
{
	static const char *const layouts[][2] = {
		{ "Contents/Info.plist", "Contents/MacOS" },
		{ "Info.plist", "" },
	};

	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		char *plist = join(dir, layouts[i][0]), *id, *exe, *path;
		struct sbuf sb;
		int err;

		if (!is_file(plist)) {
			free(plist);
			continue;
		}
		id = kdk_plist_string(plist, "CFBundleIdentifier");
		exe = kdk_plist_string(plist, "CFBundleExecutable");
		free(plist);
		if (!id || !exe) {
			free(id);
			free(exe);
			*why = "its Info.plist names no CFBundleIdentifier and "
			       "CFBundleExecutable (binary plists are not read)";
			return -EINVAL;
		}
		sbuf_init(&sb);
		sbuf_printf(&sb, "%s%s%s/%s", dir, *layouts[i][1] ? "/" : "",
			    layouts[i][1], exe);
		path = sbuf_steal(&sb);
		err = open_file(path, cputype, NULL, out, why);
		free(path);
		free(exe);
		if (err) {
			free(id);
			return err;
		}
		out->bundle = id;
		out->bundle_dir = sd_strdup(dir);
		return 0;
	}
	*why = "no Info.plist in it (not a kext bundle)";
	return -ENOENT;
}

int kdk_kext_arg(const char *path, uint32_t cputype, struct kdk_file *out,
		 const char **why)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st)) {
		*why = strerror(errno);
		return -errno;
	}
	if (S_ISDIR(st.st_mode))
		return open_bundle(path, cputype, out, why);
	return open_file(path, cputype, NULL, out, why);
}

static int kext_search(const char *dir, const char *bundle, uint32_t cputype,
		       struct kdk_file *out, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int ret = -ENOENT;

	while (d && ret && (e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.' || !ends_with(e->d_name, ".kext"))
			continue;
		p = join(dir, e->d_name);
		{
			char *plist = join(p, "Contents/Info.plist"), *id;
			const char *why;

			id = kdk_plist_string(plist, "CFBundleIdentifier");
			if (!id) {
				free(plist);
				plist = join(p, "Info.plist");
				id = kdk_plist_string(plist, "CFBundleIdentifier");
			}
			free(plist);
			if (id && !strcmp(id, bundle) &&
			    !open_bundle(p, cputype, out, &why))
				ret = 0;
			free(id);
		}
		if (ret && depth > 0) {	/* PlugIns inside */
			char *plugins = join(p, "Contents/PlugIns");

			ret = kext_search(plugins, bundle, cputype, out,
					  depth - 1);
			free(plugins);
		}
		free(p);
	}
	if (d)
		closedir(d);
	return ret;
}

int kdk_kext_in(const char *kdk, const char *bundle, uint32_t cputype,
		struct kdk_file *out)
{
	char *dir = join(kdk, "System/Library/Extensions");
	int ret = kext_search(dir, bundle, cputype, out, 2);

	free(dir);
	return ret;
}

/* The DWARF file of a dSYM bundle: Contents/Resources/DWARF/<name>, or
 * the only file there. */
static char *dsym_dwarf(const char *dsym, const char *name)
{
	char *dir = join(dsym, "Contents/Resources/DWARF"), *p = join(dir, name);
	DIR *d;
	struct dirent *e;

	if (is_file(p)) {
		free(dir);
		return p;
	}
	free(p);
	p = NULL;
	if ((d = opendir(dir))) {
		while (!p && (e = readdir(d)))
			if (e->d_name[0] != '.')
				p = join(dir, e->d_name);
		closedir(d);
	}
	free(dir);
	if (p && !is_file(p)) {
		free(p);
		p = NULL;
	}
	return p;
}

char *kdk_dsym(const char *path, const char *bundle_dir)
{
	const char *base = strrchr(path, '/');
	char *found = NULL;
	char cands[6][4096];
	int n = 0;

	base = base ? base + 1 : path;
	/* the file's own: kernel.dSYM beside kernel */
	snprintf(cands[n++], sizeof(cands[0]), "%s.dSYM", path);
	if (bundle_dir) {
		const char *bb = strrchr(bundle_dir, '/');
		size_t bl;

		bb = bb ? bb + 1 : bundle_dir;
		bl = strlen(bb) - (ends_with(bb, ".kext") ? 5 : 0);
		/* X.kext.dSYM and X.dSYM beside the bundle */
		snprintf(cands[n++], sizeof(cands[0]), "%s.dSYM", bundle_dir);
		snprintf(cands[n++], sizeof(cands[0]), "%.*s.dSYM",
			 (int)(strlen(bundle_dir) - strlen(bb) + bl), bundle_dir);
		/* inside it */
		snprintf(cands[n++], sizeof(cands[0]),
			 "%s/Contents/Resources/%s.dSYM", bundle_dir, base);
		snprintf(cands[n++], sizeof(cands[0]),
			 "%s/Contents/Resources/%s.kext.dSYM", bundle_dir, base);
		snprintf(cands[n++], sizeof(cands[0]), "%s/%s.dSYM",
			 bundle_dir, base);
	}
	for (int i = 0; i < n && !found; i++)
		if (is_dir(cands[i]))
			found = dsym_dwarf(cands[i], base);
	return found;
}
