// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for lib/ringbuf against a real BPF ring buffer: a tiny
 * socket-filter program run with BPF_PROG_TEST_RUN writes 16-byte records
 * (the packet's length past its Ethernet header, then a marker), so the test knows every record
 * the consumer must see. Skipped without root (bpf() needs it). */
#include "test.h"
#include "lib/ringbuf.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <unistd.h>

#define RB_SIZE 4096
#define MARK 0x5a5a

struct fixture {
	int map, prog[3];	/* prog[flags]: 0, BPF_RB_NO_WAKEUP, _FORCE_ */
	struct ringbuf *rb;
};

static int load(int map, int flags)
{
	const struct bpf_insn insns[] = {
		/* r7 = skb->len; the record on the stack: len, MARK */
		{ BPF_LDX | BPF_W | BPF_MEM, 7, 1, 0, 0 },
		{ BPF_STX | BPF_DW | BPF_MEM, 10, 7, -16, 0 },
		{ BPF_ALU64 | BPF_MOV | BPF_K, 8, 0, 0, MARK },
		{ BPF_STX | BPF_DW | BPF_MEM, 10, 8, -8, 0 },
		{ BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map },
		{ 0, 0, 0, 0, 0 },
		{ BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0 },
		{ BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -16 },
		{ BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 16 },
		{ BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, flags },
		{ BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_output },
		{ BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0 },
		{ BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
	};

	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "sd_rb_test", "GPL",
			     insns, sizeof(insns) / sizeof(insns[0]), NULL);
}

/* One record carrying n (the skb's length once its 14-byte Ethernet
 * header is pulled). */
static void produce(struct fixture *f, int flags, unsigned n)
{
	static char pkt[2048];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt,
		    .data_size_in = n + 14, .repeat = 1);

	assert_int_equal(bpf_prog_test_run_opts(f->prog[flags], &o), 0);
}

static int setup(void **state)
{
	struct fixture *f;

	if (geteuid() != 0)
		return 0;
	f = calloc(1, sizeof(*f));
	f->map = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "sd_rb_test", 0, 0,
				RB_SIZE, NULL);
	assert_true(f->map >= 0);
	for (int i = 0; i < 3; i++) {
		f->prog[i] = load(f->map, i);
		assert_true(f->prog[i] >= 0);
	}
	f->rb = ringbuf_open(f->map, RB_SIZE);
	assert_non_null(f->rb);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (!f)
		return 0;
	ringbuf_close(f->rb);
	for (int i = 0; i < 3; i++)
		close(f->prog[i]);
	close(f->map);
	free(f);
	return 0;
}

struct seen {
	unsigned next;		/* the len the next record must carry */
	int n, stop_at;		/* stop_at: fail the record with this len */
};

static int take(void *ctx, const void *data, size_t len)
{
	struct seen *s = ctx;
	const uint64_t *v = data;

	if ((int)v[0] == s->stop_at)
		return -EAGAIN;
	assert_int_equal(len, 16);
	assert_int_equal(v[0], s->next);
	assert_int_equal(v[1], MARK);
	s->next++;
	s->n++;
	return 0;
}

/* 1,000 records through a 4 KiB ring, drained every 100: 24 bytes each
 * with the header, so records straddle the end of the data area and the
 * double mapping must make them read whole, in order, none twice. */
static void every_record_in_order(void **state)
{
	struct fixture *f = *state;
	struct seen s = { .next = 14, .stop_at = -1 };
	unsigned len = 14;

	if (!f)
		skip();
	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < 100; i++)
			produce(f, 0, len++);
		assert_int_equal(ringbuf_drain(f->rb, take, &s), 100);
	}
	assert_int_equal(s.n, 1000);
	assert_int_equal(ringbuf_drain(f->rb, take, &s), 0);
}

/* A callback's error stops the drain there: the records before it are
 * given back, that one and the rest come again on the next drain. */
static void error_keeps_the_rest(void **state)
{
	struct fixture *f = *state;
	struct seen s = { .next = 14, .stop_at = 17 };

	if (!f)
		skip();
	for (unsigned len = 14; len < 20; len++)
		produce(f, 0, len);
	assert_int_equal(ringbuf_drain(f->rb, take, &s), -EAGAIN);
	assert_int_equal(s.n, 3);
	s.stop_at = -1;
	assert_int_equal(ringbuf_drain(f->rb, take, &s), 3);
	assert_int_equal(s.next, 20);
}

/* The wait ends on a forced wake-up only: records written with
 * BPF_RB_NO_WAKEUP leave it sleeping until its timeout. */
static void wait_ends_on_forced_wakeup(void **state)
{
	struct fixture *f = *state;
	struct seen s = { .next = 14, .stop_at = -1 };

	if (!f)
		skip();
	produce(f, BPF_RB_NO_WAKEUP, 14);
	assert_int_equal(ringbuf_wait(f->rb, 50), 0);
	produce(f, BPF_RB_FORCE_WAKEUP, 15);
	assert_int_equal(ringbuf_wait(f->rb, 1000), 1);
	assert_int_equal(ringbuf_drain(f->rb, take, &s), 2);
	/* edge-triggered: nothing new, so the next wait times out */
	assert_int_equal(ringbuf_wait(f->rb, 20), 0);
}

static void bad_size_refused(void **state)
{
	(void)state;
	errno = 0;
	assert_null(ringbuf_open(-1, 3000));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(every_record_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(error_keeps_the_rest, setup,
						teardown),
		cmocka_unit_test_setup_teardown(wait_ends_on_forced_wakeup,
						setup, teardown),
		cmocka_unit_test(bad_size_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
