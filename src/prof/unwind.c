// SPDX-License-Identifier: GPL-2.0-only
/* unwind — DWARF CFI and frame-pointer stack walking, async-signal-safe.
 * See unwind.h.
 *
 * The call-frame information format is that of the DWARF 4 standard,
 * section 6.4, as extended for .eh_frame by the Linux Standard Base
 * (augmentations z, R, P, L, S and the DW_EH_PE pointer encodings). */
#include "unwind.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#if !defined(__x86_64__)
#error "libsonde-prof's unwinder supports x86_64 only"
#endif

/* x86_64 DWARF register numbers: rax rdx rcx rbx rsi rdi rbp rsp r8-r15,
 * then the return address column. */
enum { R_RBP = 6, R_RSP = 7, R_RA = 16, NREGS = 17 };

#define MAX_STACKS 2
#define EXPR_DEPTH 16
#define STATE_DEPTH 8

struct walker {
	struct unw_stack stack[MAX_STACKS];
	int nstacks;
	uintptr_t obj_lo, obj_hi;	/* the object whose CFI is read */
};

/* Bounded byte reader over CFI inside the current object. */
struct rd {
	const uint8_t *p, *end;
};

/* ---- memory checks ---- */

static bool stack_read(const struct walker *w, uintptr_t addr, uint64_t *v)
{
	for (int i = 0; i < w->nstacks; i++) {
		if (addr >= w->stack[i].lo && addr <= w->stack[i].hi - 8 &&
		    !(addr & 7)) {
			*v = *(const uint64_t *)addr;
			return true;
		}
	}
	return false;
}

static bool in_stacks(const struct walker *w, uintptr_t addr)
{
	for (int i = 0; i < w->nstacks; i++)
		if (addr >= w->stack[i].lo && addr < w->stack[i].hi)
			return true;
	return false;
}

static bool obj_ok(const struct walker *w, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p;

	return a >= w->obj_lo && a <= w->obj_hi && n <= w->obj_hi - a;
}

/* ---- LEB128 and encoded pointers ---- */

bool unw_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*v = r;
			return true;
		}
	}
	return false;
}

bool unw_sleb(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (*p < end) {
		b = *(*p)++;
		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				r |= ~(uint64_t)0 << shift;
			*v = (int64_t)r;
			return true;
		}
	}
	return false;
}

static bool rd_u8(struct rd *r, uint8_t *v)
{
	if (r->p >= r->end)
		return false;
	*v = *r->p++;
	return true;
}

static bool rd_bytes(struct rd *r, void *v, size_t n)
{
	if ((size_t)(r->end - r->p) < n)
		return false;
	memcpy(v, r->p, n);
	r->p += n;
	return true;
}

static bool rd_uleb(struct rd *r, uint64_t *v)
{
	return unw_uleb(&r->p, r->end, v);
}

static bool rd_sleb(struct rd *r, int64_t *v)
{
	return unw_sleb(&r->p, r->end, v);
}

enum {
	PE_ABSPTR = 0x00, PE_ULEB = 0x01, PE_UDATA2 = 0x02, PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04, PE_SLEB = 0x09, PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c, PE_PCREL = 0x10, PE_DATAREL = 0x30,
	PE_INDIRECT = 0x80, PE_OMIT = 0xff,
};

/* Read a DW_EH_PE-encoded pointer; datarel is relative to dbase. */
static bool rd_ptr(struct rd *r, uint8_t enc, uintptr_t dbase, uintptr_t *out)
{
	uintptr_t field = (uintptr_t)r->p, base = 0;
	uint64_t v;

	if (enc == PE_OMIT)
		return false;
	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		if (!rd_bytes(r, &v, 8))
			return false;
		break;
	case PE_ULEB:
		if (!rd_uleb(r, &v))
			return false;
		break;
	case PE_SLEB: {
		int64_t s;

		if (!rd_sleb(r, &s))
			return false;
		v = (uint64_t)s;
		break;
	}
	case PE_UDATA2: {
		uint16_t x;

		if (!rd_bytes(r, &x, 2))
			return false;
		v = x;
		break;
	}
	case PE_SDATA2: {
		int16_t x;

		if (!rd_bytes(r, &x, 2))
			return false;
		v = (uint64_t)(int64_t)x;
		break;
	}
	case PE_UDATA4: {
		uint32_t x;

		if (!rd_bytes(r, &x, 4))
			return false;
		v = x;
		break;
	}
	case PE_SDATA4: {
		int32_t x;

		if (!rd_bytes(r, &x, 4))
			return false;
		v = (uint64_t)(int64_t)x;
		break;
	}
	default:
		return false;
	}
	switch (enc & 0x70) {
	case 0:
		break;
	case PE_PCREL:
		base = field;
		break;
	case PE_DATAREL:
		base = dbase;
		break;
	default:
		return false;	/* textrel, funcrel, aligned: not in .eh_frame */
	}
	v += base;
	if (enc & PE_INDIRECT)
		return false;	/* only used for personality pointers */
	*out = (uintptr_t)v;
	return true;
}

/* ---- CIE and FDE ---- */

enum rule_kind {
	RULE_SAME, RULE_UNDEF, RULE_OFFSET, RULE_VAL_OFFSET, RULE_REG,
	RULE_EXPR, RULE_VAL_EXPR,
};

struct rule {
	uint8_t kind;
	uint8_t reg;
	int64_t off;
	const uint8_t *expr;
	uint64_t len;
};

struct row {
	/* CFA: register + offset, or an expression when expr != NULL. */
	uint8_t cfa_reg;
	int64_t cfa_off;
	const uint8_t *cfa_expr;
	uint64_t cfa_len;
	struct rule r[NREGS];
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	uint8_t fde_enc;
	bool signal, z;
	const uint8_t *insns, *end;
};

struct fde {
	uintptr_t start, end;
	const uint8_t *insns, *insns_end;
};

/* Read a CFI record header: its length (and so its end) and the id/pointer
 * field that follows. */
static bool rd_record(const struct walker *w, const uint8_t *p,
		      const uint8_t **body, const uint8_t **end)
{
	uint32_t len32;
	uint64_t len;

	if (!obj_ok(w, p, 4))
		return false;
	memcpy(&len32, p, 4);
	p += 4;
	if (len32 == 0xffffffff) {
		if (!obj_ok(w, p, 8))
			return false;
		memcpy(&len, p, 8);
		p += 8;
	} else {
		len = len32;
	}
	if (len < 4 || !obj_ok(w, p, len))
		return false;
	*body = p;
	*end = p + len;
	return true;
}

static bool parse_cie(const struct walker *w, const uint8_t *p, struct cie *c)
{
	const uint8_t *body, *end;
	struct rd r;
	uint8_t version, b;
	const char *aug;
	uint32_t id;
	uint64_t auglen = 0;
	bool z = false;

	memset(c, 0, sizeof(*c));
	c->fde_enc = PE_ABSPTR;
	if (!rd_record(w, p, &body, &end))
		return false;
	r = (struct rd){ body, end };
	if (!rd_bytes(&r, &id, 4) || id != 0 || !rd_u8(&r, &version) ||
	    (version != 1 && version != 3))
		return false;
	aug = (const char *)r.p;
	while (r.p < r.end && *r.p)
		r.p++;
	if (!rd_u8(&r, &b))
		return false;
	if (!rd_uleb(&r, &c->code_align) || !rd_sleb(&r, &c->data_align))
		return false;
	if (version == 1) {
		if (!rd_u8(&r, &b))
			return false;
		c->ra = b;
	} else if (!rd_uleb(&r, &c->ra)) {
		return false;
	}
	for (const char *a = aug; *a; a++) {
		uint8_t enc;
		uintptr_t ignored;

		switch (*a) {
		case 'z':
			if (a != aug || !rd_uleb(&r, &auglen))
				return false;
			z = c->z = true;
			break;
		case 'R':
			if (!rd_u8(&r, &c->fde_enc))
				return false;
			break;
		case 'L':
			if (!rd_u8(&r, &enc))
				return false;
			break;
		case 'P':
			if (!rd_u8(&r, &enc))
				return false;
			/* The personality pointer may be indirect: skip it by
			 * its size without resolving it. */
			if (!rd_ptr(&r, enc & 0x7f, 0, &ignored))
				return false;
			break;
		case 'S':
			c->signal = true;
			break;
		default:
			/* An unknown augmentation: only safe to skip with z. */
			if (!z)
				return false;
			goto done;
		}
	}
done:
	(void)auglen;
	c->insns = r.p;
	c->end = end;
	return c->ra < NREGS && c->code_align != 0;
}

/* The FDE for pc through the object's .eh_frame_hdr binary search table. */
static bool find_fde(struct walker *w, uintptr_t pc, struct cie *c,
		     struct fde *f)
{
	struct dl_find_object dlfo;
	const uint8_t *hdr, *fp, *body, *end, *cie_p;
	uintptr_t eh_frame, count;
	struct rd r;
	int32_t lo_ent[2];
	size_t lo, hi;
	uint32_t cie_off;
	uint64_t aug;

	if (_dl_find_object((void *)pc, &dlfo) != 0 || !dlfo.dlfo_eh_frame)
		return false;
	w->obj_lo = (uintptr_t)dlfo.dlfo_map_start;
	w->obj_hi = (uintptr_t)dlfo.dlfo_map_end;
	hdr = dlfo.dlfo_eh_frame;
	if (!obj_ok(w, hdr, 4) || hdr[0] != 1)
		return false;
	r = (struct rd){ hdr + 4, (const uint8_t *)w->obj_hi };
	if (!rd_ptr(&r, hdr[1], (uintptr_t)hdr, &eh_frame) ||
	    !rd_ptr(&r, hdr[2], (uintptr_t)hdr, &count) || count == 0)
		return false;
	/* Every toolchain writes the table as datarel sdata4 pairs. */
	if (hdr[3] != (PE_DATAREL | PE_SDATA4) ||
	    !obj_ok(w, r.p, count * 8))
		return false;
	lo = 0;
	hi = count;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		int32_t loc;

		memcpy(&loc, r.p + mid * 8, 4);
		if ((uintptr_t)hdr + (intptr_t)loc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	memcpy(lo_ent, r.p + lo * 8, 8);
	if ((uintptr_t)hdr + (intptr_t)lo_ent[0] > pc)
		return false;
	fp = hdr + lo_ent[1];

	if (!rd_record(w, fp, &body, &end))
		return false;
	memcpy(&cie_off, body, 4);
	if (cie_off == 0)
		return false;	/* a CIE, not an FDE */
	cie_p = body - cie_off;
	if (!parse_cie(w, cie_p, c))
		return false;
	r = (struct rd){ body + 4, end };
	if (!rd_ptr(&r, c->fde_enc, 0, &f->start) ||
	    !rd_ptr(&r, c->fde_enc & 0x0f, 0, &f->end))
		return false;
	f->end += f->start;
	if (pc < f->start || pc >= f->end)
		return false;
	/* With a 'z' augmentation the FDE carries its own data length. */
	if (c->z) {
		if (!rd_uleb(&r, &aug) || (uint64_t)(r.end - r.p) < aug)
			return false;
		r.p += aug;
	}
	f->insns = r.p;
	f->insns_end = end;
	return true;
}

/* ---- the CFA program ---- */

enum {
	CFA_nop = 0x00, CFA_set_loc = 0x01, CFA_advance_loc1 = 0x02,
	CFA_advance_loc2 = 0x03, CFA_advance_loc4 = 0x04,
	CFA_offset_extended = 0x05, CFA_restore_extended = 0x06,
	CFA_undefined = 0x07, CFA_same_value = 0x08, CFA_register = 0x09,
	CFA_remember_state = 0x0a, CFA_restore_state = 0x0b,
	CFA_def_cfa = 0x0c, CFA_def_cfa_register = 0x0d,
	CFA_def_cfa_offset = 0x0e, CFA_def_cfa_expression = 0x0f,
	CFA_expression = 0x10, CFA_offset_extended_sf = 0x11,
	CFA_def_cfa_sf = 0x12, CFA_def_cfa_offset_sf = 0x13,
	CFA_val_offset = 0x14, CFA_val_offset_sf = 0x15,
	CFA_val_expression = 0x16, CFA_GNU_args_size = 0x2e,
	CFA_GNU_negative_offset_extended = 0x2f,
	CFA_advance_loc = 0x40, CFA_offset = 0x80, CFA_restore = 0xc0,
};

static void set_rule(struct row *row, uint64_t reg, struct rule r)
{
	if (reg < NREGS)
		row->r[reg] = r;
}

/* Run CFA instructions from insns to end, stopping at the first row whose
 * location is past target. init is the CIE's initial row (for restore). */
static bool run_cfa(const struct cie *c, const uint8_t *insns,
		    const uint8_t *end, uintptr_t loc, uintptr_t target,
		    struct row *row, const struct row *init)
{
	struct row saved[STATE_DEPTH];
	int nsaved = 0;
	struct rd r = { insns, end };

	while (r.p < r.end) {
		uint8_t op, low;
		uint64_t reg, u, len;
		int64_t s;

		rd_u8(&r, &op);
		low = op & 0x3f;
		switch (op & 0xc0) {
		case CFA_advance_loc:
			loc += low * c->code_align;
			if (loc > target)
				return true;
			continue;
		case CFA_offset:
			if (!rd_uleb(&r, &u))
				return false;
			set_rule(row, low, (struct rule){
				RULE_OFFSET, 0, (int64_t)u * c->data_align });
			continue;
		case CFA_restore:
			if (low < NREGS)
				row->r[low] = init ? init->r[low] :
					      (struct rule){ RULE_SAME };
			continue;
		}
		switch (op) {
		case CFA_nop:
			break;
		case CFA_set_loc:
			if (!rd_ptr(&r, c->fde_enc, 0, &loc))
				return false;
			if (loc > target)
				return true;
			break;
		case CFA_advance_loc1: {
			uint8_t d;

			if (!rd_u8(&r, &d))
				return false;
			loc += d * c->code_align;
			if (loc > target)
				return true;
			break;
		}
		case CFA_advance_loc2: {
			uint16_t d;

			if (!rd_bytes(&r, &d, 2))
				return false;
			loc += d * c->code_align;
			if (loc > target)
				return true;
			break;
		}
		case CFA_advance_loc4: {
			uint32_t d;

			if (!rd_bytes(&r, &d, 4))
				return false;
			loc += d * c->code_align;
			if (loc > target)
				return true;
			break;
		}
		case CFA_offset_extended:
			if (!rd_uleb(&r, &reg) || !rd_uleb(&r, &u))
				return false;
			set_rule(row, reg, (struct rule){
				RULE_OFFSET, 0, (int64_t)u * c->data_align });
			break;
		case CFA_offset_extended_sf:
			if (!rd_uleb(&r, &reg) || !rd_sleb(&r, &s))
				return false;
			set_rule(row, reg, (struct rule){
				RULE_OFFSET, 0, s * c->data_align });
			break;
		case CFA_GNU_negative_offset_extended:
			if (!rd_uleb(&r, &reg) || !rd_uleb(&r, &u))
				return false;
			set_rule(row, reg, (struct rule){
				RULE_OFFSET, 0, -(int64_t)u * c->data_align });
			break;
		case CFA_val_offset:
			if (!rd_uleb(&r, &reg) || !rd_uleb(&r, &u))
				return false;
			set_rule(row, reg, (struct rule){
				RULE_VAL_OFFSET, 0, (int64_t)u * c->data_align });
			break;
		case CFA_val_offset_sf:
			if (!rd_uleb(&r, &reg) || !rd_sleb(&r, &s))
				return false;
			set_rule(row, reg, (struct rule){
				RULE_VAL_OFFSET, 0, s * c->data_align });
			break;
		case CFA_restore_extended:
			if (!rd_uleb(&r, &reg))
				return false;
			if (reg < NREGS)
				row->r[reg] = init ? init->r[reg] :
					      (struct rule){ RULE_SAME };
			break;
		case CFA_undefined:
			if (!rd_uleb(&r, &reg))
				return false;
			set_rule(row, reg, (struct rule){ RULE_UNDEF });
			break;
		case CFA_same_value:
			if (!rd_uleb(&r, &reg))
				return false;
			set_rule(row, reg, (struct rule){ RULE_SAME });
			break;
		case CFA_register:
			if (!rd_uleb(&r, &reg) || !rd_uleb(&r, &u) ||
			    u >= NREGS)
				return false;
			set_rule(row, reg, (struct rule){ RULE_REG, (uint8_t)u });
			break;
		case CFA_remember_state:
			if (nsaved == STATE_DEPTH)
				return false;
			saved[nsaved++] = *row;
			break;
		case CFA_restore_state: {
			/* The CFA is not part of the remembered state in
			 * DWARF 2, but GCC and every unwinder restore it. */
			if (nsaved == 0)
				return false;
			*row = saved[--nsaved];
			break;
		}
		case CFA_def_cfa:
			if (!rd_uleb(&r, &reg) || !rd_uleb(&r, &u) ||
			    reg >= NREGS)
				return false;
			row->cfa_reg = (uint8_t)reg;
			row->cfa_off = (int64_t)u;
			row->cfa_expr = NULL;
			break;
		case CFA_def_cfa_sf:
			if (!rd_uleb(&r, &reg) || !rd_sleb(&r, &s) ||
			    reg >= NREGS)
				return false;
			row->cfa_reg = (uint8_t)reg;
			row->cfa_off = s * c->data_align;
			row->cfa_expr = NULL;
			break;
		case CFA_def_cfa_register:
			if (!rd_uleb(&r, &reg) || reg >= NREGS)
				return false;
			row->cfa_reg = (uint8_t)reg;
			row->cfa_expr = NULL;
			break;
		case CFA_def_cfa_offset:
			if (!rd_uleb(&r, &u))
				return false;
			row->cfa_off = (int64_t)u;
			break;
		case CFA_def_cfa_offset_sf:
			if (!rd_sleb(&r, &s))
				return false;
			row->cfa_off = s * c->data_align;
			break;
		case CFA_def_cfa_expression:
			if (!rd_uleb(&r, &len) || (uint64_t)(r.end - r.p) < len)
				return false;
			row->cfa_expr = r.p;
			row->cfa_len = len;
			r.p += len;
			break;
		case CFA_expression:
		case CFA_val_expression:
			if (!rd_uleb(&r, &reg) || !rd_uleb(&r, &len) ||
			    (uint64_t)(r.end - r.p) < len)
				return false;
			set_rule(row, reg, (struct rule){
				op == CFA_expression ? RULE_EXPR : RULE_VAL_EXPR,
				0, 0, r.p, len });
			r.p += len;
			break;
		case CFA_GNU_args_size:
			if (!rd_uleb(&r, &u))
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* ---- DWARF expressions (the subset CFI uses) ---- */

struct regs {
	uint64_t v[NREGS];
	bool ok[NREGS];
};

static bool eval(const struct walker *w, const struct regs *rg,
		 const uint8_t *expr, uint64_t len, bool push_cfa,
		 uint64_t cfa, uint64_t *out)
{
	uint64_t st[EXPR_DEPTH];
	int n = 0, steps = 0;
	struct rd r = { expr, expr + len };

#define PUSH(x) do { if (n == EXPR_DEPTH) return false; st[n++] = (x); } while (0)
#define NEED(k) do { if (n < (k)) return false; } while (0)
	if (push_cfa)
		PUSH(cfa);
	while (r.p < r.end) {
		uint8_t op;
		uint64_t u, a;
		int64_t s;

		if (++steps > 64)
			return false;
		rd_u8(&r, &op);
		if (op >= 0x30 && op <= 0x4f) {		/* lit0..lit31 */
			PUSH(op - 0x30);
			continue;
		}
		if (op >= 0x70 && op <= 0x8f) {		/* breg0..31 */
			if (!rd_sleb(&r, &s) || op - 0x70 >= NREGS ||
			    !rg->ok[op - 0x70])
				return false;
			PUSH(rg->v[op - 0x70] + (uint64_t)s);
			continue;
		}
		switch (op) {
		case 0x03:	/* addr */
			if (!rd_bytes(&r, &u, 8))
				return false;
			PUSH(u);
			break;
		case 0x06:	/* deref */
			NEED(1);
			if (!stack_read(w, st[n - 1], &st[n - 1]))
				return false;
			break;
		case 0x08: {	/* const1u */
			uint8_t x;

			if (!rd_u8(&r, &x))
				return false;
			PUSH(x);
			break;
		}
		case 0x09: {	/* const1s */
			int8_t x;

			if (!rd_bytes(&r, &x, 1))
				return false;
			PUSH((uint64_t)(int64_t)x);
			break;
		}
		case 0x0a: {	/* const2u */
			uint16_t x;

			if (!rd_bytes(&r, &x, 2))
				return false;
			PUSH(x);
			break;
		}
		case 0x0b: {	/* const2s */
			int16_t x;

			if (!rd_bytes(&r, &x, 2))
				return false;
			PUSH((uint64_t)(int64_t)x);
			break;
		}
		case 0x0c: {	/* const4u */
			uint32_t x;

			if (!rd_bytes(&r, &x, 4))
				return false;
			PUSH(x);
			break;
		}
		case 0x0d: {	/* const4s */
			int32_t x;

			if (!rd_bytes(&r, &x, 4))
				return false;
			PUSH((uint64_t)(int64_t)x);
			break;
		}
		case 0x0e:	/* const8u */
		case 0x0f:	/* const8s */
			if (!rd_bytes(&r, &u, 8))
				return false;
			PUSH(u);
			break;
		case 0x10:	/* constu */
			if (!rd_uleb(&r, &u))
				return false;
			PUSH(u);
			break;
		case 0x11:	/* consts */
			if (!rd_sleb(&r, &s))
				return false;
			PUSH((uint64_t)s);
			break;
		case 0x12:	/* dup */
			NEED(1);
			a = st[n - 1];
			PUSH(a);
			break;
		case 0x13:	/* drop */
			NEED(1);
			n--;
			break;
		case 0x14:	/* over */
			NEED(2);
			a = st[n - 2];
			PUSH(a);
			break;
		case 0x16:	/* swap */
			NEED(2);
			a = st[n - 1];
			st[n - 1] = st[n - 2];
			st[n - 2] = a;
			break;
		case 0x1a: case 0x1c: case 0x1e: case 0x21: case 0x22:
		case 0x24: case 0x25: case 0x26: case 0x27:
		case 0x29: case 0x2a: case 0x2b: case 0x2c: case 0x2d: case 0x2e:
			NEED(2);
			a = st[--n];	/* top */
			u = st[n - 1];	/* second */
			switch (op) {
			case 0x1a: u &= a; break;
			case 0x1c: u -= a; break;
			case 0x1e: u *= a; break;
			case 0x21: u |= a; break;
			case 0x22: u += a; break;
			case 0x24: u = a < 64 ? u << a : 0; break;
			case 0x25: u = a < 64 ? u >> a : 0; break;
			case 0x26: u = a < 64 ? (uint64_t)((int64_t)u >> a) : 0;
				break;
			case 0x27: u ^= a; break;
			case 0x29: u = u == a; break;
			case 0x2a: u = (int64_t)u >= (int64_t)a; break;
			case 0x2b: u = (int64_t)u > (int64_t)a; break;
			case 0x2c: u = (int64_t)u <= (int64_t)a; break;
			case 0x2d: u = (int64_t)u < (int64_t)a; break;
			case 0x2e: u = u != a; break;
			}
			st[n - 1] = u;
			break;
		case 0x23:	/* plus_uconst */
			NEED(1);
			if (!rd_uleb(&r, &u))
				return false;
			st[n - 1] += u;
			break;
		case 0x1f:	/* neg */
			NEED(1);
			st[n - 1] = -st[n - 1];
			break;
		case 0x20:	/* not */
			NEED(1);
			st[n - 1] = ~st[n - 1];
			break;
		case 0x92:	/* bregx */
			if (!rd_uleb(&r, &u) || !rd_sleb(&r, &s) ||
			    u >= NREGS || !rg->ok[u])
				return false;
			PUSH(rg->v[u] + (uint64_t)s);
			break;
		case 0x96:	/* nop */
			break;
		default:
			return false;
		}
	}
	if (n < 1)
		return false;
	*out = st[n - 1];
	return true;
#undef PUSH
#undef NEED
}

/* ---- one step ---- */

/* Unwind one frame with CFI: regs become the caller's. */
static bool step_cfi(struct walker *w, struct regs *rg, uintptr_t target,
		     bool *signal, bool *outermost)
{
	struct cie c;
	struct fde f;
	struct row init, row;
	struct regs nr;
	uint64_t cfa;

	if (!find_fde(w, target, &c, &f))
		return false;
	memset(&init, 0, sizeof(init));
	if (!run_cfa(&c, c.insns, c.end, 0, UINTPTR_MAX, &init, NULL))
		return false;
	row = init;
	if (!run_cfa(&c, f.insns, f.insns_end, f.start, target, &row, &init))
		return false;
	*signal = c.signal;

	if (row.cfa_expr) {
		if (!eval(w, rg, row.cfa_expr, row.cfa_len, false, 0, &cfa))
			return false;
	} else {
		if (!rg->ok[row.cfa_reg])
			return false;
		cfa = rg->v[row.cfa_reg] + (uint64_t)row.cfa_off;
	}
	nr = *rg;
	for (int i = 0; i < NREGS; i++) {
		const struct rule *ru = &row.r[i];
		uint64_t v;

		switch (ru->kind) {
		case RULE_SAME:
			break;
		case RULE_UNDEF:
			nr.ok[i] = false;
			break;
		case RULE_OFFSET:
			if (!stack_read(w, cfa + (uint64_t)ru->off, &v))
				return false;
			nr.v[i] = v;
			nr.ok[i] = true;
			break;
		case RULE_VAL_OFFSET:
			nr.v[i] = cfa + (uint64_t)ru->off;
			nr.ok[i] = true;
			break;
		case RULE_REG:
			nr.v[i] = rg->v[ru->reg];
			nr.ok[i] = rg->ok[ru->reg];
			break;
		case RULE_EXPR:
			if (!eval(w, rg, ru->expr, ru->len, true, cfa, &v) ||
			    !stack_read(w, v, &v))
				return false;
			nr.v[i] = v;
			nr.ok[i] = true;
			break;
		case RULE_VAL_EXPR:
			if (!eval(w, rg, ru->expr, ru->len, true, cfa, &v))
				return false;
			nr.v[i] = v;
			nr.ok[i] = true;
			break;
		}
	}
	/* The caller's stack pointer is the CFA unless a rule says otherwise
	 * (signal frames restore it from the saved context). */
	if (row.r[R_RSP].kind == RULE_SAME) {
		nr.v[R_RSP] = cfa;
		nr.ok[R_RSP] = true;
	}
	if (row.r[c.ra].kind == RULE_UNDEF || !nr.ok[c.ra]) {
		*outermost = true;
		return true;
	}
	nr.v[R_RA] = nr.v[c.ra];
	nr.ok[R_RA] = true;
	/* Outside a signal frame the stack only grows toward its base. */
	if (!c.signal && nr.v[R_RSP] <= rg->v[R_RSP])
		return false;
	*rg = nr;
	return true;
}

/* Unwind one frame through the frame-pointer chain. */
static bool step_fp(const struct walker *w, struct regs *rg)
{
	uint64_t bp = rg->v[R_RBP], ra, next_bp;

	if (!rg->ok[R_RBP] || bp < rg->v[R_RSP] || !in_stacks(w, bp) ||
	    !stack_read(w, bp + 8, &ra) || !stack_read(w, bp, &next_bp))
		return false;
	rg->v[R_RBP] = next_bp;
	rg->v[R_RSP] = bp + 16;
	rg->v[R_RA] = ra;
	return true;
}

int unw_walk(const void *ucv, const struct unw_stack *stack, uintptr_t *frames,
	     int max, enum unw_end *why)
{
	const ucontext_t *uc = ucv;
	const greg_t *g = uc->uc_mcontext.gregs;
	static const int map[NREGS] = {
		REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP,
		REG_RSP, REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13,
		REG_R14, REG_R15, REG_RIP,
	};
	struct walker w = { .nstacks = 0 };
	struct regs rg;
	bool exact = true;
	int n = 0;

	for (int i = 0; i < MAX_STACKS && stack[i].hi; i++)
		w.stack[w.nstacks++] = stack[i];
	for (int i = 0; i < NREGS; i++) {
		rg.v[i] = (uint64_t)g[map[i]];
		rg.ok[i] = true;
	}
	*why = UNW_END_OK;
	while (n < max) {
		uintptr_t pc = rg.v[R_RA];
		uintptr_t target = exact ? pc : pc - 1;
		bool signal = false, outermost = false;

		if (pc == 0)
			return n;
		frames[n++] = target;
		if (n == max)
			break;
		if (step_cfi(&w, &rg, target, &signal, &outermost)) {
			if (outermost)
				return n;
			exact = signal;
			continue;
		}
		if (!step_fp(&w, &rg)) {
			/* A frame without CFI whose frame pointer leads
			 * nowhere: the walk ends here. */
			*why = n > 1 ? UNW_END_BAD : UNW_END_OK;
			return n;
		}
		exact = false;
	}
	*why = UNW_END_MAX;
	return n;
}
