// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/pprof: the wire format of a minimal profile, a full
 * profile written gzipped and read back, interning, merging, and bad
 * input. */
#include "test.h"
#include "lib/pprof.h"

#include <errno.h>
#include <unistd.h>

static void empty_profile_bytes(void **state)
{
	struct pprof p;
	size_t len;
	uint8_t *buf;
	/* string_table = [""] (field 6), period_type = {} (field 11): proto3
	 * leaves every zero scalar out. */
	static const uint8_t want[] = { 0x32, 0x00, 0x5a, 0x00 };

	(void)state;
	pprof_init(&p);
	buf = pprof_encode(&p, &len);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	free(buf);
	pprof_free(&p);
}

static void one_sample_bytes(void **state)
{
	struct pprof p;
	size_t len;
	uint8_t *buf;
	uint64_t loc;
	int64_t v = 5;
	/* sample_type {type 1, unit 2}; sample {location_id [1], value [5]};
	 * location {id 1, address 0x10}; strings "", "s", "c". */
	static const uint8_t want[] = {
		0x0a, 0x04, 0x08, 0x01, 0x10, 0x02,
		0x12, 0x06, 0x0a, 0x01, 0x01, 0x12, 0x01, 0x05,
		0x22, 0x04, 0x08, 0x01, 0x18, 0x10,
		0x32, 0x00, 0x32, 0x01, 's', 0x32, 0x01, 'c',
		0x5a, 0x00,
	};

	(void)state;
	pprof_init(&p);
	pprof_add_type(&p, "s", "c");
	loc = pprof_location(&p, 0, 0x10, NULL, 0);
	pprof_add_sample(&p, &loc, 1, &v, NULL, 0);
	buf = pprof_encode(&p, &len);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	free(buf);
	pprof_free(&p);
}

static void build(struct pprof *p)
{
	struct pprof_mapping m = { 0x1000, 0x2000, 0x0, 0, 0, true, true, true,
				   true };
	struct pprof_line inl[2];
	struct pprof_label lb[2];
	uint64_t f1, f2, f3, locs[2];
	int64_t v[2] = { 3, 30000000 };

	pprof_init(p);
	pprof_add_type(p, "samples", "count");
	pprof_add_type(p, "cpu", "nanoseconds");
	pprof_set_period(p, "cpu", "nanoseconds", 10000000);
	p->time_ns = 1700000000000000000;
	p->duration_ns = 2000000000;
	pprof_add_comment(p, "hello");
	m.file = pprof_str(p, "/bin/x");
	m.build_id = pprof_str(p, "abcd");
	pprof_add_mapping(p, &m);
	f1 = pprof_function(p, "leaf", NULL, "x.c", 0);
	f2 = pprof_function(p, "outer", "_Z5outerv", "x.c", 10);
	f3 = pprof_function(p, "main", NULL, "main.c", 0);
	assert_int_equal(pprof_function(p, "leaf", NULL, "x.c", 0), f1);
	inl[0] = (struct pprof_line){ f1, 3, 0 };
	inl[1] = (struct pprof_line){ f2, 12, 0 };
	locs[0] = pprof_location(p, 1, 0x1100, inl, 2);
	inl[0] = (struct pprof_line){ f3, 40, 0 };
	locs[1] = pprof_location(p, 1, 0x1200, inl, 1);
	assert_int_equal(pprof_location(p, 1, 0x1100, NULL, 0), locs[0]);
	lb[0] = (struct pprof_label){ pprof_str(p, "thread"),
				      pprof_str(p, "worker"), 0, 0 };
	lb[1] = (struct pprof_label){ pprof_str(p, "tid"), 0, 42, 0 };
	pprof_add_sample(p, locs, 2, v, lb, 2);
	pprof_add_sample(p, locs, 2, v, lb, 2);	/* merged: 6, 60 ms */
	pprof_add_sample(p, locs + 1, 1, v, NULL, 0);
}

static void write_and_read_back(void **state)
{
	char path[] = "/tmp/sonde-test-pprof-XXXXXX";
	struct pprof p, q;
	unsigned char magic[2];
	FILE *f;
	int fd;

	(void)state;
	build(&p);
	assert_int_equal(p.nsamples, 2);
	assert_int_equal(p.samples[0].values[0], 6);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pprof_write(&p, path), 0);
	f = fopen(path, "rb");
	assert_int_equal(fread(magic, 1, 2, f), 2);
	fclose(f);
	assert_int_equal(magic[0], 0x1f);	/* gzip */
	assert_int_equal(magic[1], 0x8b);

	pprof_init(&q);
	assert_int_equal(pprof_read(&q, path), 0);
	unlink(path);
	assert_int_equal(q.ntypes, 2);
	assert_string_equal(pprof_string(&q, q.types[1].type), "cpu");
	assert_string_equal(pprof_string(&q, q.period_type.unit), "nanoseconds");
	assert_int_equal(q.period, 10000000);
	assert_int_equal(q.time_ns, 1700000000000000000);
	assert_int_equal(q.duration_ns, 2000000000);
	assert_int_equal(q.ncomments, 1);
	assert_string_equal(pprof_string(&q, q.comments[0]), "hello");
	assert_int_equal(q.nmappings, 1);
	assert_string_equal(pprof_string(&q, q.mappings[0].file), "/bin/x");
	assert_string_equal(pprof_string(&q, q.mappings[0].build_id), "abcd");
	assert_true(q.mappings[0].has_inlines);
	assert_int_equal(q.nsamples, 2);
	{
		const struct pprof_sample *s = &q.samples[0];
		const struct pprof_location *l = &q.locations[s->locs[0] - 1];
		const struct pprof_function *fn =
			&q.functions[l->lines[1].function - 1];

		assert_int_equal(s->nlocs, 2);
		assert_int_equal(s->values[0], 6);
		assert_int_equal(s->values[1], 60000000);
		assert_int_equal(l->address, 0x1100);
		assert_int_equal(l->nlines, 2);
		assert_int_equal(l->lines[1].line, 12);
		assert_string_equal(pprof_string(&q, fn->name), "outer");
		assert_string_equal(pprof_string(&q, fn->system_name),
				    "_Z5outerv");
		assert_int_equal(fn->start_line, 10);
		assert_int_equal(s->nlabels, 2);
		assert_string_equal(pprof_string(&q, s->labels[0].str), "worker");
		assert_int_equal(s->labels[1].num, 42);
	}
	pprof_free(&q);
	pprof_free(&p);
}

static void merge_and_bad_input(void **state)
{
	struct pprof p, q;
	uint8_t *buf, junk[] = { 0xff, 0xff, 0xff, 0x01 };
	size_t len;
	int64_t total = 0;

	(void)state;
	build(&p);
	buf = pprof_encode(&p, &len);
	pprof_init(&q);
	assert_int_equal(pprof_merge_bytes(&q, buf, len), 0);
	assert_int_equal(pprof_merge_bytes(&q, buf, len), 0);
	for (size_t i = 0; i < q.nsamples; i++)
		total += q.samples[i].values[0];
	assert_int_equal(total, 2 * (6 + 3));
	assert_int_equal(q.duration_ns, 2 * 2000000000ll);
	free(buf);
	assert_int_equal(pprof_merge_bytes(&q, junk, sizeof(junk)), -EPROTO);
	pprof_free(&q);

	/* Other sample types do not merge. */
	pprof_init(&q);
	pprof_add_type(&q, "alloc", "bytes");
	buf = pprof_encode(&p, &len);
	assert_int_equal(pprof_merge_bytes(&q, buf, len), -EINVAL);
	free(buf);
	pprof_free(&q);
	pprof_free(&p);
	pprof_init(&q);
	assert_int_equal(pprof_read(&q, "/nonexistent/x.pb.gz"), -ENOENT);
	pprof_free(&q);
}

/* The gzipped bytes an HTTP endpoint serves read back as the profile. */
static void gzip_in_memory(void **state)
{
	char path[] = "/tmp/sonde-test-pprof-XXXXXX";
	struct pprof p, q;
	uint8_t *gz;
	size_t len;
	int fd;

	(void)state;
	build(&p);
	gz = pprof_encode_gzip(&p, &len);
	assert_true(len > 18);
	assert_int_equal(gz[0], 0x1f);
	assert_int_equal(gz[1], 0x8b);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, gz, len), (ssize_t)len);
	close(fd);
	pprof_init(&q);
	assert_int_equal(pprof_read(&q, path), 0);
	unlink(path);
	assert_int_equal(q.nsamples, 2);
	assert_int_equal(q.samples[0].values[1], 60000000);
	assert_string_equal(pprof_string(&q, q.comments[0]), "hello");
	free(gz);
	pprof_free(&q);
	pprof_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_profile_bytes),
		cmocka_unit_test(one_sample_bytes),
		cmocka_unit_test(write_and_read_back),
		cmocka_unit_test(merge_and_bad_input),
		cmocka_unit_test(gzip_in_memory),
	};

	return RUN(tests);
}
