// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/outfile: what happens to each kind of path an output
 * can name — a new file, an existing one, a symlink, a device node, a FIFO,
 * standard output, a missing directory — on success and on failure. */
#include "test.h"
#include "lib/outfile.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/sonde-outfile-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static char *at(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

static char *get(const char *path)
{
	size_t len;
	char *s = sd_read_file(path, &len);

	assert_non_null(s);
	return s;
}

/* Entries of dir other than the ones named: temporary files left over. */
static int others(const char *a, const char *b)
{
	char cmd[256], line[256];
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A %s", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		if ((!a || strcmp(line, a)) && (!b || strcmp(line, b)))
			n++;
	}
	pclose(p);
	return n;
}

static void new_file(void **state)
{
	struct sd_outfile o;
	struct stat st;
	char *s;

	(void)state;
	assert_int_equal(sd_outfile_open(&o, at("new"), 0644, 0), 0);
	/* Nothing appears under the name until it is published. */
	assert_int_equal(access(at("new"), F_OK), -1);
	assert_int_equal(sd_outfile_write(&o, "hello\n", 6), 0);
	fprintf(sd_outfile_stream(&o), "world\n");
	assert_int_equal(sd_outfile_close(&o), 0);
	assert_null(sd_outfile_kept(&o));
	sd_outfile_free(&o);
	assert_string_equal(s = get(at("new")), "hello\nworld\n");
	free(s);
	assert_int_equal(stat(at("new"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(others("new", NULL), 0);
}

static void existing_file_survives_a_failed_run(void **state)
{
	struct sd_outfile o;
	struct stat before, after;
	char *s;

	(void)state;
	put(at("old"), "previous trace\n");
	chmod(at("old"), 0640);
	stat(at("old"), &before);
	assert_int_equal(sd_outfile_open(&o, at("old"), 0600, 0), 0);
	assert_int_equal(sd_outfile_write(&o, "partial", 7), 0);
	/* The command could not run: the old file is byte-identical. */
	sd_outfile_discard(&o);
	sd_outfile_free(&o);
	assert_string_equal(s = get(at("old")), "previous trace\n");
	free(s);
	assert_int_equal(others("old", NULL), 0);

	/* A successful run replaces it, keeping its mode. */
	assert_int_equal(sd_outfile_open(&o, at("old"), 0600, 0), 0);
	assert_int_equal(sd_outfile_write(&o, "new\n", 4), 0);
	assert_string_equal(s = get(at("old")), "previous trace\n");
	free(s);
	assert_int_equal(sd_outfile_close(&o), 0);
	sd_outfile_free(&o);
	assert_string_equal(s = get(at("old")), "new\n");
	free(s);
	stat(at("old"), &after);
	assert_int_equal(after.st_mode & 07777, 0640);
	assert_true(after.st_ino != before.st_ino);
}

static void publish_early_keeps_writing(void **state)
{
	struct sd_outfile o;
	char *s;

	(void)state;
	put(at("trace"), "old\n");
	assert_int_equal(sd_outfile_open(&o, at("trace"), 0600, 0), 0);
	assert_int_equal(sd_outfile_write(&o, "a\n", 2), 0);
	assert_int_equal(sd_outfile_publish(&o), 0);
	assert_string_equal(s = get(at("trace")), "a\n");
	free(s);
	assert_int_equal(sd_outfile_write(&o, "b\n", 2), 0);
	assert_int_equal(sd_outfile_close(&o), 0);
	sd_outfile_free(&o);
	assert_string_equal(s = get(at("trace")), "a\nb\n");
	free(s);
	assert_int_equal(others("trace", NULL), 0);
}

static void symlink_stays_a_link(void **state)
{
	struct sd_outfile o;
	struct stat st;
	char *s;

	(void)state;
	put(at("target"), "x\n");
	assert_int_equal(symlink("target", at("link")), 0);
	assert_int_equal(sd_outfile_open(&o, at("link"), 0644, 0), 0);
	assert_int_equal(sd_outfile_write(&o, "via link\n", 9), 0);
	assert_int_equal(sd_outfile_close(&o), 0);
	sd_outfile_free(&o);
	assert_int_equal(lstat(at("link"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(s = get(at("target")), "via link\n");
	free(s);
	assert_int_equal(others("target", "link"), 0);
}

/* A replica of /dev/null (root only): as root, renaming over it would
 * have replaced the device with a regular file. */
static void device_node_written_through(void **state)
{
	struct sd_outfile o;
	struct stat st;

	(void)state;
	if (mknod(at("null"), S_IFCHR | 0666, makedev(1, 3))) {
		skip();	/* not root, or no mknod in this container */
		return;
	}
	assert_int_equal(sd_outfile_open(&o, at("null"), 0644, 0), 0);
	assert_true(o.through);
	assert_int_equal(sd_outfile_write(&o, "gone\n", 5), 0);
	assert_int_equal(sd_outfile_close(&o), 0);
	sd_outfile_free(&o);
	assert_int_equal(stat(at("null"), &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(major(st.st_rdev), 1);
	assert_int_equal(minor(st.st_rdev), 3);
	assert_int_equal(others("null", NULL), 0);
	/* A link to a device is written through too. */
	assert_int_equal(symlink("null", at("nulllink")), 0);
	assert_int_equal(sd_outfile_open(&o, at("nulllink"), 0644, 0), 0);
	assert_true(o.through);
	assert_int_equal(sd_outfile_close(&o), 0);
	sd_outfile_free(&o);
	assert_int_equal(stat(at("null"), &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

static void full_device_reports_the_error(void **state)
{
	struct sd_outfile o;
	char buf[4096] = { 0 };

	(void)state;
	if (access("/dev/full", W_OK)) {
		skip();
		return;
	}
	assert_int_equal(sd_outfile_open(&o, "/dev/full", 0644, 0), 0);
	assert_int_equal(sd_outfile_write(&o, buf, sizeof(buf)), -ENOSPC);
	/* The first error stays, and close reports it. */
	assert_int_equal(sd_outfile_write(&o, buf, 1), -ENOSPC);
	assert_int_equal(sd_outfile_close(&o), -ENOSPC);
	assert_null(sd_outfile_kept(&o));
	sd_outfile_free(&o);
	/* The same through stdio. */
	assert_int_equal(sd_outfile_open(&o, "/dev/full", 0644, 0), 0);
	fwrite(buf, 1, sizeof(buf), sd_outfile_stream(&o));
	assert_int_equal(sd_outfile_close(&o), -ENOSPC);
	sd_outfile_free(&o);
}

static void fifo(void **state)
{
	struct sd_outfile o;
	char buf[16] = { 0 };
	int rfd;

	(void)state;
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	/* Nobody reads: fails at once instead of hanging. */
	assert_int_equal(sd_outfile_open(&o, at("fifo"), 0644, 0), -ENXIO);
	rfd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
	assert_true(rfd >= 0);
	assert_int_equal(sd_outfile_open(&o, at("fifo"), 0644, 0), 0);
	assert_true(o.through);
	assert_int_equal(sd_outfile_write(&o, "through", 7), 0);
	assert_int_equal(sd_outfile_close(&o), 0);
	sd_outfile_free(&o);
	assert_int_equal(read(rfd, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "through");
	close(rfd);
	assert_int_equal(others("fifo", NULL), 0);
}

static void bad_paths_fail_before_anything(void **state)
{
	struct sd_outfile o;

	(void)state;
	assert_int_equal(sd_outfile_open(&o, at("nodir/x"), 0644, 0), -ENOENT);
	assert_int_equal(sd_outfile_open(&o, dir, 0644, 0), -EISDIR);
	assert_int_equal(sd_outfile_open(&o, "", 0644, 0), -ENOENT);
	assert_int_equal(sd_outfile_open(&o, "/proc/version/x", 0644, 0),
			 -ENOTDIR);
	assert_int_equal(o.fd, -1);
	assert_null(o.path);
}

static void append_in_place(void **state)
{
	struct sd_outfile o;
	struct stat before, after;
	char *s;

	(void)state;
	put(at("log"), "one\n");
	stat(at("log"), &before);
	assert_int_equal(sd_outfile_open(&o, at("log"), 0644, SD_OUT_APPEND),
			 0);
	assert_int_equal(sd_outfile_write(&o, "two\n", 4), 0);
	assert_int_equal(sd_outfile_close(&o), 0);
	sd_outfile_free(&o);
	stat(at("log"), &after);
	assert_true(after.st_ino == before.st_ino);
	assert_string_equal(s = get(at("log")), "one\ntwo\n");
	free(s);
	assert_int_equal(sd_outfile_open(&o, at("newlog"), 0600,
					 SD_OUT_APPEND), 0);
	assert_int_equal(sd_outfile_close(&o), 0);
	sd_outfile_free(&o);
	assert_int_equal(access(at("newlog"), F_OK), 0);
}

static void standard_output(void **state)
{
	struct sd_outfile o;
	int pipefd[2], saved = dup(1);
	char buf[16] = { 0 };

	(void)state;
	assert_int_equal(pipe(pipefd), 0);
	dup2(pipefd[1], 1);
	assert_int_equal(sd_outfile_open(&o, "-", 0644, 0), 0);
	assert_true(o.through);
	assert_int_equal(sd_outfile_write(&o, "out", 3), 0);
	assert_int_equal(sd_outfile_close(&o), 0);
	sd_outfile_free(&o);
	/* Closing the output left stdout itself open. */
	assert_int_equal(write(1, "!", 1), 1);
	dup2(saved, 1);
	close(saved);
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], buf, sizeof(buf)), 4);
	assert_string_equal(buf, "out!");
	close(pipefd[0]);
}

/* A failure at the end (here: the directory became read-only for the
 * rename... simulated by removing it) keeps what was written. */
static void failed_end_keeps_the_temporary(void **state)
{
	struct sd_outfile o;
	char sub[300];
	char *s;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/sub/out", dir);
	assert_int_equal(sd_outfile_open(&o, sub, 0644, 0), 0);
	assert_int_equal(sd_outfile_write(&o, "samples", 7), 0);
	/* Make the final name impossible: a directory is in its place. */
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(sd_outfile_close(&o), -EISDIR);
	assert_non_null(sd_outfile_kept(&o));
	assert_string_equal(s = get(sd_outfile_kept(&o)), "samples");
	free(s);
	sd_outfile_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(new_file, setup, teardown),
		cmocka_unit_test_setup_teardown(existing_file_survives_a_failed_run, setup, teardown),
		cmocka_unit_test_setup_teardown(publish_early_keeps_writing, setup, teardown),
		cmocka_unit_test_setup_teardown(symlink_stays_a_link, setup, teardown),
		cmocka_unit_test_setup_teardown(device_node_written_through, setup, teardown),
		cmocka_unit_test_setup_teardown(full_device_reports_the_error, setup, teardown),
		cmocka_unit_test_setup_teardown(fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_paths_fail_before_anything, setup, teardown),
		cmocka_unit_test_setup_teardown(append_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(standard_output, setup, teardown),
		cmocka_unit_test_setup_teardown(failed_end_keeps_the_temporary, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
