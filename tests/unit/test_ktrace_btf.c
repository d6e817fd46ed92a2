// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for ktrace's record_btf: the tracepoint ids and the small BTF
 * it finds in the kernel's, checked against libbpf's own parse of the
 * kernel's BTF (the ids by name, each field's offset and size found by
 * walking libbpf's types). Skipped where the kernel has no BTF. */
#include "test.h"
#include "ktrace/record_btf.h"
#include "lib/util.h"

#include <bpf/btf.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

/* In btf, the member name of the struct or union id (looked for in its
 * anonymous members too): its type id and offset in bits. */
static bool member(const struct btf *btf, uint32_t id, const char *name,
		   uint32_t *type, uint32_t *bits)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	if (!t || !btf_is_composite(t))
		return false;
	m = btf_members(t);
	for (int i = 0; i < (int)btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(btf, m[i].name_off);
		uint32_t sub = 0;

		if (!n || !*n) {
			if (member(btf, m[i].type, name, type, &sub)) {
				*bits += btf_member_bit_offset(t, i) + sub;
				return true;
			}
		} else if (!strcmp(n, name)) {
			*type = m[i].type;
			*bits += btf_member_bit_offset(t, i);
			return true;
		}
	}
	return false;
}

/* The field's offset (bits) and size (bytes) in btf: false when absent. */
static bool field(const struct btf *btf, const struct ktr_btf_field *f,
		  uint32_t *bits, long *size)
{
	int id = btf__find_by_name_kind(btf, f->type, BTF_KIND_STRUCT);
	uint32_t type = id;

	*bits = 0;
	if (id <= 0)
		return false;
	for (int d = 0; d < 4 && f->path[d]; d++)
		if (!member(btf, type, f->path[d], &type, bits))
			return false;
	*size = btf__resolve_size(btf, type);
	return true;
}

static const char *const tps[] = {
	"sys_enter", "sys_exit", "sched_switch", "no_such_tracepoint",
};

static const struct ktr_btf_field fields[] = {
	{ "task_struct", { "tgid" } },
	{ "task_struct", { "comm" } },		/* an array */
	{ "task_struct", { "mm" } },		/* a pointer */
	{ "task_struct", { "start_time" } },
	{ "task_struct", { "thread_info", "cpu" } },	/* nested */
	{ "task_struct", { "no_such_member" } },
	{ "signal_struct", { "live", "counter" } },	/* through a typedef */
	{ "mm_struct", { "arg_start" } },	/* in an anonymous struct */
	{ "mm_struct", { "env_end" } },
	{ "sk_buff", { "dev" } },		/* anonymous, not at 0 */
	{ "no_such_struct", { "x" } },
};

static void small_btf_matches_the_kernels(void **state)
{
	struct btf *kb, *out;
	uint32_t ids[ARRAY_SIZE(tps)];
	char path[64];
	int fd, found = 0;

	(void)state;
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		skip();
	kb = btf__load_vmlinux_btf();
	assert_non_null(kb);
	fd = memfd_create("test", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ktr_btf_scan(tps, ARRAY_SIZE(tps), ids, fields,
				      ARRAY_SIZE(fields), fd, NULL), 0);
	for (size_t i = 0; i < ARRAY_SIZE(tps); i++) {
		char name[80];
		int id;

		snprintf(name, sizeof(name), "btf_trace_%s", tps[i]);
		id = btf__find_by_name_kind(kb, name, BTF_KIND_TYPEDEF);
		assert_int_equal(ids[i], id > 0 ? (uint32_t)id : 0);
	}
	assert_true(ids[0] > 0 && ids[1] > 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	out = btf__parse(path, NULL);
	assert_non_null(out);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		uint32_t kbits, obits;
		long ksize, osize;
		bool in_kernel = field(kb, &fields[i], &kbits, &ksize);

		/* What the kernel has is there, where the kernel has it;
		 * what it lacks is not. */
		assert_int_equal(field(out, &fields[i], &obits, &osize),
				 in_kernel);
		if (!in_kernel)
			continue;
		found++;
		assert_int_equal(obits, kbits);
		assert_int_equal(osize, ksize);
	}
	assert_true(found >= 8);
	/* The structs are the kernel's size. */
	for (size_t i = 0; i < 3; i++) {
		const char *s[] = { "task_struct", "signal_struct", "mm_struct" };

		assert_int_equal(
			btf__resolve_size(out, btf__find_by_name_kind(
					  out, s[i], BTF_KIND_STRUCT)),
			btf__resolve_size(kb, btf__find_by_name_kind(
					  kb, s[i], BTF_KIND_STRUCT)));
	}
	assert_int_equal(btf__pointer_size(out), sizeof(void *));
	btf__free(out);
	btf__free(kb);
	close(fd);
}

static void unwritable_output_is_an_error(void **state)
{
	uint32_t ids[ARRAY_SIZE(tps)];
	int fd[2];

	(void)state;
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		skip();
	assert_int_equal(pipe(fd), 0);
	close(fd[1]);
	/* (The read end of a pipe cannot be written.) */
	assert_true(ktr_btf_scan(tps, ARRAY_SIZE(tps), ids, fields,
				 ARRAY_SIZE(fields), fd[0], NULL) < 0);
	close(fd[0]);
}

/* One scan into a new memfd: its bytes into *buf. */
static size_t scan_to(const char *dir, uint32_t *ids, char **buf)
{
	int fd = memfd_create("test", MFD_CLOEXEC);
	struct stat st;

	assert_true(fd >= 0);
	assert_int_equal(ktr_btf_scan(tps, ARRAY_SIZE(tps), ids, fields,
				      ARRAY_SIZE(fields), fd, dir), 0);
	assert_int_equal(fstat(fd, &st), 0);
	*buf = malloc(st.st_size + 1);
	assert_int_equal(pread(fd, *buf, st.st_size, 0), st.st_size);
	close(fd);
	return st.st_size;
}

/* The one file the scans keep in dir: its path into path, its stat. */
static void kept(const char *dir, char *path, size_t size, struct stat *st)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		assert_memory_equal(e->d_name, "ktrace-btf-", 11);
		snprintf(path, size, "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	assert_int_equal(n, 1);
	assert_int_equal(lstat(path, st), 0);
}

static void scan_is_kept_for_the_boot(void **state)
{
	char dir[] = "/tmp/sonde-btf-XXXXXX", sub[64], path[512];
	uint32_t ids0[ARRAY_SIZE(tps)], ids[ARRAY_SIZE(tps)];
	char *b0, *b;
	size_t n0, n;
	struct stat st, st2;
	int fd;
	char c;

	(void)state;
	if (access("/sys/kernel/btf/vmlinux", R_OK) || geteuid())
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/keep", dir);
	/* The first scan makes the directory (0700) and a file (0600). */
	n0 = scan_to(sub, ids0, &b0);
	assert_int_equal(lstat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	kept(sub, path, sizeof(path), &st);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* The next reads it: the same result, the file left as it was. */
	n = scan_to(sub, ids, &b);
	assert_int_equal(n, n0);
	assert_memory_equal(b, b0, n0);
	assert_memory_equal(ids, ids0, sizeof(ids));
	free(b);
	assert_int_equal(lstat(path, &st2), 0);
	assert_int_equal(st2.st_ino, st.st_ino);
	/* A damaged file is scanned anew and replaced. */
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c, 1, st.st_size / 2), 1);
	c ^= 0x10;
	assert_int_equal(pwrite(fd, &c, 1, st.st_size / 2), 1);
	close(fd);
	n = scan_to(sub, ids, &b);
	assert_int_equal(n, n0);
	assert_memory_equal(b, b0, n0);
	assert_memory_equal(ids, ids0, sizeof(ids));
	free(b);
	assert_int_equal(lstat(path, &st2), 0);
	assert_int_not_equal(st2.st_ino, st.st_ino);
	/* A file others may write is not read: replaced too. */
	st = st2;
	assert_int_equal(chmod(path, 0666), 0);
	n = scan_to(sub, ids, &b);
	assert_memory_equal(b, b0, n0);
	free(b);
	assert_int_equal(lstat(path, &st2), 0);
	assert_int_not_equal(st2.st_ino, st.st_ino);
	assert_int_equal(st2.st_mode & 0777, 0600);
	/* A symbolic link in its place is not followed. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	n = scan_to(sub, ids, &b);
	assert_memory_equal(b, b0, n0);
	free(b);
	free(b0);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_btf_matches_the_kernels),
		cmocka_unit_test(unwritable_output_is_an_error),
		cmocka_unit_test(scan_is_kept_for_the_boot),
	};

	return RUN(tests);
}
