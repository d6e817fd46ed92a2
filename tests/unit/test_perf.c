// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/perf: sample parsing on crafted records, the ring
 * reader across the wrap-around point, error texts. */
#include "test.h"
#include "lib/perf.h"

#include <errno.h>
#include <sys/mman.h>

static void parse_sample_fields(void **state)
{
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		      PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t nr;
		uint64_t chain[3];
	} rec = {
		{ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, sizeof(rec) },
		0xffffffff81001234ull, 42, 43, 1000, 1, 0, 3,
		{ (uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81001234ull,
		  0xffffffff81005678ull },
	};
	struct perf_sample s;

	(void)state;
	assert_int_equal(perf_parse_sample(&rec.h, st, &s), 0);
	assert_int_equal(s.ip, 0xffffffff81001234ull);
	assert_int_equal(s.pid, 42);
	assert_int_equal(s.tid, 43);
	assert_int_equal(s.time, 1000);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.nr, 3);
	assert_int_equal(s.chain[2], 0xffffffff81005678ull);
	assert_int_equal(s.misc, PERF_RECORD_MISC_KERNEL);

	/* A chain longer than the record is rejected. */
	rec.nr = 4;
	assert_int_equal(perf_parse_sample(&rec.h, st, &s), -EINVAL);
	/* So is a record cut short. */
	rec.nr = 3;
	rec.h.size = sizeof(rec.h) + 12;
	assert_int_equal(perf_parse_sample(&rec.h, st, &s), -EINVAL);
}

static void parse_sample_id_trailer(void **state)
{
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		      PERF_SAMPLE_CPU;
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;	/* a COMM record's body */
		char comm[8];
		uint32_t spid, stid;	/* sample_id: TID, TIME, CPU */
		uint64_t time;
		uint32_t cpu, res;
	} rec = { { PERF_RECORD_COMM, 0, sizeof(rec) }, 7, 7, "true",
		  7, 8, 12345, 1, 0 };
	struct perf_sample s;

	(void)state;
	assert_int_equal(perf_parse_sample_id(&rec.h, st, &s), 0);
	assert_int_equal(s.pid, 7);
	assert_int_equal(s.tid, 8);
	assert_int_equal(s.time, 12345);
	assert_int_equal(s.cpu, 1);
	rec.h.size = sizeof(rec.h) + 8;
	assert_int_equal(perf_parse_sample_id(&rec.h, st, &s), -EINVAL);
}

/* A ring built by hand: one metadata page and one data page. */
static void ring_wraps(void **state)
{
	size_t ps = 4096;
	char *mem = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct perf_ring r = { 0 };
	const struct perf_event_header *h;
	uint64_t pos, seen = 0;

	(void)state;
	r.meta = (void *)mem;
	r.data = mem + ps;
	r.data_size = ps;
	/* Write 104-byte records starting near the end so one wraps; the
	 * kernel keeps every record 8-byte aligned, and so does this. */
	uint64_t start = ps - 152, p = start;

	for (int i = 0; i < 5; i++) {
		unsigned char rec[104];
		struct perf_event_header hh = { PERF_RECORD_SAMPLE, 0,
						sizeof(rec) };

		memset(rec, 'a' + i, sizeof(rec));
		memcpy(rec, &hh, sizeof(hh));
		for (size_t k = 0; k < sizeof(rec); k++)
			r.data[(p + k) % ps] = rec[k];
		p += sizeof(rec);
	}
	r.meta->data_tail = start;
	r.meta->data_head = p;
	perf_ring_begin(&r);
	pos = perf_ring_tail(&r);
	while ((h = perf_ring_next(&r, &pos))) {
		const unsigned char *b = (const unsigned char *)h;

		assert_int_equal(h->size, 104);
		for (size_t k = sizeof(*h); k < 104; k++)
			assert_int_equal(b[k], 'a' + seen);
		seen++;
	}
	assert_int_equal(seen, 5);
	perf_ring_end(&r);
	assert_int_equal(r.meta->data_tail, p);

	/* A corrupt size skips to the head instead of looping. */
	r.data[p % ps] = 0;
	r.data[(p + 6) % ps] = 0;
	r.data[(p + 7) % ps] = 0;
	r.meta->data_head = p + 64;
	perf_ring_begin(&r);
	pos = perf_ring_tail(&r);
	assert_null(perf_ring_next(&r, &pos));
	assert_int_equal(pos, p + 64);
	free(r.scratch);
	munmap(mem, 2 * ps);
}

static void error_texts(void **state)
{
	char buf[256];

	(void)state;
	assert_non_null(strstr(perf_open_error(-EACCES, false, buf,
					       sizeof(buf)),
			       "need root or CAP_PERFMON"));
	assert_non_null(strstr(perf_open_error(-ENOENT, true, buf, sizeof(buf)),
			       "no hardware PMU"));
	assert_non_null(strstr(perf_open_error(EMFILE, false, buf, sizeof(buf)),
			       "ulimit"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_sample_fields),
		cmocka_unit_test(parse_sample_id_trailer),
		cmocka_unit_test(ring_wraps),
		cmocka_unit_test(error_texts),
	};
	return RUN(tests);
}
