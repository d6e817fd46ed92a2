// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the D code generator: programs are compiled to BPF and
 * run on a small BPF interpreter here (maps, helpers and the ring buffer
 * emulated), so that what the instructions compute is checked against C,
 * without a kernel: arithmetic and conversions, signed division, string
 * comparison, variables of every scope, aggregations, faults, and deep
 * expressions that make the register allocator spill. */
#include "test.h"
#include "dtrace/agg.h"
#include "dtrace/cg.h"
#include "dtrace/dtrace.h"
#include "lib/syscalls.h"
#include "lib/util.h"

/* ---- a BPF interpreter ---- */

#define MAX_MAPS 32
#define MAPTAG 0x4d41500000000000ull	/* a map "pointer": tag | index */

struct entry {
	uint8_t *key, *val;
};

struct vm {
	struct dt_session *s;
	uint8_t *value[MAX_MAPS];	/* array maps of one element */
	struct entry *ents[MAX_MAPS];	/* hash maps */
	int nents[MAX_MAPS];
	uint8_t *records[64];		/* ring buffer output */
	int rec_size[64];
	int nrec;
	uint64_t steps;
};

static int key_size(struct vm *vm, int m)
{
	if (m >= DT_MAP_FIRST_VAR) {
		struct dt_var *v = vm->s->varmaps[m - DT_MAP_FIRST_VAR];

		return v->scope == DT_SELF ? 8 : v->key_size;
	}
	return 4;
}

static int val_size(struct vm *vm, int m)
{
	if (m >= DT_MAP_FIRST_VAR)
		return vm->s->varmaps[m - DT_MAP_FIRST_VAR]->val_size;
	switch (m) {
	case DT_MAP_SCRATCH: return vm->s->scratch_size;
	case DT_MAP_GLOBALS: return vm->s->prog.globals_size;
	case DT_MAP_RODATA: return vm->s->prog.rodata_size;
	default: return 64;
	}
}

static uint8_t *array_value(struct vm *vm, int m)
{
	if (!vm->value[m]) {
		vm->value[m] = calloc(1, (size_t)val_size(vm, m) + 8);
		if (m == DT_MAP_RODATA)
			memcpy(vm->value[m], vm->s->prog.rodata,
			       (size_t)vm->s->prog.rodata_size);
	}
	return vm->value[m];
}

static struct entry *find(struct vm *vm, int m, const void *key)
{
	for (int i = 0; i < vm->nents[m]; i++)
		if (!memcmp(vm->ents[m][i].key, key, (size_t)key_size(vm, m)))
			return &vm->ents[m][i];
	return NULL;
}

static uint64_t helper(struct vm *vm, int id, uint64_t *r)
{
	int m = (int)(r[1] & 0xffff);
	struct entry *e;

	switch (id) {
	case BPF_FUNC_map_lookup_elem:
		if (m == DT_MAP_SYSNAMES) {
			static char name[DT_PROBESTR_SIZE];
			const char *nm = sc_name(sc_native(),
						 *(uint32_t *)(uintptr_t)r[2]);

			memset(name, 0, sizeof(name));
			if (!nm)
				return 0;
			strcpy(name, nm);
			return (uint64_t)(uintptr_t)name;
		}
		if (m < DT_MAP_FIRST_VAR)
			return (uint64_t)(uintptr_t)array_value(vm, m);
		e = find(vm, m, (void *)(uintptr_t)r[2]);
		return e ? (uint64_t)(uintptr_t)e->val : 0;
	case BPF_FUNC_map_update_elem:
		e = find(vm, m, (void *)(uintptr_t)r[2]);
		if (e && r[4] == BPF_NOEXIST)
			return (uint64_t)-17;
		if (!e) {
			vm->ents[m] = realloc(vm->ents[m], sizeof(*e) *
					      (vm->nents[m] + 1));
			e = &vm->ents[m][vm->nents[m]++];
			e->key = malloc((size_t)key_size(vm, m));
			e->val = malloc((size_t)val_size(vm, m));
			memcpy(e->key, (void *)(uintptr_t)r[2],
			       (size_t)key_size(vm, m));
		}
		memcpy(e->val, (void *)(uintptr_t)r[3], (size_t)val_size(vm, m));
		return 0;
	case BPF_FUNC_map_delete_elem:
		e = find(vm, m, (void *)(uintptr_t)r[2]);
		if (!e)
			return (uint64_t)-2;
		free(e->key);
		free(e->val);
		*e = vm->ents[m][--vm->nents[m]];
		return 0;
	case BPF_FUNC_ringbuf_output:
		assert_true(vm->nrec < 64);
		vm->records[vm->nrec] = malloc(r[3]);
		memcpy(vm->records[vm->nrec], (void *)(uintptr_t)r[2], r[3]);
		vm->rec_size[vm->nrec++] = (int)r[3];
		return 0;
	case BPF_FUNC_get_current_pid_tgid:
		return (4242ull << 32) | 4243;
	case BPF_FUNC_get_current_uid_gid:
		return (7ull << 32) | 1000;
	case BPF_FUNC_ktime_get_ns:
		return 123456789;
	case BPF_FUNC_get_smp_processor_id:
		return 0;
	case BPF_FUNC_get_current_comm:
		memset((void *)(uintptr_t)r[1], 0, r[2]);
		strcpy((char *)(uintptr_t)r[1], "unit");
		return 0;
	case BPF_FUNC_probe_read_user_str: {
		char *d = (void *)(uintptr_t)r[1];

		snprintf(d, r[2], "%s", (char *)(uintptr_t)r[3]);
		return strlen(d) + 1;
	}
	case BPF_FUNC_probe_read_kernel:
		memcpy((void *)(uintptr_t)r[1], (void *)(uintptr_t)r[3], r[2]);
		return 0;
	default:
		fail_msg("helper %d", id);
	}
	return 0;
}

static uint64_t load(uint64_t addr, int size)
{
	switch (size) {
	case BPF_B: return *(uint8_t *)(uintptr_t)addr;
	case BPF_H: return *(uint16_t *)(uintptr_t)addr;
	case BPF_W: return *(uint32_t *)(uintptr_t)addr;
	default: return *(uint64_t *)(uintptr_t)addr;
	}
}

static void store(uint64_t addr, int size, uint64_t v)
{
	switch (size) {
	case BPF_B: *(uint8_t *)(uintptr_t)addr = (uint8_t)v; break;
	case BPF_H: *(uint16_t *)(uintptr_t)addr = (uint16_t)v; break;
	case BPF_W: *(uint32_t *)(uintptr_t)addr = (uint32_t)v; break;
	default: *(uint64_t *)(uintptr_t)addr = v;
	}
}

static uint64_t alu(int op, uint64_t a, uint64_t b)
{
	switch (op) {
	case BPF_ADD: return a + b;
	case BPF_SUB: return a - b;
	case BPF_MUL: return a * b;
	case BPF_DIV: return b ? a / b : 0;
	case BPF_MOD: return b ? a % b : a;
	case BPF_OR: return a | b;
	case BPF_AND: return a & b;
	case BPF_LSH: return a << (b & 63);
	case BPF_RSH: return a >> (b & 63);
	case BPF_ARSH: return (uint64_t)((int64_t)a >> (b & 63));
	case BPF_XOR: return a ^ b;
	case BPF_MOV: return b;
	case BPF_NEG: return -a;
	default: fail_msg("alu op 0x%x", op);
	}
	return 0;
}

static bool cond(int op, uint64_t a, uint64_t b)
{
	switch (op) {
	case BPF_JEQ: return a == b;
	case BPF_JNE: return a != b;
	case BPF_JGT: return a > b;
	case BPF_JGE: return a >= b;
	case BPF_JLT: return a < b;
	case BPF_JLE: return a <= b;
	case BPF_JSGT: return (int64_t)a > (int64_t)b;
	case BPF_JSGE: return (int64_t)a >= (int64_t)b;
	case BPF_JSLT: return (int64_t)a < (int64_t)b;
	case BPF_JSLE: return (int64_t)a <= (int64_t)b;
	case BPF_JSET: return a & b;
	default: fail_msg("jmp op 0x%x", op);
	}
	return false;
}

static void vm_run(struct vm *vm, const struct bpf_insn *insn, int n,
		   uint64_t ctx)
{
	uint64_t r[11] = { 0 }, stack[64] = { 0 };
	int pc = 0;

	r[1] = ctx;
	r[10] = (uint64_t)(uintptr_t)&stack[64];
	for (;;) {
		const struct bpf_insn *in = &insn[pc++];
		int cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

		assert_true(pc <= n);
		assert_true(++vm->steps < 1000000);
		switch (cls) {
		case BPF_ALU64:
		case BPF_ALU: {
			uint64_t b = BPF_SRC(in->code) == BPF_X ?
				     r[in->src_reg] : (uint64_t)(int64_t)in->imm;
			uint64_t v = alu(op, r[in->dst_reg], b);

			if (cls == BPF_ALU) {
				if (op == BPF_MOV)
					v = (uint32_t)b;
				v = (uint32_t)v;
			}
			r[in->dst_reg] = v;
			break;
		}
		case BPF_LDX:
			r[in->dst_reg] = load(r[in->src_reg] + in->off,
					      BPF_SIZE(in->code));
			break;
		case BPF_STX:
			store(r[in->dst_reg] + in->off, BPF_SIZE(in->code),
			      r[in->src_reg]);
			break;
		case BPF_ST:
			store(r[in->dst_reg] + in->off, BPF_SIZE(in->code),
			      (uint64_t)(int64_t)in->imm);
			break;
		case BPF_LD:
			if (in->src_reg == BPF_PSEUDO_MAP_FD)
				r[in->dst_reg] = MAPTAG | (uint64_t)in->imm;
			else if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
				r[in->dst_reg] = (uint64_t)(uintptr_t)
					array_value(vm, in->imm) + in[1].imm;
			else
				r[in->dst_reg] = (uint32_t)in->imm |
					((uint64_t)(uint32_t)in[1].imm << 32);
			pc++;
			break;
		case BPF_JMP:
			if (op == BPF_EXIT)
				return;
			if (op == BPF_CALL) {
				r[0] = helper(vm, in->imm, r);
				/* clobber r1-r5 as the kernel may */
				for (int i = 1; i <= 5; i++)
					r[i] = 0xbad0bad0bad0bad0ull;
				break;
			}
			if (op == BPF_JA ||
			    cond(op, r[in->dst_reg], BPF_SRC(in->code) == BPF_X ?
				 r[in->src_reg] : (uint64_t)(int64_t)in->imm))
				pc += in->off;
			break;
		default:
			fail_msg("insn class 0x%x", cls);
		}
	}
}

static void vm_free(struct vm *vm)
{
	for (int m = 0; m < MAX_MAPS; m++) {
		free(vm->value[m]);
		for (int i = 0; i < vm->nents[m]; i++) {
			free(vm->ents[m][i].key);
			free(vm->ents[m][i].val);
		}
		free(vm->ents[m]);
	}
	for (int i = 0; i < vm->nrec; i++)
		free(vm->records[i]);
}

/* ---- running D ---- */

struct run {
	struct dt_session s;
	struct vm vm;
};

static void compile(struct run *t, const char *text)
{
	memset(t, 0, sizeof(*t));
	dt_session_init(&t->s);
	dt_session_add(&t->s, "t.d", text, strlen(text), 's');
	if (dt_compile(&t->s))
		fail_msg("%s", t->s.cc.msg);
	t->vm.s = &t->s;
}

static struct dt_unit *unit(struct run *t, const char *key)
{
	for (int i = 0; i < t->s.nunits; i++)
		if (!strcmp(t->s.units[i]->key, key))
			return t->s.units[i];
	fail_msg("no unit %s", key);
	return NULL;
}

static void fire(struct run *t, const char *key, uint64_t ctx)
{
	struct dt_unit *u = unit(t, key);

	vm_run(&t->vm, u->insns, u->ninsns, ctx);
}

static void done(struct run *t)
{
	vm_free(&t->vm);
	dt_session_free(&t->s);
}

/* The values trace()d by "BEGIN { trace(e1); trace(e2); ... }". */
static int64_t traced(struct run *t, int rec, int i)
{
	const uint8_t *r = t->vm.records[rec];
	const struct dt_rechdr *h = (const void *)r;
	struct dt_clause *cl = t->s.prog.clauses[h->clause];
	int64_t v;

	assert_true(i < cl->nacts);
	memcpy(&v, r + cl->acts[i].vals[0].off, 8);
	return v;
}

static const char *traced_str(struct run *t, int rec, int i)
{
	const uint8_t *r = t->vm.records[rec];
	const struct dt_rechdr *h = (const void *)r;

	return (const char *)r +
	       t->s.prog.clauses[h->clause]->acts[i].vals[0].off;
}

/* Evaluate integer D expressions in BEGIN; compare with C's values. */
#define EXPRS(decls, ...) do {						\
		const char *src_[] = { __VA_ARGS__ };			\
		struct sbuf sb_;					\
		struct run t_;						\
									\
		sbuf_init(&sb_);					\
		sbuf_printf(&sb_, "BEGIN { %s ", decls);		\
		for (size_t i_ = 0; i_ < ARRAY_SIZE(src_); i_ += 2)	\
			sbuf_printf(&sb_, "trace(%s); ", src_[i_]);	\
		sbuf_puts(&sb_, "}");					\
		compile(&t_, sb_.buf);					\
		fire(&t_, "BEGIN", 0);					\
		assert_int_equal(t_.vm.nrec, 1);			\
		for (size_t i_ = 0; i_ < ARRAY_SIZE(src_); i_ += 2) {	\
			int64_t want_ = strtoll(src_[i_ + 1], NULL, 0);	\
			int64_t got_ = traced(&t_, 0, (int)i_ / 2);	\
			if (got_ != want_)				\
				fail_msg("%s = %lld, want %lld",	\
					 src_[i_], (long long)got_,	\
					 (long long)want_);		\
		}							\
		done(&t_);						\
		sbuf_free(&sb_);					\
	} while (0)

#define V(expr, val) expr, #val

static void test_arithmetic_matches_c(void **state)
{
	(void)state;
	EXPRS("a = 7; b = -3; c = 1000000;",
	      /* % negates the remainder when the signs differ, as
	       * dtrace-utils does (C says 7 % -3 is 1) */
	      V("a + b * 2", 1), V("a / b", -2), V("a % b", -1),
	      V("-a / 2", -3), V("-a % 2", -1), V("b / -1", 3),
	      V("a << 3", 56), V("b >> 1", -2), V("(unsigned int)b >> 28", 15),
	      V("a & 5 | 8 ^ 2", 15), V("~a", -8), V("!a", 0), V("!0", 1),
	      V("c * c", -727379968),		/* int overflow wraps */
	      V("(long)c * c", 1000000000000),
	      V("(char)200", -56), V("(unsigned char)-1", 255),
	      V("(short)40000", -25536), V("(unsigned short)-2", 65534),
	      V("(unsigned int)-1 + 0l", 4294967295),
	      V("-1 < 1u", 0), V("-1 < 1", 1), V("-1l < 1u", 1),
	      V("a > b && b < 0", 1), V("a < b || b > 0", 0),
	      V("a ^^ b", 0), V("a ^^ 0", 1),
	      V("a == 7 ? 10 : 20", 10), V("a != 7 ? 10 : 20", 20),
	      V("sizeof(int) + sizeof(char)", 5));
	/* unsigned / and % (an extra add once gave 17/5 == 8) */
	EXPRS("u = (uint64_t)17; w = 5u;",
	      V("u / 5", 3), V("u % 5", 2), V("w / 2u", 2), V("w % 3u", 2));
}

/* Members of struct and union globals and elements of array globals are
 * stored at their own size and offset (a union's members share bytes); an
 * index outside a declared array faults as DTrace's "index out of
 * bounds". */
static void test_declared_types_run(void **state)
{
	struct run t;
	const struct dt_rechdr *h;
	const struct dt_errrec *e;
	(void)state;

	compile(&t, "struct r { char c; int x; long l; } g;\n"
		"union u { char ch; int in; long lg; } un;\n"
		"int a[5];\n"
		"BEGIN { g.c = 'e'; g.x = -5; g.l = 1L << 40; g.x++;\n"
		"  un.lg = 0x4142; a[1] = 7; i = 3; a[i] = 9; a[4] += 2;\n"
		"  trace(g.c); trace(g.x); trace(g.l); trace(un.ch);\n"
		"  trace(un.in); trace(a[1]); trace(a[i]); trace(a[0]);\n"
		"  trace(a[4]); }\n"
		"BEGIN { i = 5; a[i] = 1; }");
	fire(&t, "BEGIN", 0);
	assert_int_equal(t.vm.nrec, 2);
	assert_int_equal(traced(&t, 0, 0), 'e');
	assert_int_equal(traced(&t, 0, 1), -4);
	assert_int_equal(traced(&t, 0, 2), 1LL << 40);
	assert_int_equal(traced(&t, 0, 3), 'B');
	assert_int_equal(traced(&t, 0, 4), 0x4142);
	assert_int_equal(traced(&t, 0, 5), 7);
	assert_int_equal(traced(&t, 0, 6), 9);
	assert_int_equal(traced(&t, 0, 7), 0);
	assert_int_equal(traced(&t, 0, 8), 2);
	h = (const void *)t.vm.records[1];
	assert_int_equal(h->kind, DT_REC_ERROR);
	e = (const void *)(h + 1);
	assert_int_equal(e->fault, DTRACEFLT_BADINDEX);
	assert_int_equal(e->addr, 5);
	done(&t);

	/* this-> structs, and whole structs copied between variables (an
	 * undeclared one takes the struct's type) */
	compile(&t, "struct c { int x; char y; short z; };\n"
		"struct p { struct c a; struct c b; } P;\n"
		"this struct c q;\n"
		"BEGIN { this->q.x = -1; this->q.y = 'y'; this->q.z = 1234;\n"
		"  P.b = this->q; R = P.b; this->q.x = 5;\n"
		"  trace(P.b.x); trace(P.b.y); trace(P.b.z); trace(R.z);\n"
		"  trace(P.a.z); trace(this->q.x); trace(sizeof(R)); }");
	fire(&t, "BEGIN", 0);
	assert_int_equal(t.vm.nrec, 1);
	assert_int_equal(traced(&t, 0, 0), -1);
	assert_int_equal(traced(&t, 0, 1), 'y');
	assert_int_equal(traced(&t, 0, 2), 1234);
	assert_int_equal(traced(&t, 0, 3), 1234);
	assert_int_equal(traced(&t, 0, 4), 0);
	assert_int_equal(traced(&t, 0, 5), 5);
	assert_int_equal(traced(&t, 0, 6), 8);
	done(&t);
}

static void test_increments_and_compound(void **state)
{
	(void)state;
	EXPRS("x = 10; y = x++; z = ++x; w = x--; v = --x; u = (char)127; "
	      "u++; s = 5; s *= 3; s -= 1; s <<= 2; s %= 9; s |= 16; "
	      "self->n++; self->n += 41;",
	      V("x", 10), V("y", 10), V("z", 12), V("w", 12), V("v", 10),
	      V("u", -128), V("s", 18), V("self->n", 42));
}

static void test_strings(void **state)
{
	struct run t;
	(void)state;

	compile(&t, "BEGIN { s = \"abc\"; t = \"abd\"; "
		"trace(s == \"abc\"); trace(s < t); trace(t < s); "
		"trace(s == t); trace(\"\" < s); trace(\"abcdefghij\" > "
		"\"abcdefghi\"); trace(\"abcdefgh1\" < \"abcdefgh2\"); "
		"u = s; s = \"xyz\"; trace(u); trace(1 ? u : s); "
		"trace(execname); trace(probename); trace(probefunc == \"\"); "
		"}");
	fire(&t, "BEGIN", 0);
	assert_int_equal(traced(&t, 0, 0), 1);
	assert_int_equal(traced(&t, 0, 1), 1);
	assert_int_equal(traced(&t, 0, 2), 0);
	assert_int_equal(traced(&t, 0, 3), 0);
	assert_int_equal(traced(&t, 0, 4), 1);
	assert_int_equal(traced(&t, 0, 5), 1);
	assert_int_equal(traced(&t, 0, 6), 1);
	assert_string_equal(traced_str(&t, 0, 7), "abc");
	assert_string_equal(traced_str(&t, 0, 8), "abc");
	assert_string_equal(traced_str(&t, 0, 9), "unit");
	/* probename travels as the probe id: nothing in the record */
	assert_int_equal(t.s.prog.clauses[0]->acts[10].vals[0].kind,
			 KEY_PROBESTR);
	assert_int_equal(traced(&t, 0, 11), 1);	/* BEGIN's function: "" */
	done(&t);
}

static void test_builtins(void **state)
{
	(void)state;
	EXPRS("", V("pid", 4242), V("tid", 4243), V("uid", 1000),
	      V("gid", 7), V("timestamp", 123456789), V("cpu", 0),
	      V("id", 1), V("epid", 1), V("arg0", 0), V("errno", 0));
}

static void test_arrays_and_deletion(void **state)
{
	(void)state;
	EXPRS("a[1, \"x\"] = 5; a[2, \"x\"] = 6; a[1, \"x\"] += 10; "
	      "a[2, \"x\"] = 0; n[\"k\"] = \"v\";",
	      V("a[1, \"x\"]", 15), V("a[2, \"x\"]", 0), V("a[3, \"y\"]", 0),
	      V("n[\"k\"] == \"v\"", 1), V("n[\"none\"] == NULL", 1),
	      V("n[\"none\"] == \"\"", 0));
}

static void test_thread_locals_and_globals(void **state)
{
	struct run t;
	(void)state;

	compile(&t, "BEGIN { self->a = 3; g = 4; this->c = 5; }\n"
		"BEGIN { trace(self->a + g + this->c); self->a = 0; }\n"
		"END { trace(self->a); trace(g); }");
	fire(&t, "BEGIN", 0);
	fire(&t, "END", 0);
	assert_int_equal(t.vm.nrec, 2);
	assert_int_equal(traced(&t, 0, 0), 12);
	assert_int_equal(traced(&t, 1, 0), 0);	/* deleted by = 0 */
	assert_int_equal(traced(&t, 1, 1), 4);
	/* the self map is empty again */
	assert_int_equal(t.vm.nents[DT_MAP_FIRST_VAR +
				    t.s.varmaps[0]->map], 0);
	done(&t);
}

static int64_t agg_value(struct run *t, const char *name, int which)
{
	for (int i = 0; i < t->s.nvarmaps; i++) {
		struct dt_var *v = t->s.varmaps[i];
		int m = DT_MAP_FIRST_VAR + i;
		int64_t x;

		if (strcmp(v->name, name))
			continue;
		assert_int_equal(t->vm.nents[m], 1);
		memcpy(&x, t->vm.ents[m][0].val + 8 * which, 8);
		return x;
	}
	fail_msg("no aggregation %s", name);
	return 0;
}

static void test_aggregations(void **state)
{
	struct run t;
	(void)state;

	compile(&t, "BEGIN { @c = count(); @s = sum(-5); @a = avg(4); "
		"@mn = min(3); @mx = max(3); }\n"
		"BEGIN { @c = count(); @s = sum(2); @a = avg(8); "
		"@mn = min(-7); @mx = max(1); }");
	fire(&t, "BEGIN", 0);
	assert_int_equal(t.vm.nrec, 0);		/* no data recorded */
	assert_int_equal(agg_value(&t, "@c", 0), 2);
	assert_int_equal(agg_value(&t, "@s", 0), -3);
	assert_int_equal(agg_value(&t, "@a", 0), 2);	/* count */
	assert_int_equal(agg_value(&t, "@a", 1), 12);	/* sum */
	assert_int_equal(agg_value(&t, "@mn", 0), -7);
	assert_int_equal(agg_value(&t, "@mn", 1), 1);	/* has a value */
	assert_int_equal(agg_value(&t, "@mx", 0), 3);
	done(&t);
}

/* The bucket the BPF code chose for key i of aggregation name. */
static int agg_bucket(struct run *t, const char *name, int64_t i)
{
	for (int j = 0; j < t->s.nvarmaps; j++) {
		struct dt_var *v = t->s.varmaps[j];
		int m = DT_MAP_FIRST_VAR + j;

		if (strcmp(v->name, name))
			continue;
		for (int e = 0; e < t->vm.nents[m]; e++) {
			int64_t k, c;
			int found = -1;

			memcpy(&k, t->vm.ents[m][e].key, 8);
			if (k != i)
				continue;
			for (int b = 0; b < dt_agg_words(v); b++) {
				memcpy(&c, t->vm.ents[m][e].val + 8 * b, 8);
				if (c) {
					assert_int_equal(c, 1);
					assert_int_equal(found, -1);
					found = b;
				}
			}
			return found;
		}
	}
	fail_msg("no key %lld in %s", (long long)i, name);
	return -1;
}

static void test_histogram_buckets_match_c(void **state)
{
	static const int64_t vals[] = {
		0, 1, -1, 2, 3, -3, 4, 7, 8, 9, 10, 11, 19, 20, 99, 100, 101,
		999, 1000, 1023, 1024, 9999, 10000, 12345, 99999, 100000,
		-10, -11, -100, 1ll << 40, -(1ll << 40), INT64_MAX, INT64_MIN,
		(1ll << 62) + 5, 96, 97, 103, -17,
	};
	struct sbuf sb;
	struct run t;
	(void)state;

	sbuf_init(&sb);
	sbuf_puts(&sb, "BEGIN {\n");
	for (size_t i = 0; i < ARRAY_SIZE(vals); i++)
		sbuf_printf(&sb, "@q[%zu] = quantize(%lldll); "
			    "@l[%zu] = lquantize(%lldll, -10, 100, 7); "
			    "@ll[%zu] = llquantize(%lldll, 10, 1, 4, 20);\n",
			    i, (long long)vals[i], i, (long long)vals[i], i,
			    (long long)vals[i]);
	sbuf_puts(&sb, "}");
	compile(&t, sb.buf);
	fire(&t, "BEGIN", 0);
	for (size_t i = 0; i < ARRAY_SIZE(vals); i++) {
		int64_t x = vals[i];

		if (agg_bucket(&t, "@q", (int64_t)i) != dt_quantize_bucket(x))
			fail_msg("quantize(%lld)", (long long)x);
		if (agg_bucket(&t, "@l", (int64_t)i) !=
		    dt_lquantize_bucket(-10, 7, 15, x))
			fail_msg("lquantize(%lld)", (long long)x);
		if (agg_bucket(&t, "@ll", (int64_t)i) !=
		    dt_llquantize_bucket(10, 1, 4, 20, x))
			fail_msg("llquantize(%lld)", (long long)x);
	}
	done(&t);
	sbuf_free(&sb);
	/* The C rules themselves, from DTrace's definitions. */
	assert_int_equal(dt_quantize_bucketval(dt_quantize_bucket(-3)), -2);
	assert_int_equal(dt_quantize_bucketval(dt_quantize_bucket(1500)), 1024);
	assert_int_equal(dt_quantize_bucket(INT64_MIN), 0);
	assert_int_equal(dt_quantize_bucket(INT64_MAX), 126);
	/* llquantize as dtrace-utils lays it out: 18 buckets a magnitude
	 * on each side of the middle one (55), 12 in the first of 10-99 */
	assert_int_equal(dt_llquantize_bucket(10, 0, 2, 20, 12), 74);
	assert_int_equal(dt_llquantize_bucket(10, 0, 2, 20, -12), 36);
	assert_int_equal(dt_llquantize_bucket(10, 0, 2, 20, 0), 55);
	assert_int_equal(dt_llquantize_bucket(10, 0, 2, 20, INT64_MIN), 0);
	assert_int_equal(dt_llquantize_bucket(10, 0, 2, 20, 1000), 110);
	assert_int_equal(dt_llquantize_nbuckets(10, 0, 2, 20), 111);
	assert_non_null(dt_llquantize_check(10, 0, 2, 15));
	assert_null(dt_llquantize_check(10, 0, 2, 20));
}

static void test_stddev_sum_of_squares(void **state)
{
	static const int64_t vals[] = { 3, -4000000000ll, 5000000000ll,
					INT64_MIN + 1, 77 };
	unsigned __int128 sq = 0;
	int64_t sum = 0, got[4];
	struct sbuf sb;
	struct run t;
	(void)state;

	sbuf_init(&sb);
	sbuf_puts(&sb, "BEGIN {");
	for (size_t i = 0; i < ARRAY_SIZE(vals); i++) {
		uint64_t a = vals[i] < 0 ? -(uint64_t)vals[i] :
			     (uint64_t)vals[i];

		sbuf_printf(&sb, " @sd = stddev(%lldll);", (long long)vals[i]);
		sq += (unsigned __int128)a * a;
		sum += vals[i];
	}
	sbuf_puts(&sb, " }");
	compile(&t, sb.buf);
	fire(&t, "BEGIN", 0);
	for (int w = 0; w < 4; w++)
		got[w] = agg_value(&t, "@sd", w);
	assert_int_equal(got[0], ARRAY_SIZE(vals));
	assert_int_equal(got[1], sum);
	assert_int_equal((uint64_t)got[2], (uint64_t)sq);
	assert_int_equal((uint64_t)got[3], (uint64_t)(sq >> 64));
	done(&t);
	sbuf_free(&sb);
}

static void test_string_functions(void **state)
{
	static const char *const cases[][2] = {
		{ "strjoin(\"ab\", \"cd\")", "abcd" },
		{ "substr(\"hello\", 1, 3)", "ell" },
		{ "substr(\"hello\", -3)", "llo" },
		{ "substr(\"hello\", -9, 7)", "hel" },
		{ "substr(\"hello\", 1, -1)", "ell" },
		{ "strchr(\"a.b.c\", '.')", ".b.c" },
		{ "strrchr(\"a.b.c\", '.')", ".c" },
		{ "strrchr(\"abcb\", 'b')", "b" },
		{ "toupper(\"MiXed 1\")", "MIXED 1" },
		{ "tolower(\"MiXed 1\")", "mixed 1" },
		{ "basename(\"/usr/lib/\")", "lib" },
		{ "dirname(\"/usr/lib/\")", "/usr" },
		{ "dirname(\"lib\")", "." },
		{ "basename(\"///\")", "/" },
		{ "lltostr(-42)", "-42" },
		{ "lltostr(4096, 8)", "10000" },
	};
	struct sbuf sb;
	struct run t;
	(void)state;

	sbuf_init(&sb);
	sbuf_puts(&sb, "#pragma D option strsize=32\nBEGIN {");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		sbuf_printf(&sb, " trace(%s);", cases[i][0]);
	sbuf_puts(&sb, " trace(strlen(\"four\")); }");
	compile(&t, sb.buf);
	fire(&t, "BEGIN", 0);
	assert_int_equal(t.vm.nrec, 1);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		if (strcmp(traced_str(&t, 0, (int)i), cases[i][1]))
			fail_msg("%s = \"%s\", want \"%s\"", cases[i][0],
				 traced_str(&t, 0, (int)i), cases[i][1]);
	assert_int_equal(traced(&t, 0, ARRAY_SIZE(cases)), 4);
	done(&t);
	sbuf_free(&sb);
}

static void test_fault_ends_the_clause(void **state)
{
	struct run t;
	const struct dt_rechdr *h;
	const struct dt_errrec *e;
	(void)state;

	compile(&t, "BEGIN { z = 0; trace(1); trace(5 / z); }\n"
		"BEGIN { trace(2); }");
	fire(&t, "BEGIN", 0);
	assert_int_equal(t.vm.nrec, 2);
	h = (const void *)t.vm.records[0];
	assert_int_equal(h->kind, DT_REC_ERROR);
	assert_int_equal(h->clause, 0);
	assert_int_equal(h->probe, 1);
	e = (const void *)(h + 1);
	assert_int_equal(e->fault, DTRACEFLT_DIVZERO);
	assert_int_equal(e->action, 3);
	assert_int_equal(traced(&t, 1, 0), 2);
	done(&t);
}

/* An expression deeper than the registers: the allocator spills. */
static void test_deep_expression_spills(void **state)
{
	struct sbuf sb;
	struct run t;
	int64_t want = 0;
	(void)state;

	sbuf_init(&sb);
	sbuf_puts(&sb, "BEGIN { x = 1; trace(");
	/* 1 + (2 * x + (3 * x + (... + (24 * x) ...))) */
	for (int i = 1; i <= 24; i++) {
		sbuf_printf(&sb, "(%d * x + ", i);
		want += i;
	}
	sbuf_puts(&sb, "0");
	for (int i = 1; i <= 24; i++)
		sbuf_putc(&sb, ')');
	sbuf_puts(&sb, "); }");
	compile(&t, sb.buf);
	fire(&t, "BEGIN", 0);
	assert_int_equal(traced(&t, 0, 0), want);
	/* and it did spill: stores to the stack below the fixed slots */
	bool spilled = false;
	struct dt_unit *u = unit(&t, "BEGIN");

	for (int i = 0; i < u->ninsns; i++)
		spilled |= u->insns[i].code == (BPF_STX | BPF_MEM | BPF_DW) &&
			   u->insns[i].dst_reg == BPF_REG_10 &&
			   u->insns[i].off <= DT_FP_SPILL;
	assert_true(spilled);
	done(&t);
	sbuf_free(&sb);
}

/* Values live across helper calls (r0-r5 are clobbered by them). */
static void test_values_survive_calls(void **state)
{
	(void)state;
	EXPRS("a = 3;", V("a + pid + a * tid - timestamp + a", -123439812),
	      V("(a + (a + (a + (a + (a + (a + (a + (a + pid))))))))",
		4266));
}

static void test_syscall_dispatch(void **state)
{
	struct run t;
	uint64_t ctx[2];
	(void)state;

	compile(&t, "syscall::getppid:entry { trace(1); }\n"
		"syscall::read:entry, syscall::write:entry { trace(probefunc "
		"== \"write\"); }\n"
		"syscall:::entry { @n = count(); }");
	/* one program for every entry probe */
	assert_int_equal(t.s.nunits, 1);
	ctx[0] = 0;
	ctx[1] = 110;	/* getppid on x86_64 */
	fire(&t, "entry", (uint64_t)(uintptr_t)ctx);
	ctx[1] = 1;	/* write */
	fire(&t, "entry", (uint64_t)(uintptr_t)ctx);
	ctx[1] = 3;	/* close: only the count */
	fire(&t, "entry", (uint64_t)(uintptr_t)ctx);
	ctx[1] = 100000;	/* no such syscall: nothing */
	fire(&t, "entry", (uint64_t)(uintptr_t)ctx);
	assert_int_equal(t.vm.nrec, 2);
	assert_int_equal(((struct dt_rechdr *)t.vm.records[0])->probe,
			 DT_ID_SYSCALL + 2 * 110);
	assert_int_equal(traced(&t, 1, 0), 1);
	assert_int_equal(agg_value(&t, "@n", 0), 3);
	done(&t);
}

/* More syscalls than a few comparisons: the clause tests a bitmap. */
static void test_syscall_bitmap_guard(void **state)
{
	struct run t;
	uint64_t ctx[2] = { 0, 0 };
	long nr[] = { 0, 17, 19, 3, 1, 110 };	/* read pread64 readv close ... */
	(void)state;

	compile(&t, "syscall::*read*:entry { this->n++; trace(this->n); }");
	assert_true(t.s.prog.clauses[0]->nprobes > 8);
	for (size_t i = 0; i < ARRAY_SIZE(nr); i++) {
		ctx[1] = (uint64_t)nr[i];
		fire(&t, "entry", (uint64_t)(uintptr_t)ctx);
	}
	/* read, pread64, readv fire; close, write, getppid do not */
	assert_int_equal(t.vm.nrec, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(traced(&t, i, 0), 1);	/* this-> is zeroed */
	done(&t);
}

static void test_exit_sets_the_flag(void **state)
{
	struct run t;
	(void)state;

	compile(&t, "BEGIN { exit(3); }\nEND { trace(1); }\n"
		"BEGIN { trace(2); }");
	fire(&t, "BEGIN", 0);
	/* the exit() record only: exit() ends the firing, the next clause
	 * does not run (DTrace) */
	assert_int_equal(t.vm.nrec, 1);
	fire(&t, "BEGIN", 0);	/* a second firing is cut short */
	assert_int_equal(t.vm.nrec, 1);
	fire(&t, "END", 0);	/* END runs after exit() */
	assert_int_equal(t.vm.nrec, 2);
	done(&t);
}

/* layout.h is the one contract between the BPF programs and the consumer:
 * what the generated code writes, read through its structs, is what the
 * consumer's own functions (agg.c's merge and printed value) make of it. */
static const void *agg_bytes(struct run *t, const char *name,
			     struct dt_var **var)
{
	for (int i = 0; i < t->s.nvarmaps; i++) {
		int m = DT_MAP_FIRST_VAR + i;

		if (strcmp(t->s.varmaps[i]->name, name))
			continue;
		assert_int_equal(t->vm.nents[m], 1);
		*var = t->s.varmaps[i];
		return t->vm.ents[m][0].val;
	}
	fail_msg("no aggregation %s", name);
	return NULL;
}

static void test_layout_generator_and_consumer_agree(void **state)
{
	const struct dt_aggval_avg *avg;
	const struct dt_aggval_minmax *mm;
	const struct dt_aggval_stddev *sd;
	const struct dt_errmsg *em;
	const struct dt_scratch *scr;
	const struct dt_globals *gl;
	const struct dt_rechdr *h;
	int64_t merged[4] = { 0 };
	struct dt_var *v;
	struct run t;
	(void)state;

	compile(&t, "BEGIN { @c = count(); @a = avg(4); @a = avg(9); "
		"@mn = min(3); @mn = min(-2); @sd = stddev(2); @sd = stddev(6); "
		"trace(1); }\n"
		"BEGIN { z = 0; trace(5 / z); }\n"
		"BEGIN { exit(7); }");
	fire(&t, "BEGIN", 0);
	/* aggregations: the generator's words by the layout's names ... */
	avg = agg_bytes(&t, "@a", &v);
	assert_int_equal(avg->count, 2);
	assert_int_equal(avg->sum, 13);
	/* ... and the consumer's value of them */
	assert_int_equal(dt_agg_scalar(v, (const int64_t *)avg, 1), 6);
	mm = agg_bytes(&t, "@mn", &v);
	assert_int_equal(mm->val, -2);
	assert_int_not_equal(mm->set, 0);
	dt_agg_merge(v, merged, (const int64_t *)mm);
	assert_int_equal(dt_agg_scalar(v, merged, 1), -2);
	sd = agg_bytes(&t, "@sd", &v);
	assert_int_equal(sd->count, 2);
	assert_int_equal(sd->sum, 8);
	assert_int_equal(sd->sumsq_lo, 40);
	assert_int_equal(sd->sumsq_hi, 0);
	assert_int_equal(dt_agg_scalar(v, (const int64_t *)sd, 1), 2);
	assert_int_equal(((const struct dt_aggval_count *)
			  agg_bytes(&t, "@c", &v))->count, 1);
	/* records: the data record's header, the error record */
	assert_int_equal(t.vm.nrec, 3);
	h = (const void *)t.vm.records[0];
	assert_int_equal(h->kind, DT_REC_DATA);
	assert_int_equal(h->clause, 0);
	assert_int_equal(h->probe, 1);
	assert_int_equal(t.vm.rec_size[1], sizeof(struct dt_errmsg));
	em = (const void *)t.vm.records[1];
	assert_int_equal(em->hdr.kind, DT_REC_ERROR);
	assert_int_equal(em->hdr.clause, 1);
	assert_int_equal(em->hdr.probe, 1);
	assert_int_equal(em->err.fault, DTRACEFLT_DIVZERO);
	assert_int_equal(em->err.action, 2);
	/* the scratch area's counters, the globals' exit flag and status */
	scr = (const void *)t.vm.value[DT_MAP_SCRATCH];
	assert_int_equal(scr->counters.errors, 1);
	assert_int_equal(scr->counters.drops, 0);
	assert_int_equal(t.s.prog.this_off, DT_SCR_THIS);
	gl = (const void *)t.vm.value[DT_MAP_GLOBALS];
	assert_int_equal(gl->exited, 1);
	assert_int_equal(gl->status, 7);
	done(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arithmetic_matches_c),
		cmocka_unit_test(test_declared_types_run),
		cmocka_unit_test(test_increments_and_compound),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_builtins),
		cmocka_unit_test(test_arrays_and_deletion),
		cmocka_unit_test(test_thread_locals_and_globals),
		cmocka_unit_test(test_aggregations),
		cmocka_unit_test(test_histogram_buckets_match_c),
		cmocka_unit_test(test_stddev_sum_of_squares),
		cmocka_unit_test(test_string_functions),
		cmocka_unit_test(test_fault_ends_the_clause),
		cmocka_unit_test(test_deep_expression_spills),
		cmocka_unit_test(test_values_survive_calls),
		cmocka_unit_test(test_syscall_dispatch),
		cmocka_unit_test(test_syscall_bitmap_guard),
		cmocka_unit_test(test_exit_sets_the_flag),
		cmocka_unit_test(test_layout_generator_and_consumer_agree),
	};
	return RUN(tests);
}
