// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for ktrace's trace-file reader on crafted bytes: headers that
 * are not sonde's, of other versions, cut short; records whose framing
 * lies; and a file read record by record, whole and truncated. */
#include "test.h"
#include "ktrace/reader.h"
#include "lib/crc32c.h"
#include "lib/syscalls.h"

#include <errno.h>
#include <stddef.h>
#include <unistd.h>
#include <zlib.h>

static struct ktr_file_header good_header(void)
{
	struct ktr_file_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, KTR_MAGIC, 8);
	h.version = KTR_VERSION;
	h.hdr_len = sizeof(h);
	h.byte_order = KTR_LITTLE;
	h.abi = SC_X86_64;
	h.clock_base_ns = 1700000000000000000ll;
	strcpy(h.release, "6.18.0-test");
	strcpy(h.hostname, "testhost");
	return h;
}

static void header_checks(void **state)
{
	struct ktr_file_header h = good_header(), out, bad;

	(void)state;
	assert_int_equal(sizeof(struct ktr_file_header), 168);
	assert_int_equal(sizeof(struct ktr_rec), 48);
	assert_int_equal(ktr_check_header(&h, sizeof(h), &out), 0);
	assert_string_equal(out.hostname, "testhost");
	/* Cut short: inside the magic and after it. */
	assert_int_equal(ktr_check_header(&h, 0, NULL), -ENODATA);
	assert_int_equal(ktr_check_header(&h, 5, NULL), -ENODATA);
	assert_int_equal(ktr_check_header(&h, 100, NULL), -ENODATA);
	/* Not sonde's. */
	assert_int_equal(ktr_check_header("\177ELF\2\1\1", 7, NULL), -EINVAL);
	assert_int_equal(ktr_check_header("SONDEKTX", 8, NULL), -EINVAL);
	bad = h;
	bad.version = KTR_VERSION + 1;
	assert_int_equal(ktr_check_header(&bad, sizeof(bad), NULL),
			 -EPROTONOSUPPORT);
	bad.version = 0;
	assert_int_equal(ktr_check_header(&bad, sizeof(bad), NULL),
			 -EPROTONOSUPPORT);
	/* Version 1 files are still read. */
	bad.version = 1;
	assert_int_equal(ktr_check_header(&bad, sizeof(bad), NULL), 0);
	bad = h;
	bad.abi = 9;
	assert_int_equal(ktr_check_header(&bad, sizeof(bad), NULL),
			 -EPROTONOSUPPORT);
	bad = h;
	bad.byte_order = KTR_BIG;
	assert_int_equal(ktr_check_header(&bad, sizeof(bad), NULL),
			 -EPROTONOSUPPORT);
	bad = h;
	bad.byte_order = 7;
	assert_int_equal(ktr_check_header(&bad, sizeof(bad), NULL), -EBADMSG);
	bad = h;
	bad.hdr_len = 12;
	assert_int_equal(ktr_check_header(&bad, sizeof(bad), NULL), -EBADMSG);
	bad = h;
	bad.hdr_len = 171;
	assert_int_equal(ktr_check_header(&bad, sizeof(bad), NULL), -EBADMSG);
	/* Unterminated strings are cut. */
	bad = h;
	memset(bad.hostname, 'x', sizeof(bad.hostname));
	assert_int_equal(ktr_check_header(&bad, sizeof(bad), &out), 0);
	assert_int_equal(strlen(out.hostname), sizeof(out.hostname) - 1);
}

static void record_checks(void **state)
{
	union {
		struct ktr_call c;
		struct ktr_gio g;
		struct ktr_exec e;
		char b[256];
	} u;
	uint32_t len = 0;

	(void)state;
	memset(&u, 0, sizeof(u));
	u.c.h.len = sizeof(u.c);
	u.c.h.type = KTR_CALL;
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), 0);
	assert_int_equal(len, sizeof(u.c));
	assert_int_equal(ktr_check_record(&u, 3, &len), -ENODATA);
	assert_int_equal(ktr_check_record(&u, sizeof(u.c) - 1, &len), -ENODATA);
	u.c.h.len = 56;		/* shorter than a CALL */
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), -EBADMSG);
	u.c.h.len = 20;		/* shorter than any header */
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), -EBADMSG);
	u.c.h.len = 105;	/* not a multiple of 8 */
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), -EBADMSG);
	u.c.h.len = 0xfffffff8;	/* absurd */
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), -EBADMSG);
	/* Unknown types pass: the reader skips them. */
	u.c.h.len = 48;
	u.c.h.type = 200;
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), 0);
	/* Payload lengths that point past the record. */
	memset(&u, 0, sizeof(u));
	u.g.h.len = sizeof(u.g) + 8;
	u.g.h.type = KTR_GIO;
	u.g.data_len = 8;
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), 0);
	u.g.data_len = 9;
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), -EBADMSG);
	memset(&u, 0, sizeof(u));
	{
		struct ktr_retgio *m = (struct ktr_retgio *)&u;

		assert_int_equal(sizeof(*m), 72);
		m->h.len = sizeof(*m) + 8;
		m->h.type = KTR_RETGIO;
		m->data_len = 8;
		assert_int_equal(ktr_check_record(&u, sizeof(u), &len), 0);
		m->data_len = 9;
		assert_int_equal(ktr_check_record(&u, sizeof(u), &len),
				 -EBADMSG);
		m->h.len = 64;	/* shorter than its fixed part */
		m->data_len = 0;
		assert_int_equal(ktr_check_record(&u, sizeof(u), &len),
				 -EBADMSG);
	}
	memset(&u, 0, sizeof(u));
	u.e.h.len = sizeof(u.e) + 16;
	u.e.h.type = KTR_EXEC;
	u.e.path_len = 10;
	u.e.argv_len = 6;
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), 0);
	u.e.argv_len = 0xffff;
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), -EBADMSG);
}

/* CALLRET: the fixed part, its data bounded by the record, data only
 * with the GIO part, and read back from a file among other records with
 * every field where the format puts it. */
static void callret_checks(void **state)
{
	union {
		struct ktr_callret c;
		char b[256];
	} u;
	uint32_t len = 0;

	(void)state;
	assert_int_equal(sizeof(struct ktr_callret), 128);
	assert_int_equal(offsetof(struct ktr_callret, call_ts), 48);
	assert_int_equal(offsetof(struct ktr_callret, ret), 72);
	assert_int_equal(offsetof(struct ktr_callret, args), 80);
	memset(&u, 0, sizeof(u));
	u.c.h.len = sizeof(u.c);
	u.c.h.type = KTR_CALLRET;
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), 0);
	assert_int_equal(len, 128);
	u.c.h.len = 120;	/* shorter than its fixed part */
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), -EBADMSG);
	u.c.h.len = sizeof(u.c) + 8;
	u.c.data_len = 3;	/* data without the GIO part */
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), -EBADMSG);
	u.c.gio = 1;
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), 0);
	assert_int_equal(len, 136);
	u.c.data_len = 8;
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), 0);
	u.c.data_len = 9;	/* past the record */
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), -EBADMSG);
	u.c.data_len = 1;
	u.c.gio = 2;		/* not a flag */
	assert_int_equal(ktr_check_record(&u, sizeof(u), &len), -EBADMSG);
	/* Cut short: the reader waits for the rest. */
	u.c.gio = 1;
	assert_int_equal(ktr_check_record(&u, 130, &len), -ENODATA);
}

static void callret_in_file(void **state)
{
	struct ktr_file_header h = good_header();
	char buf[1024];
	size_t n = 0;
	char path[] = "/tmp/sonde-test-ktrace-XXXXXX";
	int fd = mkstemp(path), err, k = 0;
	union {
		struct ktr_callret c;
		char b[136];
	} u;
	struct ktr_ret r;
	struct ktr_reader rd;
	const struct ktr_rec *rec;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	memcpy(buf, &h, sizeof(h));
	n = sizeof(h);
	memset(&u, 0, sizeof(u));
	u.c.h.len = sizeof(u);
	u.c.h.type = KTR_CALLRET;
	u.c.h.pid = 7;
	u.c.h.ts = 2000;
	u.c.call_ts = 1000;
	u.c.call_cpu = 1;
	u.c.gio = 1;
	u.c.dir = KTR_GIO_WRITE;
	u.c.fd = 1;
	u.c.nr = 1;
	u.c.ret = 1;
	u.c.args[0] = 1;
	u.c.args[2] = 1;
	u.c.data_len = 1;
	u.c.data[0] = 'x';
	memcpy(buf + n, &u, sizeof(u));
	n += sizeof(u);
	memset(&r, 0, sizeof(r));
	r.h.len = sizeof(r);
	r.h.type = KTR_RET;
	r.h.pid = 7;
	memcpy(buf + n, &r, sizeof(r));
	n += sizeof(r);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	lseek(fd, 0, SEEK_SET);
	ktr_reader_init(&rd, fd);
	assert_int_equal(ktr_reader_header(&rd), 0);
	while ((err = ktr_reader_next(&rd, &rec)) == 1) {
		if (k == 0) {
			const struct ktr_callret *c = (const void *)rec;

			assert_int_equal(rec->type, KTR_CALLRET);
			assert_int_equal(rec->len, 136);
			assert_int_equal(c->call_ts, 1000);
			assert_int_equal(c->h.ts, 2000);
			assert_int_equal(c->call_cpu, 1);
			assert_int_equal(c->args[2], 1);
			assert_int_equal(c->data_len, 1);
			assert_int_equal(c->data[0], 'x');
		} else {
			assert_int_equal(rec->type, KTR_RET);
		}
		k++;
	}
	assert_int_equal(err, 0);
	assert_int_equal(k, 2);
	assert_int_equal(rd.offset, n);
	ktr_reader_free(&rd);
	close(fd);
}

/* A header and three records in a temporary file, cut at cut bytes. */
static int trace_file(size_t cut, size_t *total)
{
	struct ktr_file_header h = good_header();
	struct ktr_call c;
	struct ktr_ret r;
	char buf[1024];
	size_t n = 0;
	char path[] = "/tmp/sonde-test-ktrace-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	memcpy(buf + n, &h, sizeof(h));
	n += sizeof(h);
	memset(&c, 0, sizeof(c));
	c.h.len = sizeof(c);
	c.h.type = KTR_CALL;
	c.h.pid = 42;
	c.nr = 0;
	memcpy(buf + n, &c, sizeof(c));
	n += sizeof(c);
	memset(&r, 0, sizeof(r));
	r.h.len = sizeof(r);
	r.h.type = KTR_RET;
	r.h.pid = 42;
	r.ret = 6;
	memcpy(buf + n, &r, sizeof(r));
	n += sizeof(r);
	memcpy(buf + n, &c, sizeof(c));
	n += sizeof(c);
	*total = n;
	assert_int_equal(write(fd, buf, cut < n ? cut : n),
			 (ssize_t)(cut < n ? cut : n));
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static void reads_whole_file(void **state)
{
	size_t total;
	int fd = trace_file(SIZE_MAX, &total), n = 0, err;
	struct ktr_reader r;
	const struct ktr_rec *rec;

	(void)state;
	ktr_reader_init(&r, fd);
	assert_int_equal(ktr_reader_header(&r), 0);
	while ((err = ktr_reader_next(&r, &rec)) == 1) {
		assert_int_equal(rec->pid, 42);
		assert_int_equal(rec->type, n == 1 ? KTR_RET : KTR_CALL);
		n++;
	}
	assert_int_equal(err, 0);
	assert_int_equal(n, 3);
	assert_int_equal(r.offset, total);
	ktr_reader_free(&r);
	close(fd);
}

static void every_truncation(void **state)
{
	size_t total;
	int fd0 = trace_file(SIZE_MAX, &total);
	size_t rec_end[] = { 168, 168 + 104, 168 + 104 + 64, 168 + 208 + 64 };

	(void)state;
	close(fd0);
	for (size_t cut = 0; cut < total; cut++) {
		size_t t;
		int fd = trace_file(cut, &t), n = 0, err, want = 0;
		struct ktr_reader r;
		const struct ktr_rec *rec;

		for (int i = 1; i < 4; i++)
			if (cut >= rec_end[i])
				want = i;
		ktr_reader_init(&r, fd);
		err = ktr_reader_header(&r);
		if (cut < sizeof(struct ktr_file_header)) {
			assert_int_equal(err, -ENODATA);
		} else {
			assert_int_equal(err, 0);
			while ((err = ktr_reader_next(&r, &rec)) == 1)
				n++;
			assert_int_equal(n, want);
			/* Cut on a record boundary: a clean end. */
			assert_int_equal(err, cut == rec_end[want] ? 0 : -ENODATA);
			assert_int_equal(r.offset, rec_end[want]);
		}
		ktr_reader_free(&r);
		close(fd);
	}
}

/* n plain CALL records of pid 42, tid 43, at ts 1000, 2000, ... */
static size_t calls(char *buf, int n)
{
	struct ktr_call c;

	for (int i = 0; i < n; i++) {
		memset(&c, 0, sizeof(c));
		c.h.len = sizeof(c);
		c.h.type = KTR_CALL;
		c.h.pid = 42;
		c.h.tid = 43;
		c.h.ts = 1000 * (i + 1);
		c.nr = i;
		memcpy(buf + i * sizeof(c), &c, sizeof(c));
	}
	return n * sizeof(c);
}

static int file_of(const void *buf, size_t n)
{
	char path[] = "/tmp/sonde-test-ktrace-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* A corrupt record: resync lands on the next record that starts a chain
 * of plausible ones, not on garbage that looks like a header alone. */
static void resync_after_corruption(void **state)
{
	struct ktr_file_header h = good_header();
	static char buf[8192];
	size_t n = sizeof(h), rl = sizeof(struct ktr_call);
	struct ktr_reader r;
	const struct ktr_rec *rec;
	struct ktr_rec fake;
	int fd, err;

	(void)state;
	memcpy(buf, &h, n);
	n += calls(buf + n, 10);
	/* Record 3's length is damaged, and it holds a lone plausible header
	 * inside it (its chain goes nowhere). */
	buf[sizeof(h) + 3 * rl] = 3;
	memset(&fake, 0, sizeof(fake));
	fake.len = 48;
	fake.type = KTR_EXIT;
	fake.pid = fake.tid = 9;
	fake.ts = 5;
	memcpy(buf + sizeof(h) + 3 * rl + 24, &fake, sizeof(fake));
	fd = file_of(buf, n);
	ktr_reader_init(&r, fd);
	assert_int_equal(ktr_reader_header(&r), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ktr_reader_next(&r, &rec), 1);
	assert_int_equal(ktr_reader_next(&r, &rec), -EBADMSG);
	assert_int_equal(r.offset, sizeof(h) + 3 * rl);
	assert_int_equal(ktr_reader_resync(&r), 1);
	assert_int_equal(r.offset, sizeof(h) + 4 * rl);
	for (int i = 4; i < 10; i++) {
		assert_int_equal(ktr_reader_next(&r, &rec), 1);
		assert_int_equal(((const struct ktr_call *)rec)->nr, i);
	}
	assert_int_equal(ktr_reader_next(&r, &rec), 0);
	ktr_reader_free(&r);
	close(fd);
	/* Nothing plausible after it: to the end; the last record alone
	 * counts when it ends the file. */
	n = sizeof(h) + calls(buf + sizeof(h), 2);
	buf[sizeof(h)] = 1;
	fd = file_of(buf, n);
	ktr_reader_init(&r, fd);
	assert_int_equal(ktr_reader_header(&r), 0);
	assert_int_equal(ktr_reader_next(&r, &rec), -EBADMSG);
	assert_int_equal(ktr_reader_resync(&r), 1);
	assert_int_equal(r.offset, sizeof(h) + rl);
	assert_int_equal(ktr_reader_next(&r, &rec), 1);
	ktr_reader_free(&r);
	close(fd);
	n = sizeof(h) + calls(buf + sizeof(h), 1);
	buf[sizeof(h)] = 1;
	memset(buf + n, 0xff, 100);
	fd = file_of(buf, n + 100);
	ktr_reader_init(&r, fd);
	assert_int_equal(ktr_reader_header(&r), 0);
	assert_int_equal(ktr_reader_next(&r, &rec), -EBADMSG);
	err = ktr_reader_resync(&r);
	assert_int_equal(err, 0);
	assert_int_equal(r.offset, n + 100);
	ktr_reader_free(&r);
	close(fd);
}

/* A SUM record of the n bytes at p (0 bytes: a recording's start) and
 * of itself, its crc as 0. */
static size_t sum_of(char *at, const char *p, size_t n)
{
	struct ktr_sum s;

	memset(&s, 0, sizeof(s));
	s.h.len = sizeof(s);
	s.h.type = KTR_SUM;
	s.h.ts = 99;
	s.algo = KTR_SUM_CRC32C;
	s.bytes = n;
	s.crc = crc32c(n ? crc32c(0, p, n) : 0, &s, sizeof(s));
	memcpy(at, &s, sizeof(s));
	return sizeof(s);
}

/* SUM records are checked and consumed by the reader, never returned: a
 * stretch that matches, one with a flipped bit (named by its bytes), a
 * recording appended after one cut short (its start SUM of 0 bytes:
 * the bytes before it are not counted as damage, only as uncovered); a
 * flip in a SUM's own timestamp is damage too (its crc covers it). */
static void checksums(void **state)
{
	struct ktr_file_header h = good_header();
	static char buf[8192];
	size_t n = sizeof(h), a, b, c, rl = sizeof(struct ktr_call);
	struct ktr_reader r;
	const struct ktr_rec *rec;
	int fd;

	(void)state;
	h.sum_algo = KTR_SUM_CRC32C;
	memcpy(buf, &h, n);
	n += calls(buf + n, 3);
	a = n;					/* the first SUM: header too */
	n += sum_of(buf + n, buf, n);
	n += calls(buf + n, 2);
	b = n;
	n += sum_of(buf + n, buf + a + sizeof(struct ktr_sum),
		    n - a - sizeof(struct ktr_sum));
	n += calls(buf + n, 1);			/* cut short: no SUM */
	n += sum_of(buf + n, NULL, 0);		/* -a: a recording starts */
	c = n;
	n += calls(buf + n, 2);
	n += sum_of(buf + n, buf + c, n - c);
	for (int flip = 0; flip < 3; flip++) {
		if (flip == 1)
			buf[a + sizeof(struct ktr_sum) + rl + 20] ^= 4;
		if (flip == 2) {	/* back; the SUM at b's ts instead */
			buf[a + sizeof(struct ktr_sum) + rl + 20] ^= 4;
			buf[b + offsetof(struct ktr_rec, ts)] ^= 1;
		}
		fd = file_of(buf, n);
		ktr_reader_init(&r, fd);
		assert_int_equal(ktr_reader_header(&r), 0);
		for (int i = 0; i < 8; i++) {
			assert_int_equal(ktr_reader_next(&r, &rec), 1);
			assert_int_equal(rec->type, KTR_CALL);
		}
		assert_int_equal(ktr_reader_next(&r, &rec), 0);
		assert_int_equal(r.sum_ok, flip ? 2 : 3);
		assert_int_equal(r.sum_bad, !!flip);
		assert_int_equal(r.sum_uncovered, rl);
		if (flip) {
			assert_int_equal(r.sum_bad_from,
					 a + sizeof(struct ktr_sum));
			assert_int_equal(r.sum_bad_to,
					 b + sizeof(struct ktr_sum));
		}
		ktr_reader_free(&r);
		close(fd);
	}
}

/* CRC-32C's check value and RFC 3720's test vectors (B.4), through the
 * instruction and through the table. */
static void crc32c_vectors(void **state)
{
	unsigned char z[32] = { 0 }, f[32], inc[32], big[4099];

	(void)state;
	memset(f, 0xff, sizeof(f));
	for (int i = 0; i < 32; i++)
		inc[i] = i;
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7 + 3);
	for (int t = 0; t < 2; t++) {
		uint32_t (*fn)(uint32_t, const void *, size_t) =
			t ? crc32c_table : crc32c;

		assert_int_equal(fn(0, "123456789", 9), 0xe3069283);
		assert_int_equal(fn(0, z, 32), 0x8a9136aa);
		assert_int_equal(fn(0, f, 32), 0x62a8ab43);
		assert_int_equal(fn(0, inc, 32), 0x46dd794e);
		/* In pieces of any size: the same. */
		assert_int_equal(fn(fn(0, big, 1001), big + 1001, 3098),
				 crc32c_table(0, big, sizeof(big)));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_checks),
		cmocka_unit_test(record_checks),
		cmocka_unit_test(callret_checks),
		cmocka_unit_test(callret_in_file),
		cmocka_unit_test(reads_whole_file),
		cmocka_unit_test(every_truncation),
		cmocka_unit_test(resync_after_corruption),
		cmocka_unit_test(checksums),
		cmocka_unit_test(crc32c_vectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
