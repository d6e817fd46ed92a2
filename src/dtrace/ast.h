// SPDX-License-Identifier: GPL-2.0-only
/* ast — the D compiler's shared vocabulary: source positions and
 * diagnostics, tokens, types, the syntax tree, variables and the program
 * that the passes fill in one after another:
 *
 *   lex.c    characters -> tokens
 *   parse.c  tokens -> clauses of statements and expressions
 *   types.c  names -> variables and built-ins, types, tuple layouts
 *   cg.c     typed tree -> BPF instructions, through emit.c (instructions,
 *            labels, registers, temporaries, faults)
 *
 * Every node lives in the compile arena (struct dt_arena) and dies with it;
 * errors longjmp out of the pass to dt_compile's caller with a message
 * that carries file:line:col, the source line and a caret. Prefix dt_. */
#ifndef SONDE_DTRACE_AST_H
#define SONDE_DTRACE_AST_H

#include "errtags.h"
#include "layout.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- memory and diagnostics ---- */

struct dt_arena {
	struct dt_chunk *head;
};
void *dt_alloc(struct dt_arena *a, size_t n);	/* zeroed */
char *dt_strndup(struct dt_arena *a, const char *s, size_t n);
char *dt_strdup(struct dt_arena *a, const char *s);
void dt_arena_free(struct dt_arena *a);

/* A piece of D source: a -s file, or one -n argument. */
struct dt_src {
	const char *name;	/* "x.d", "-n" */
	const char *text;
	size_t len;
	bool is_file;		/* -s: errors name its lines */
	bool is_library;	/* a D library file (-L, -x libdir) */
	char spec;		/* how a probe description is read: 'n' (the
				 * last field is the name: files and -n), 'P'
				 * (provider), 'm', 'f', 'i' (probe ID) */
};

struct dt_loc {
	const struct dt_src *src;
	int line, col;		/* 1-based; line 0: no position */
	const char *file;	/* from # N "file" (cpp): errors name it */
	int dline;		/* the line dtrace(1) names, when not line:
				 * its lexer's line when its parser built the
				 * node, past the next token */
};

/* Compilation state shared by the passes. */
struct dt_cc {
	struct dt_arena arena;
	jmp_buf jmp;
	char *msg;		/* the error with its position, source line and
				 * caret (malloc'd) */
	int status;		/* the exit status: 1 */
	/* the error as dtrace(1) reports it (dt_error_text) */
	enum dt_errtag tag;
	struct dt_loc loc;	/* line 0: no position */
	char *text;		/* the message alone (malloc'd) */
	const struct dt_src *cur;	/* the source being compiled */
	const char *region;	/* "action list", "predicate": where in a
				 * -n clause the checker was */
	const char *hint;	/* sonde's words for the caret display (a
				 * static string; set before dt_cerror) */
	const char *why;	/* sonde's reason, always on a line of its
				 * own (a provider this kernel lacks) */
	struct dt_provs *provs;	/* the session's providers (probe names
				 * in #pragma and -i ids) */
	struct dt_btfmap *btf;	/* kernel types converted so far (btf.c) */
};

/* Record an error at loc (loc may be NULL) and unwind to dt_cc's jmp.
 * dt_error has no DTrace tag (D_UNKNOWN, not shown): sonde's own refusals;
 * dt_cerror carries the tag dtrace(1) gives the same error, and its words
 * should be DTrace's. */
_Noreturn void dt_error(struct dt_cc *cc, const struct dt_loc *loc,
			const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
_Noreturn void dt_cerror(struct dt_cc *cc, const struct dt_loc *loc,
			 enum dt_errtag tag, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* D_UNKNOWN as dtrace(1) shows it for the errors its type library gives
 * (duplicate members, unknown member names): with the tag; plain
 * D_UNKNOWN (dt_error) shows none. */
#define D_UNKNOWN_CTF ((enum dt_errtag)D_NTAGS)
/* The error as dtrace(1) words it after "failed to compile script F: " or
 * "invalid probe specifier S: ": "[D_TAG] line N: message" (the tag with
 * errtags, the line for a script file), malloc'd. */
char *dt_error_text(const struct dt_cc *cc, bool errtags);
/* Format "file:line:col: msg\n<source line>\n<caret>\n" into a malloc'd
 * string. */
char *dt_format_diag(const struct dt_loc *loc, const char *msg);

/* ---- tokens ---- */

enum dt_tok {
	T_EOF = 0,
	T_INT, T_STR, T_CHAR, T_IDENT, T_AGG, T_MACRO,	/* @name $1 $target */
	T_PROBEDESC,
	/* punctuation */
	T_LBRACE, T_RBRACE, T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK,
	T_SEMI, T_COMMA, T_QUESTION, T_COLON, T_DOT, T_ARROW,
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
	T_AMP, T_PIPE, T_CARET, T_TILDE, T_BANG,
	T_SHL, T_SHR, T_LT, T_GT, T_LE, T_GE, T_EQ, T_NE,
	T_LAND, T_LOR, T_LXOR,
	T_INC, T_DEC,
	T_ASSIGN, T_ADD_ASSIGN, T_SUB_ASSIGN, T_MUL_ASSIGN, T_DIV_ASSIGN,
	T_MOD_ASSIGN, T_AND_ASSIGN, T_OR_ASSIGN, T_XOR_ASSIGN, T_SHL_ASSIGN,
	T_SHR_ASSIGN,
	/* keywords */
	T_KW_FIRST,
	T_IF = T_KW_FIRST, T_ELSE, T_SIZEOF, T_SELF, T_THIS, T_STRINGOF,
	T_SIGNED, T_UNSIGNED, T_CHAR_KW, T_SHORT, T_INT_KW, T_LONG, T_VOID,
	T_STRING_KW, T_CONST, T_VOLATILE,
	T_STRUCT, T_UNION, T_ENUM, T_TYPEDEF, T_OFFSETOF,
	/* recognised only to refuse them clearly */
	T_RESERVED,
	T_NTOKENS
};

struct dt_token {
	enum dt_tok t;
	struct dt_loc loc;
	const char *start;	/* into the source text */
	size_t len;
	uint64_t ival;		/* T_INT, T_CHAR */
	bool is_unsigned, is_long;	/* integer suffixes */
	bool peeked;		/* T_IDENT: DTrace's lexer looked past it to
				 * tell a type from a variable, which leaves
				 * its text running to the end of the line
				 * (a syntax error there quotes all that) */
	char *sval;		/* T_STR (unescaped), T_IDENT, T_AGG, T_MACRO
				 * (name without $), T_PROBEDESC */
};

/* A word of a control line (#pragma D option quiet, # 12 "f.d"). */
struct dt_ctlword {
	char *s;
	bool is_str;		/* "quoted" */
	bool is_int;		/* all digits: v */
	uint64_t v;
};
struct dt_lexer;
/* The parser's handler of control lines; loc is the line of the '#'. */
typedef void (*dt_ctl_fn)(struct dt_lexer *lx, struct dt_ctlword *w, int n,
			  const struct dt_loc *loc);

struct dt_lexer {
	struct dt_cc *cc;
	const struct dt_src *src;
	size_t pos;
	int line, col;
	int parens, brackets;	/* open ( and [: "extra ) in input stream" */
	bool in_predicate;	/* a '/' may end it (T_SLASH with ival 1) */
	dt_ctl_fn ctl;		/* control lines, skipped as blanks */
	void *ctl_arg;
	const char *file;	/* # N "file": errors name it */
	/* what DTrace's lexer knows when it reads an identifier
	 * (dt_lex.l's id_or_type) */
	enum dt_tok prev;	/* the token before */
	struct dt_lexid *idents;	/* names it has taken for variables */
	bool in_typedef;	/* a typedef is being declared */
};
struct dt_lexid {
	const char *name;
	struct dt_lexid *next;
};

void dt_lex_init(struct dt_lexer *lx, struct dt_cc *cc,
		 const struct dt_src *src);
/* The next token of the program body. */
void dt_lex_next(struct dt_lexer *lx, struct dt_token *tok);
/* Skip blanks and comments; the next character (0 at the end). */
int dt_lex_skip(struct dt_lexer *lx);
/* At the outer level: a probe description up to a blank, ',', '/' or '{'.
 * Returns false at the end of the input. */
bool dt_lex_probedesc(struct dt_lexer *lx, struct dt_token *tok);
const char *dt_tok_name(enum dt_tok t);

/* ---- types ---- */

enum dt_tkind { DT_TVOID, DT_TINT, DT_TSTR, DT_TPTR,
	DT_TSTACK,		/* stack(), ustack(): aggregation keys */
	DT_TSYM,		/* sym(), usym() ...: an address the consumer
				 * names (symkind says how) */
	DT_TSOU,		/* a declared struct or union (ct) */
	DT_TARRAY,		/* a declared array (ct) */
	DT_TFLOAT,		/* float, double, long double: declared and
				 * sized, not computed with */
};

/* How a DT_TSYM value (KEY_SYM) prints: sym, mod, %a (kernel), usym,
 * umod, uaddr and %A (user, resolved in the recording process). */
enum dt_symkind { DT_SYM_SYM, DT_SYM_MOD, DT_SYM_ADDR, DT_SYM_USYM,
	DT_SYM_UMOD, DT_SYM_UADDR };
#define DT_SYM_USER(w) ((w) >= DT_SYM_USYM)

struct dt_type {
	uint8_t kind;
	uint8_t size;		/* integers and pointers: 1, 2, 4, 8 */
	bool sign;
	uint16_t ssize;		/* strings: bytes including the NUL */
	uint8_t pointee;	/* pointers: size of what they point to */
	bool probe_str;		/* strings: probeprov/mod/func/name, which can
				 * travel as a probe id instead of bytes */
	uint8_t xlate;		/* pointers: the translated kernel struct
				 * they point to (enum dt_xlate) */
	uint8_t symkind;	/* DT_TSYM: enum dt_symkind */
	bool alloca;		/* into alloca()'s scratch memory: a pointer
				 * (bcopy() and copyinto() destinations), an
				 * integer cast from one, a string there;
				 * kept through casts, + and -, members */
	bool pointee_unsigned;	/* pointers: what they point to is unsigned */
	const struct dt_ctype *ct;	/* DT_TSOU, DT_TARRAY: the layout */
	const struct dt_type *ref;	/* pointers: the type pointed to (NULL:
				 * an integer of pointee bytes) */
	uint8_t bits;		/* a bit-field of an integer type of size
				 * bytes: its width (0: not one) */
	uint8_t bit_off;	/* a kernel (BTF) bit-field: its first bit in
				 * the byte at the member's offset */
	bool kbits;		/* a kernel bit-field, which may share its
				 * bytes with others: read only, in memory */
	const char *name;	/* the name it was declared with, for print():
				 * a typedef's ("__u8"), C's spelling ("long
				 * long"), "enum e" (the one string its
				 * enumerators' types share); NULL: derived
				 * (dt_type_name) */
};

/* Kernel structures D sees through a translator (xlate.c): the pointer
 * is the kernel's (a task_struct, a kernel_siginfo), the members are
 * computed from it. */
enum dt_xlate { DT_XL_NONE, DT_XL_PSINFO, DT_XL_LWPSINFO, DT_XL_SIGINFO,
	DT_XL_CPUINFO };
/* A member of a translated struct: its type and index; false if none. */
bool dt_xlate_member(int xl, const char *name, struct dt_type *t, int *idx);
const char *dt_xlate_name(int xl);	/* "psinfo_t" */
/* A member DTrace's struct has that its translator does not define. */
bool dt_xlate_noconv(int xl, const char *name);

/* A struct, union or array the program declares (decl.c), laid out as
 * the C ABI lays it out, which is how DTrace sizes it. */
struct dt_cmember {
	const char *name;	/* NULL: an unnamed struct or union */
	struct dt_type type;
	uint64_t off;
};
struct dt_ctype {
	bool is_union, is_array;
	bool complete;		/* its { } has been read */
	const char *tag;	/* NULL: anonymous */
	uint64_t size;
	uint32_t align;
	struct dt_cmember *members;
	int nmembers, cap;
	struct dt_type elem;	/* arrays */
	uint64_t nelems;
	uint64_t end_bits;	/* structs: where the last member ends */
	bool has_bitfields;	/* laid out as libctf does: no tail padding */
	bool open;		/* its { } is being read */
	int btf_id;		/* the kernel's (BTF): its members are read
				 * when first named (dt_btf_complete) */
};
/* Names a program declares: typedefs and enumerators share one name
 * space, struct/union/enum tags another. */
enum dt_cnkind { DT_CN_TYPEDEF, DT_CN_ENUMERATOR,
	DT_CN_STRUCT, DT_CN_UNION, DT_CN_ENUM };
struct dt_cname {
	const char *name;
	uint8_t kind;
	struct dt_type type;	/* typedefs, tags */
	int64_t val;		/* enumerators */
	struct dt_loc loc;
	struct dt_cname *next;
};
struct dt_prog;
uint64_t dt_type_size(const struct dt_type *t);
uint32_t dt_type_align(const struct dt_type *t);
/* kind: an enum dt_cnkind; a tag kind finds any tag of that name. */
struct dt_cname *dt_cname_find(const struct dt_prog *p, int kind,
			       const char *name);
struct dt_cname *dt_cname_add(struct dt_cc *cc, struct dt_prog *p, int kind,
			      const char *name, const struct dt_loc *loc);
struct dt_ctype *dt_ctype_new(struct dt_cc *cc, bool is_union,
			      const char *tag);
/* Lay out a member after the others; false if its name is taken. */
bool dt_ctype_add(struct dt_cc *cc, struct dt_ctype *ct, const char *name,
		  const struct dt_type *t);
void dt_ctype_end(struct dt_ctype *ct);
/* A member by name (through unnamed members): its offset and type. */
const struct dt_cmember *dt_ctype_member(const struct dt_ctype *ct,
					 const char *name, uint64_t *off,
					 struct dt_type *t);
struct dt_type dt_array_type(struct dt_cc *cc, const struct dt_type *elem,
			     uint64_t n);
/* A pointer to t (void *, struct s *, int **...). */
struct dt_type dt_ptr_type(struct dt_cc *cc, const struct dt_type *t);
/* The type *p reads: p's referent (an integer of p's pointee size when
 * p's referent is unknown). */
struct dt_type dt_ptr_ref(const struct dt_type *p);
/* Bytes pointer arithmetic on p steps by. */
uint64_t dt_ptr_step(const struct dt_type *p);

extern const struct dt_type dt_void, dt_int, dt_uint, dt_long, dt_ulong;
/* "int", "uint64_t", "string" ... into buf. */
const char *dt_type_name(const struct dt_type *t, char *buf, size_t len);
bool dt_type_is_int(const struct dt_type *t);	/* integer or pointer */

/* ---- syntax tree ---- */

enum dt_nkind {
	/* expressions */
	N_INT, N_STR, N_VAR,	/* a name: variable, built-in, macro */
	N_SELF, N_THIS,		/* self->x, this->x */
	N_AGG,			/* @a or @a[keys] as an lvalue */
	N_INDEX,		/* a[keys] */
	N_UNARY, N_BINARY, N_LOGICAL, N_TERNARY, N_ASSIGN,
	N_PREINC, N_POSTINC,	/* op: T_INC or T_DEC */
	N_CAST, N_SIZEOF, N_CALL,
	N_MEMBER,		/* a->name, a.name: on a translated struct,
				 * ival is its member index; on memory
				 * (in_mem), ival is the member's offset */
	N_ADDR,			/* the address of a (an array's first
				 * element, &x) */
	N_XLATE,		/* xlate <cast> (a) */
	/* statements */
	S_EXPR, S_AGG, S_IF, S_BLOCK, S_NOP,
};

struct dt_var;
struct dt_func;

struct dt_node {
	enum dt_nkind kind;
	struct dt_loc loc;
	struct dt_type type;
	int op;			/* operator token */
	uint64_t ival;		/* N_INT value; N_SIZEOF result */
	char *name;		/* N_VAR, N_SELF, N_THIS, N_AGG, N_INDEX,
				 * N_CALL (function) */
	char *sval;		/* N_STR */
	struct dt_node *a, *b, *c;	/* operands; S_IF: cond, then, else */
	struct dt_node **args;	/* call arguments, tuple keys */
	int nargs;
	struct dt_type cast;	/* N_CAST, N_SIZEOF of a type */
	struct dt_node *next;	/* statement lists */
	/* filled in by types.c */
	struct dt_var *var;
	const struct dt_func *fn;
	int bi;			/* built-in variable (enum dt_builtin) */
	int action;		/* statements: action number in the clause */
	int act;		/* data actions: index in the clause's acts */
	int lit_off;		/* N_STR: offset in the read-only data */
	bool in_mem;		/* an object in memory, read through its
				 * address (*p, p->m, (*p).m) */
	bool in_alloca;		/* in_mem, in alloca()'s memory: read and
				 * written after a check of its bytes */
	bool subscript;		/* N_BINARY: the e + i of e[i] */
};

/* One probe description: provider:module:function:name with globs. */
struct dt_pdesc {
	char *text;		/* as written (after macro expansion) */
	char *prov, *mod, *func, *name;
	struct dt_loc loc;
};

struct dt_probe;

struct dt_clause {
	int index;
	struct dt_pdesc *pds;
	int npds;
	struct dt_node *pred;
	struct dt_node *body;	/* statement list */
	bool has_body;		/* false: "-n probe" with no { } */
	struct dt_loc loc;
	struct dt_loc end;	/* its '}' (DTrace's line for errors found
				 * when the whole clause is read) */
	/* types.c */
	bool emits;		/* writes a record (data actions, or empty) */
	int rec_size;		/* bytes of its record, header included */
	struct dt_action *acts;	/* record layout for the consumer */
	int nacts;
	int clsflags;		/* actions seen so far (funcs.c's CLS_*) */
	/* matched probes (dtrace.c) */
	struct dt_probe **probes;
	int nprobes;
	int nmatches;		/* matches of all its descriptions (a probe
				 * two of them match counts twice) */
	bool library;		/* in a D library: checked, never enabled */
};

/* ---- variables ---- */

enum dt_scope { DT_GLOBAL, DT_SELF, DT_THIS, DT_ARRAY, DT_AGGVAR };

enum dt_aggfn {
	AGG_NONE, AGG_COUNT, AGG_SUM, AGG_AVG, AGG_MIN, AGG_MAX,
	AGG_STDDEV, AGG_QUANTIZE, AGG_LQUANTIZE, AGG_LLQUANTIZE,
};

/* One member of a tuple key: how it is stored and printed. */
enum dt_kkind { KEY_INT, KEY_STR, KEY_PROBESTR,
	KEY_STACK,		/* 8 bytes: stack id, and the pid for ustack()
				 * in the upper half; which: 1 user; ssize:
				 * frames to print (0: all) */
	KEY_SYM,		/* 16 bytes: an address, and the pid for the
				 * user ones; which: enum dt_symkind */
	KEY_BYTES,		/* a struct or union: its ssize bytes
				 * (associative arrays only) */
};
struct dt_key {
	uint8_t kind;
	uint8_t size;		/* KEY_INT: the type's size (for printing) */
	bool sign;
	uint16_t ssize;		/* KEY_STR: bytes */
	uint8_t which;		/* KEY_PROBESTR: 0 prov 1 mod 2 func 3 name */
	int off;		/* offset in the packed key */
	struct dt_type type;	/* the first key's (DTrace's prototype) */
};

struct dt_var {
	char *name;
	enum dt_scope scope;
	struct dt_type type;
	bool typed;		/* declared or assigned */
	bool assigned;
	bool nonalloca;		/* assigned a value not in alloca()'s memory
				 * (type.alloca: one in it) */
	struct dt_loc loc;	/* first use */
	int id;			/* aggregations: variable id, from 1 */
	int off;		/* DT_GLOBAL: in the globals; DT_THIS: in the
				 * scratch area */
	/* arrays and aggregations: the tuple key */
	struct dt_key *keys;
	int nkeys;		/* -1: not yet known */
	int key_size;		/* packed bytes (at least 8) */
	enum dt_aggfn fn;
	/* lquantize: lo, hi, step, levels; llquantize: factor, low, high,
	 * nsteps (agg.c) */
	int64_t qarg[4];
	int val_size;		/* map value bytes */
	int map;		/* index in the program's maps */
	/* a member or element of a struct, union or array global: read and
	 * written at its own size, at off_in bytes into base */
	bool tls;		/* DT_ARRAY: self->a[k], keyed by thread too
				 * (the key's first 8 bytes: the tid) */
	struct dt_var *base;
	uint64_t off_in;
	struct dt_var *next;
};

/* ---- record layout (the contract between cg.c and consume.c; the
 * bytes themselves are in layout.h) ---- */

enum dt_actkind {
	ACT_TRACE, ACT_PRINTF, ACT_PRINTA, ACT_EXIT,
	/* aggregation actions, applied by the consumer */
	ACT_TRUNC, ACT_CLEAR, ACT_NORMALIZE, ACT_DENORMALIZE,
	ACT_SYSTEM,		/* a printf whose text the consumer runs */
	ACT_COMMIT, ACT_DISCARD,	/* speculations */
	ACT_TRACEMEM,		/* raw bytes (vals[0]: ssize bytes) */
	ACT_SETOPT,		/* setopt(name[, value]): two strings */
	ACT_FREOPEN,		/* a printf whose text names the new output */
	ACT_FTRUNCATE,		/* ftruncate(): empty the output file */
	ACT_PRINT,		/* print(p): p (vals[0]), what it points to
				 * (vals[1]: ssize bytes of type ptype) */
};

/* One printf argument or trace value in a record. */
struct dt_recval {
	uint8_t kind;		/* KEY_INT or KEY_STR or KEY_PROBESTR */
	uint8_t size;
	bool sign;
	uint16_t ssize;
	uint8_t which;
	int off;		/* in the record */
};

struct dt_action {
	enum dt_actkind kind;
	struct dt_loc loc;
	const char *fmt;	/* printf, printa */
	struct dt_var *agg;	/* printa: the (first) aggregation */
	struct dt_var **aggs;	/* printa: every one, naggs of them */
	int naggs;
	struct dt_recval *vals;
	int nvals;
	struct dt_type ptype;	/* print(): the type of the bytes */
};

/* ---- the program ---- */

struct dt_options {
	bool quiet;
	uint64_t bufsize;	/* ring buffer bytes */
	uint64_t strsize;
	uint64_t aggsize;	/* entries per aggregation */
	uint64_t dynvarsize;	/* entries per thread-local / array */
	uint64_t switchrate;	/* ns between ring buffer polls */
	uint64_t aggrate;
	bool destructive;
	bool flowindent;
	/* printing order of aggregations */
	bool aggsortkey, aggsortrev;
	uint64_t aggsortpos, aggsortkeypos;
	uint64_t nspec, specsize;	/* speculations */
	uint64_t scratchsize;	/* alloca() bytes per clause */
	uint64_t testreject;	/* tests only: make the code of this line
				 * one the BPF verifier refuses */
	/* dtrace(1)'s other options (options.c) */
	bool errtags;		/* "[D_TAG]" in compile errors */
	bool droptags;		/* "[DTRACEDROP_*]" in drop reports */
	bool zdefs;		/* -Z: descriptions may match nothing */
	bool defaultargs;	/* unset $N are 0 (or "") */
	bool argref;		/* $N need not be referenced */
	bool empty;		/* an empty program is fine */
	bool knodefs, unodefs;
	bool rawbytes;		/* tracemem() and strings as bytes */
	bool aggpercpu;		/* aggregations per CPU */
	bool quietresize;
	bool noresolve;		/* addresses, not symbols */
	bool nolibs;		/* no D library */
	bool cpp;		/* -C */
	bool pspec;		/* top-level text is a probe description */
	bool cpphdrs;		/* -H */
	int64_t cpu;		/* -1: every CPU */
	uint64_t maxframes, stackframes, ustackframes, jstackframes;
	uint64_t jstackstrsize, stackindent;
	uint64_t printsize, pcapsize, bpflog, bpflogsize, lockmem;
	uint64_t statusrate, cleanrate;
	uint64_t iregs, tregs, tree, disasm;
	uint32_t version;	/* DT_VERSION(major, minor, micro) */
	uint8_t evaltime;	/* enum dt_evaltime */
	uint8_t bufpolicy, bufresize;
	const char *stdc;	/* -X a|c|s|t */
	const char *cpppath, *ldpath, *linkmode, *linktype;
	const char *cppargs;	/* extra words for cpp */
	char **cppopts;		/* -D, -U, -I in order ("-DX=1") */
	int ncppopts;
	char **libdirs;		/* -L, -x libdir */
	int nlibdirs;
};

/* The bytes alloca() can hand out in a clause: scratchsize less the 8
 * that stand for NULL in dtrace-utils' model (its default is 8 + 256). */
static inline uint64_t dt_alloca_max(const struct dt_options *o)
{
	return o->scratchsize > 8 ? o->scratchsize - 8 : 0;
}

#define DT_VERSION(maj, min, mic) \
	((uint32_t)(maj) << 24 | (uint32_t)(min) << 12 | (uint32_t)(mic))
enum dt_evaltime { DT_EVAL_EXEC, DT_EVAL_PREINIT, DT_EVAL_POSTINIT,
	DT_EVAL_MAIN };

/* Macro arguments: $0 (script), $1..$N, $target, $pid ... */
struct dt_macros {
	char **argv;		/* argv[0] is $0 */
	int argc;
	long target;		/* -1: none ($target is 0) */
	bool *used;		/* per argument: a program refers to it */
};

/* inline TYPE NAME = EXPR; */
struct dt_inline {
	char *name;
	struct dt_type type;
	struct dt_node *expr;	/* the definition (copied where it is used) */
	struct dt_loc loc;
	struct dt_inline *next;
};

/* translator OUT < IN name > { member = expr; ... }; */
struct dt_xlmember {
	const char *name;
	struct dt_node *expr;	/* as parsed: cloned where it is used */
	struct dt_loc loc;
};
struct dt_xlator {
	struct dt_type out, in;
	const char *in_name;
	struct dt_xlmember *members;
	int nmembers;
	struct dt_loc loc;	/* its end (the ';') */
	struct dt_xlator *next;
};
/* A deep copy of expression e (decl.c). */
struct dt_node *dt_node_clone(struct dt_cc *cc, const struct dt_node *e);
/* A copy of e with every N_VAR named name replaced by a copy of repl. */
struct dt_node *dt_node_subst(struct dt_cc *cc, const struct dt_node *e,
			      const char *name, const struct dt_node *repl);

struct dt_prog {
	struct dt_clause **clauses;
	int nclauses;
	struct dt_var *vars;	/* every variable, in order of appearance */
	struct dt_cname *cnames;	/* typedefs, enumerators, tags */
	struct dt_inline *inlines;
	struct dt_xlator *xlators;
	int naggs;
	struct dt_options opt;
	struct dt_macros *macros;
	const char **dlibs;	/* the D libraries loaded (-L), by path */
	int ndlibs;
	/* laid out by types.c */
	int globals_size;	/* the shared globals map value */
	int this_off, this_size;	/* clause-locals in the scratch area */
	char *rodata;		/* string literals */
	int rodata_size, rodata_cap;
	int empty_off;		/* an empty string in the read-only data */
	int null_off;		/* DTrace's NULL string there (DT_NULL_STRING) */
	bool uses_spec;		/* speculation(): slots in the globals */
	int spec_off;
	int max_rec;		/* the largest record a clause writes */
	/* a destructive action, refused at enabling without -w */
	bool uses_destructive;
	int zero_off;		/* zeros for a new aggregation value (-1: the
				 * scratch area's 16 zero bytes do) */
	bool uses_ppid, uses_vtimestamp;
	/* strtok()'s state (a position, then a copy of the string) and
	 * alloca()'s memory (the bytes in use, then scratchsize bytes) in
	 * the scratch area, after the this-> variables (compile.c) */
	bool uses_strtok, uses_alloca;
	int strtok_off, alloca_off;
};

/* The first two bytes of DTrace's NULL string, read as a little-endian
 * u16: an empty string whose NUL is followed by 0x7f, as dtrace-utils
 * marks a NULL kept in a string variable (dt_impl.h). A string register
 * always points to bytes; a NULL string points to these (null_off, an
 * absent dynamic variable, a string variable assigned NULL, strchr()
 * finding nothing). It compares below every other string, equal to NULL,
 * and using it (trace, printf, a string function) is an invalid address
 * (0) fault; s[i] and s + i of it are the address i. */
#define DT_NULL_STRING 0x7f00

/* A string's bytes, its NUL included: a D string holds up to strsize
 * characters, as DTrace's (whose records of a string are strsize + 1
 * bytes). */
static inline int dt_str_bytes(const struct dt_prog *p)
{
	return (int)p->opt.strsize + 1;
}

/* The offset of string s (padded to ssize bytes, cut to ssize - 1
 * characters) in the read-only data, added if absent. */
int dt_literal(struct dt_prog *p, const char *s, size_t ssize);

/* Parse sources into prog (clauses, declarations, pragmas). */
void dt_parse(struct dt_cc *cc, struct dt_prog *prog, const struct dt_src *src);
/* The libraries a D library file says it depends on ("#pragma D
 * depends_on library NAME"), its other lines only lexed: dtrace-utils'
 * first pass over a library directory (DTRACE_C_CTL). */
void dt_parse_lib_deps(struct dt_cc *cc, const struct dt_src *src,
		       char ***names, int *n);
/* Resolve names, check types, lay out records, keys and variables. */
void dt_check(struct dt_cc *cc, struct dt_prog *prog);
/* Check the inline definitions alone (a program of declarations only:
 * DTrace checks each where it is defined). */
void dt_check_inlines(struct dt_cc *cc, struct dt_prog *prog);
/* Apply one option as -x or #pragma D option would: 0, or -ENOENT for an
 * unknown name, -EINVAL for a bad value, with dtrace(1)'s words in err
 * ("Invalid option name", "Invalid value for specified option"). */
/* Options only the command line sets (dtrace-utils refuses them in a
 * #pragma: EDT_BADOPTCTX). */
bool dt_option_cmdline_only(const char *name);
int dt_set_option(struct dt_options *o, const char *name, const char *val,
		  char *err, size_t errlen);
void dt_options_default(struct dt_options *o);
/* Free what options allocated (the -D/-U/-I and -L lists). */
void dt_options_free(struct dt_options *o);

/* Built-in variables. */
enum dt_builtin {
	BI_NONE, BI_PID, BI_TID, BI_PPID, BI_UID, BI_GID, BI_EXECNAME,
	BI_TIMESTAMP, BI_VTIMESTAMP, BI_WALLTIMESTAMP, BI_CPU,
	BI_PROBEPROV, BI_PROBEMOD, BI_PROBEFUNC, BI_PROBENAME,
	BI_ARG0, BI_ARG9 = BI_ARG0 + 9, BI_ERRNO, BI_EPID, BI_ID,
	BI_ARGS,		/* args[N] (an N_INDEX; ival: N) */
	BI_UREGS,		/* uregs[N] (an N_INDEX; ival: N) */
	BI_CURPSINFO, BI_CURLWPSINFO,
	BI_CURTHREAD,		/* struct task_struct * (the kernel's BTF) */
	BI_STACKDEPTH, BI_USTACKDEPTH, BI_CALLER, BI_UCALLER,
	BI_CURCPU,		/* cpuinfo_t *: this CPU's scratch area */
	BI_PSET, BI_CHIP, BI_LGRP,	/* curcpu->cpu_pset, _chip, _lgrp
					 * (sched.d's inlines in DTrace) */
	BI_NBUILTINS
};

/* The constant NULL (the checker makes it an N_INT pointer). */
bool dt_node_is_null(const struct dt_node *n);

/* The checker's state, for the functions' check hooks (funcs.c). */
struct dt_ck;
struct dt_type dt_ck_expr(struct dt_ck *k, struct dt_node *n);
/* The same, a struct, union or array kept whole (no decay). */
struct dt_type dt_ck_expr_whole(struct dt_ck *k, struct dt_node *n);
/* Checks n; true with its value when it is an integer constant
 * expression (sizeof included). */
bool dt_ck_const(struct dt_ck *k, struct dt_node *n, int64_t *out);
struct dt_cc *dt_ck_cc(struct dt_ck *k);
struct dt_prog *dt_ck_prog(struct dt_ck *k);
struct dt_clause *dt_ck_clause(struct dt_ck *k);	/* being checked */
/* A data action of the current clause, and room in its record for e. */
struct dt_action *dt_ck_action(struct dt_ck *k, enum dt_actkind kind,
			       struct dt_node *n);
/* Valid until the next dt_ck_action of the clause. */
int dt_ck_recval(struct dt_ck *k, struct dt_action *a, struct dt_node *e);
/* Make the last value reserved take bytes in the record instead. */
void dt_ck_fix_recval(struct dt_ck *k, struct dt_action *a, int i, int bytes);
/* Raw bytes in the read-only data (8-aligned); their offset. */
int dt_rodata_add(struct dt_prog *p, const void *data, size_t n);
struct dt_var *dt_ck_find(struct dt_ck *k, const char *name,
			  enum dt_scope scope);

/* Functions and actions, each with its checker and code generator. */
struct dt_cg;
struct dt_func {
	const char *name;
	int min_args, max_args;
	bool is_agg;		/* aggregating function: count(), sum() ... */
	bool is_action;		/* a statement, not a value */
	enum dt_aggfn aggfn;
	void (*check)(struct dt_ck *k, struct dt_node *n);
	/* Expressions: leave the value in a register and return it.
	 * Actions: emit and return -1. */
	int (*cg)(struct dt_cg *g, struct dt_node *n);
};
const struct dt_func *dt_func_lookup(const char *name);
/* Whether name is a built-in variable (execname, curthread, ...). */
bool dt_builtin_var(const char *name);
/* The order rules of speculate(), commit() and the other actions in a
 * clause (DTrace's D_SPEC_* ... errors) for call n (name: NULL for an
 * aggregation). */
void dt_ck_clsflags(struct dt_ck *k, struct dt_node *n, const char *name);
/* protos.c: D's prototype of a function ("string(const char *, [int])"),
 * or NULL; and the check of call n against it with DTrace's D_PROTO_LEN
 * and D_PROTO_ARG errors (false when there is no prototype). */
const char *dt_proto(const char *name);
bool dt_proto_check(struct dt_ck *k, struct dt_node *n);

#endif
