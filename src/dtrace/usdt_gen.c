// SPDX-License-Identifier: GPL-2.0-only
/* dtrace -h and -G: a USDT provider's C header and its link object, from
 * the provider declarations of a .d file (provider P { probe N(T, ...); };).
 *
 * The Linux form, readable by sonde's usdt provider and by every tool that
 * reads <sys/sdt.h> probes (systemtap, bpftrace, perf): the header's
 * P_N(args) macro leaves a nop and a .note.stapsdt note at the call site
 * (provider, name, where each argument is: "-4@%edi"); P_N_ENABLED() reads
 * the probe's semaphore P_N_semaphore, which the kernel counts up while a
 * uprobe with a reference counter is attached. -G writes the object that
 * defines the semaphores (.probes section, hidden symbols, as systemtap's
 * dtrace -G names them), of the ELF class of the objects given; it reads
 * their notes and refuses a probe the provider does not declare, as
 * dtrace(1) does. The objects themselves are never modified. */
#include "usdt_gen.h"
#include "providers/provider.h"
#include "../lib/outfile.h"
#include "../lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gprobe {
	char *name;		/* as declared: "d__ash" */
	char **types;		/* C types of the native arguments */
	int nargs;
};

struct gprov {
	char *name;
	struct gprobe *probes;
	int nprobes;
};

struct gen {
	struct gprov *provs;
	int nprovs;
	const char *file;	/* for messages */
	char *err;
	size_t errlen;
};

/* --- the provider declarations --- */

struct lexer {
	const char *s, *end;
	int line;
};

/* The next token: an identifier, a number or one punctuation character;
 * comments, white space and preprocessor lines skipped. Empty at the end. */
static bool next_tok(struct lexer *lx, char *tok, size_t len, int *line)
{
	const char *s = lx->s;
	bool bol = s == lx->s;

	for (;;) {
		while (s < lx->end && isspace((unsigned char)*s)) {
			if (*s == '\n') {
				lx->line++;
				bol = true;
			}
			s++;
		}
		if (s + 1 < lx->end && s[0] == '/' && s[1] == '*') {
			const char *e = s + 2;

			while (e + 1 < lx->end && !(e[0] == '*' && e[1] == '/')) {
				if (*e == '\n')
					lx->line++;
				e++;
			}
			s = e + 2 <= lx->end ? e + 2 : lx->end;
			continue;
		}
		if (s + 1 < lx->end && s[0] == '/' && s[1] == '/') {
			while (s < lx->end && *s != '\n')
				s++;
			continue;
		}
		if (s < lx->end && *s == '#' && bol) {
			while (s < lx->end && *s != '\n')
				s++;
			continue;
		}
		break;
	}
	*line = lx->line;
	if (s >= lx->end) {
		lx->s = s;
		tok[0] = '\0';
		return false;
	}
	size_t n = 0;

	if (isalnum((unsigned char)*s) || *s == '_') {
		while (s < lx->end && (isalnum((unsigned char)*s) || *s == '_'))
			if (n + 1 < len)
				tok[n++] = *s++;
			else
				s++;
	} else {
		tok[n++] = *s++;
	}
	tok[n] = '\0';
	lx->s = s;
	return true;
}

static int gen_error(struct gen *g, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(g->err, g->errlen, "line %d: ", line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < g->errlen)
		vsnprintf(g->err + n, g->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_ident(const char *t)
{
	return isalpha((unsigned char)t[0]) || t[0] == '_';
}

static bool is_type_word(const char *t)
{
	static const char *const w[] = { "char", "short", "int", "long",
		"signed", "unsigned", "float", "double", "void", "_Bool",
		"const", "volatile", NULL };

	for (int i = 0; w[i]; i++)
		if (!strcmp(t, w[i]))
			return true;
	return false;
}

/* One argument's C type from its tokens: a trailing parameter name is
 * dropped, D's string is char *. */
static char *arg_type(char **toks, int n)
{
	struct sbuf b = { 0 };

	if (n >= 2 && is_ident(toks[n - 1]) && !is_type_word(toks[n - 1]) &&
	    strcmp(toks[n - 2], "struct") && strcmp(toks[n - 2], "union") &&
	    strcmp(toks[n - 2], "enum"))
		n--;
	for (int i = 0; i < n; i++) {
		const char *t = !strcmp(toks[i], "string") ? "char *" : toks[i];

		if (i && (is_ident(t) || isdigit((unsigned char)t[0])) &&
		    (is_ident(toks[i - 1]) || isdigit((unsigned char)toks[i - 1][0])))
			sbuf_putc(&b, ' ');
		else if (i && t[0] == '*' && toks[i - 1][0] != '*')
			sbuf_putc(&b, ' ');
		sbuf_puts(&b, t);
	}
	return b.buf ? b.buf : sd_strdup("");
}

/* "( T a, U * , ... )" after the probe's name: the native types. */
static int parse_args(struct gen *g, struct lexer *lx, struct gprobe *p)
{
	char tok[256], *toks[64];
	int ntoks = 0, depth = 0, line;

	for (;;) {
		if (!next_tok(lx, tok, sizeof(tok), &line))
			return gen_error(g, line, "syntax error near end of input");
		if (depth == 0 && (!strcmp(tok, ",") || !strcmp(tok, ")"))) {
			if (ntoks) {
				if (!(ntoks == 1 && !strcmp(toks[0], "void") &&
				      !p->nargs && !strcmp(tok, ")"))) {
					p->types = sd_realloc(p->types,
						((size_t)p->nargs + 1) *
						sizeof(*p->types));
					p->types[p->nargs++] = arg_type(toks,
									ntoks);
				}
			} else if (!strcmp(tok, ",") || p->nargs) {
				return gen_error(g, line,
						 "syntax error near \"%s\"", tok);
			}
			for (int i = 0; i < ntoks; i++)
				free(toks[i]);
			ntoks = 0;
			if (!strcmp(tok, ")"))
				return 0;
			continue;
		}
		if (strchr(";{}", tok[0]))
			return gen_error(g, line, "syntax error near \"%s\"",
					 tok);
		if (!strcmp(tok, "(") || !strcmp(tok, "["))
			depth++;
		else if (!strcmp(tok, ")") || !strcmp(tok, "]"))
			depth--;
		if (ntoks == 64)
			return gen_error(g, line, "argument type too long");
		toks[ntoks++] = sd_strdup(tok);
	}
}

/* provider NAME { probe NAME(ARGS) [: (ARGS)]; ... }; */
static int parse_provider(struct gen *g, struct lexer *lx)
{
	char tok[256];
	int line;
	struct gprov *pv;

	if (!next_tok(lx, tok, sizeof(tok), &line) || !is_ident(tok))
		return gen_error(g, line, "syntax error near \"%s\"", tok);
	g->provs = sd_realloc(g->provs,
			      ((size_t)g->nprovs + 1) * sizeof(*g->provs));
	pv = &g->provs[g->nprovs++];
	*pv = (struct gprov){ .name = sd_strdup(tok) };
	if (!next_tok(lx, tok, sizeof(tok), &line) || strcmp(tok, "{"))
		return gen_error(g, line, "syntax error near \"%s\"", tok);
	for (;;) {
		struct gprobe *p;

		if (!next_tok(lx, tok, sizeof(tok), &line))
			return gen_error(g, line, "syntax error near end of "
					 "input");
		if (!strcmp(tok, "}"))
			break;
		if (strcmp(tok, "probe"))
			return gen_error(g, line, "syntax error near \"%s\"",
					 tok);
		if (!next_tok(lx, tok, sizeof(tok), &line) || !is_ident(tok))
			return gen_error(g, line, "syntax error near \"%s\"",
					 tok);
		for (int i = 0; i < pv->nprobes; i++)
			if (!strcmp(pv->probes[i].name, tok))
				return gen_error(g, line, "probe %s:%s is "
						 "declared twice", pv->name,
						 tok);
		pv->probes = sd_realloc(pv->probes,
					((size_t)pv->nprobes + 1) *
					sizeof(*pv->probes));
		p = &pv->probes[pv->nprobes++];
		*p = (struct gprobe){ .name = sd_strdup(tok) };
		if (!next_tok(lx, tok, sizeof(tok), &line) || strcmp(tok, "("))
			return gen_error(g, line, "syntax error near \"%s\"",
					 tok);
		if (parse_args(g, lx, p))
			return -1;
		if (!next_tok(lx, tok, sizeof(tok), &line))
			return gen_error(g, line, "syntax error near end of "
					 "input");
		if (!strcmp(tok, ":")) {	/* translated types: D's only */
			struct gprobe x = { 0 };

			if (!next_tok(lx, tok, sizeof(tok), &line) ||
			    strcmp(tok, "(") || parse_args(g, lx, &x)) {
				for (int i = 0; i < x.nargs; i++)
					free(x.types[i]);
				free(x.types);
				return *g->err ? -1 : gen_error(g, line,
						"syntax error near \"%s\"", tok);
			}
			for (int i = 0; i < x.nargs; i++)
				free(x.types[i]);
			free(x.types);
			next_tok(lx, tok, sizeof(tok), &line);
		}
		if (strcmp(tok, ";"))
			return gen_error(g, line, "syntax error near \"%s\"",
					 tok);
	}
	/* the closing ';' is optional */
	struct lexer save = *lx;

	if (!next_tok(lx, tok, sizeof(tok), &line) || strcmp(tok, ";"))
		*lx = save;
	return 0;
}

/* Everything but provider declarations is skipped: a statement to its ';'
 * or a braced block (pragmas are preprocessor lines). */
static int parse(struct gen *g, const char *text, size_t len)
{
	struct lexer lx = { text, text + len, 1 };
	char tok[256];
	int line, depth = 0;

	g->err[0] = '\0';
	while (next_tok(&lx, tok, sizeof(tok), &line)) {
		if (depth == 0 && !strcmp(tok, "provider")) {
			if (parse_provider(g, &lx))
				return -1;
			continue;
		}
		if (!strcmp(tok, "{"))
			depth++;
		else if (!strcmp(tok, "}") && depth > 0)
			depth--;
	}
	return 0;
}

static void gen_free(struct gen *g)
{
	for (int i = 0; i < g->nprovs; i++) {
		struct gprov *pv = &g->provs[i];

		for (int j = 0; j < pv->nprobes; j++) {
			for (int k = 0; k < pv->probes[j].nargs; k++)
				free(pv->probes[j].types[k]);
			free(pv->probes[j].types);
			free(pv->probes[j].name);
		}
		free(pv->probes);
		free(pv->name);
	}
	free(g->provs);
}

/* --- the header --- */

/* dtrace(1)'s macro spelling: upper case, '-' and '.' as '_'; a probe's
 * "__" (D's '-') is one '_'. */
static void macro_name(struct sbuf *b, const char *s, bool probe)
{
	for (; *s; s++) {
		if (probe && s[0] == '_' && s[1] == '_') {
			sbuf_putc(b, '_');
			s++;
		} else if (*s == '-' || *s == '.') {
			sbuf_putc(b, '_');
		} else {
			sbuf_putc(b, (char)toupper((unsigned char)*s));
		}
	}
}

static const char header_prologue[] =
"#include <unistd.h>\n"
"#include <inttypes.h>\n"
"\n"
"#ifdef\t__cplusplus\n"
"extern \"C\" {\n"
"#endif\n"
"\n"
"#ifdef\t__GNUC__\n"
"#pragma GCC system_header\n"
"#endif\n"
"\n"
"#ifndef _SONDE_USDT\n"
"#define _SONDE_USDT 1\n"
"/* A probe site: a nop and its .note.stapsdt note (the <sys/sdt.h>\n"
" * format): the nop's address, the base, the semaphore's address, the\n"
" * provider, the name and where each argument is (\"size@operand\"). */\n"
"#if defined(__LP64__) || defined(_LP64)\n"
"#define _SONDE_USDT_ADDR \".8byte \"\n"
"#else\n"
"#define _SONDE_USDT_ADDR \".4byte \"\n"
"#endif\n"
"#define _SONDE_USDT_NOTE(prov, name, sem, args) \\\n"
"\t\"990:\\tnop\\n\" \\\n"
"\t\".pushsection .note.stapsdt,\\\"?\\\",\\\"note\\\"\\n\" \\\n"
"\t\".balign 4\\n\" \\\n"
"\t\".4byte 992f-991f, 994f-993f, 3\\n\" \\\n"
"\t\"991:\\t.asciz \\\"stapsdt\\\"\\n\" \\\n"
"\t\"992:\\t.balign 4\\n\" \\\n"
"\t\"993:\\t\" _SONDE_USDT_ADDR \"990b\\n\" \\\n"
"\t_SONDE_USDT_ADDR \"_.stapsdt.base\\n\" \\\n"
"\t_SONDE_USDT_ADDR sem \"\\n\" \\\n"
"\t\".asciz \\\"\" prov \"\\\"\\n\" \\\n"
"\t\".asciz \\\"\" name \"\\\"\\n\" \\\n"
"\t\".asciz \\\"\" args \"\\\"\\n\" \\\n"
"\t\"994:\\t.balign 4\\n\" \\\n"
"\t\".popsection\\n\" \\\n"
"\t\".ifndef _.stapsdt.base\\n\" \\\n"
"\t\".pushsection .stapsdt.base,\\\"aG\\\",\\\"progbits\\\",\" \\\n"
"\t\".stapsdt.base,comdat\\n\" \\\n"
"\t\".weak _.stapsdt.base\\n\" \\\n"
"\t\".hidden _.stapsdt.base\\n\" \\\n"
"\t\"_.stapsdt.base: .space 1\\n\" \\\n"
"\t\".size _.stapsdt.base, 1\\n\" \\\n"
"\t\".popsection\\n\" \\\n"
"\t\".endif\\n\"\n"
"/* an argument's size, negative when signed */\n"
"#define _SONDE_USDT_SIZE(T) \\\n"
"\t(__builtin_classify_type((T)0) == 1 && (T)-1 < (T)0 ? \\\n"
"\t -(int)sizeof(T) : (int)sizeof(T))\n"
"#endif\n"
"\n";

static void emit_probe(struct sbuf *b, const struct gprov *pv,
		       const struct gprobe *p, bool empty)
{
	sbuf_puts(b, "#define\t");
	macro_name(b, pv->name, false);
	sbuf_putc(b, '_');
	macro_name(b, p->name, true);
	sbuf_putc(b, '(');
	for (int i = 0; i < p->nargs; i++)
		sbuf_printf(b, "%sarg%d", i ? ", " : "", i);
	sbuf_putc(b, ')');
	if (empty) {
		sbuf_puts(b, "\n#define\t");
		macro_name(b, pv->name, false);
		sbuf_putc(b, '_');
		macro_name(b, p->name, true);
		sbuf_puts(b, "_ENABLED() (0)\n");
		return;
	}
	sbuf_printf(b, " \\\n\t__asm__ __volatile__ (_SONDE_USDT_NOTE("
		    "\"%s\", \"%s\", \"%s_%s_semaphore\", \"", pv->name,
		    p->name, pv->name, p->name);
	for (int i = 0; i < p->nargs; i++)
		sbuf_printf(b, "%s%%c[_s%d]@%%[_a%d]", i ? " " : "", i, i);
	sbuf_puts(b, "\") \\\n\t\t: :");
	for (int i = 0; i < p->nargs; i++)
		sbuf_printf(b, "%s \\\n\t\t[_s%d] \"n\" (_SONDE_USDT_SIZE(%s)), "
			    "[_a%d] \"nor\" ((%s)(arg%d))", i ? "," : "", i,
			    p->types[i], i, p->types[i], i);
	sbuf_puts(b, ")\n");
	sbuf_puts(b, "#define\t");
	macro_name(b, pv->name, false);
	sbuf_putc(b, '_');
	macro_name(b, p->name, true);
	sbuf_printf(b, "_ENABLED() \\\n\t__builtin_expect(%s_%s_semaphore, 0)\n",
		    pv->name, p->name);
}

static void emit_provider(struct sbuf *b, const struct gprov *pv)
{
	sbuf_puts(b, "#define _DTRACE_VERSION 1\n\n#if _DTRACE_VERSION\n\n");
	for (int i = 0; i < pv->nprobes; i++)
		emit_probe(b, pv, &pv->probes[i], false);
	sbuf_puts(b, "\n");
	for (int i = 0; i < pv->nprobes; i++) {
		const struct gprobe *p = &pv->probes[i];

		sbuf_printf(b, "extern volatile unsigned short %s_%s_semaphore\n"
			    "\t__attribute__((visibility(\"hidden\"), "
			    "section(\".probes\")));\n", pv->name, p->name);
		sbuf_printf(b, "/* %s:::", pv->name);
		for (const char *s = p->name; *s; s++) {
			if (s[0] == '_' && s[1] == '_') {
				sbuf_putc(b, '-');
				s++;
			} else {
				sbuf_putc(b, *s);
			}
		}
		sbuf_putc(b, '(');
		for (int j = 0; j < p->nargs; j++)
			sbuf_printf(b, "%s%s", j ? ", " : "", p->types[j]);
		sbuf_puts(b, ") */\n");
	}
	sbuf_puts(b, "\n#else\n\n");
	for (int i = 0; i < pv->nprobes; i++)
		emit_probe(b, pv, &pv->probes[i], true);
	sbuf_puts(b, "\n#endif\n\n");
}

static int write_file(const char *path, const void *buf, size_t len,
		      char *err, size_t errlen)
{
	struct sd_outfile o = { .fd = -1 };
	int r = sd_outfile_open(&o, path, 0644, 0);

	if (r) {
		snprintf(err, errlen, "failed to open %s: %s", path,
			 strerror(-r));
		return -1;
	}
	sd_outfile_write(&o, buf, len);
	r = sd_outfile_close(&o);
	sd_outfile_free(&o);
	if (r) {
		snprintf(err, errlen, "failed to write %s: %s", path,
			 strerror(-r));
		return -1;
	}
	return 0;
}

int dt_usdt_header(const char *dfile, const char *text, size_t len,
		   const char *out, char *err, size_t errlen)
{
	struct gen g = { .file = dfile, .err = err, .errlen = errlen };
	struct sbuf b = { 0 };
	const char *base = strrchr(out, '/');
	int r;

	if (parse(&g, text, len)) {
		gen_free(&g);
		return 1;
	}
	base = base ? base + 1 : out;
	sbuf_puts(&b, "/*\n * Generated by dtrace(1M).\n */\n\n");
	sbuf_puts(&b, "#ifndef\t_");
	macro_name(&b, base, false);
	sbuf_puts(&b, "\n#define\t_");
	macro_name(&b, base, false);
	sbuf_puts(&b, "\n\n");
	sbuf_puts(&b, header_prologue);
	for (int i = 0; i < g.nprovs; i++)
		emit_provider(&b, &g.provs[i]);
	sbuf_puts(&b, "\n#ifdef\t__cplusplus\n}\n#endif\n\n#endif\t/* _");
	macro_name(&b, base, false);
	sbuf_puts(&b, " */\n");
	r = write_file(out, b.buf, b.len, err, errlen) ? 2 : 0;
	free(b.buf);
	gen_free(&g);
	return r;
}

/* --- the link object --- */

static const struct gprov *find_prov(const struct gen *g, const char *name)
{
	for (int i = 0; i < g->nprovs; i++)
		if (!strcmp(g->provs[i].name, name))
			return &g->provs[i];
	return NULL;
}

/* A probe named as in a note ("d__ash") or in D ("d-ash"). */
static bool has_probe(const struct gprov *pv, const char *name)
{
	for (int i = 0; i < pv->nprobes; i++) {
		const char *a = pv->probes[i].name, *b = name;

		while (*a && *b) {
			if (a[0] == '_' && a[1] == '_' && b[0] == '-') {
				a += 2;
				b++;
			} else if (*a == *b) {
				a++;
				b++;
			} else {
				break;
			}
		}
		if (!*a && !*b)
			return true;
	}
	return false;
}

/* A probe site of an object -G links: declared? */
static int check_note(const struct dt_stapsdt *n, void *arg)
{
	struct gen *g = arg;
	const struct gprov *pv = find_prov(g, n->prov);

	if (!pv) {
		snprintf(g->err, g->errlen, "no such provider %s", n->prov);
		return -1;
	}
	if (!has_probe(pv, n->name)) {
		snprintf(g->err, g->errlen, "no such probe %s", n->name);
		return -1;
	}
	return 0;
}

/* One object: its ELF class and machine; its stapsdt notes checked
 * against the declarations. */
static int check_object(struct gen *g, const char *path, int *cls,
			int *mach)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;
	Elf *elf;
	GElf_Ehdr eh;

	if (fd < 0) {
		snprintf(g->err, g->errlen, "failed to open %s: %s", path,
			 strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		snprintf(g->err, g->errlen, "failed to process %s: %s", path,
			 elf_errmsg(-1));
		close(fd);
		return -1;
	}
	if (elf_kind(elf) == ELF_K_AR) {
		snprintf(g->err, g->errlen, "archives are not permitted; use "
			 "the contents of the archive instead: %s", path);
		r = -1;
	} else if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
		   eh.e_type != ET_REL) {
		snprintf(g->err, g->errlen, "invalid file type: %s", path);
		r = -1;
	} else if (*cls && eh.e_ident[EI_CLASS] != *cls) {
		snprintf(g->err, g->errlen, "incorrect ELF class for object "
			 "file: %s", path);
		r = -1;
	} else if (*mach && eh.e_machine != *mach) {
		snprintf(g->err, g->errlen, "incorrect ELF machine type for "
			 "object file: %s", path);
		r = -1;
	} else {
		*cls = eh.e_ident[EI_CLASS];
		*mach = eh.e_machine;
	}
	if (!r)
		r = dt_stapsdt_each(elf, check_note, g);
	elf_end(elf);
	close(fd);
	return r;
}

static size_t add_str(struct sbuf *b, const char *s)
{
	size_t at = b->len;

	sbuf_puts(b, s);
	sbuf_putc(b, '\0');
	return at;
}

int dt_usdt_link(const char *dfile, const char *text, size_t len,
		 const char *out, char **objv, int objc, char *err,
		 size_t errlen)
{
	struct gen g = { .file = dfile, .err = err, .errlen = errlen };
	struct sbuf shstr = { 0 }, str = { 0 };
	struct sd_outfile o = { .fd = -1 };
	int cls = 0, mach = 0, nsem = 0, r = 1;
	unsigned char *sems = NULL;
	GElf_Sym *syms = NULL;
	size_t nsyms = 0;
	Elf *elf = NULL;
	void *symbuf = NULL;

	elf_version(EV_CURRENT);
	if (parse(&g, text, len))
		goto out;
	err[0] = '\0';
	r = 2;
	for (int i = 0; i < objc; i++)
		if (check_object(&g, objv[i], &cls, &mach))
			goto out;
	if (!cls) {
		cls = ELFCLASS64;
		mach = EM_X86_64;
	}
	for (int i = 0; i < g.nprovs; i++)
		nsem += g.provs[i].nprobes;
	sems = sd_calloc((size_t)nsem + 1, 2);

	/* symbols: null, the .probes section, then one per semaphore */
	syms = sd_calloc((size_t)nsem + 2, sizeof(*syms));
	add_str(&str, "");
	syms[1] = (GElf_Sym){ .st_info = GELF_ST_INFO(STB_LOCAL, STT_SECTION),
			      .st_shndx = 1 };
	nsyms = 2;
	for (int i = 0, k = 0; i < g.nprovs; i++) {
		for (int j = 0; j < g.provs[i].nprobes; j++, k++) {
			char name[512];

			snprintf(name, sizeof(name), "%s_%s_semaphore",
				 g.provs[i].name, g.provs[i].probes[j].name);
			syms[nsyms++] = (GElf_Sym){
				.st_name = (Elf64_Word)add_str(&str, name),
				.st_info = GELF_ST_INFO(STB_GLOBAL, STT_OBJECT),
				.st_other = STV_HIDDEN,
				.st_shndx = 1,
				.st_value = (GElf_Addr)k * 2,
				.st_size = 2 };
		}
	}

	int fr = sd_outfile_open(&o, out, 0644, 0);

	if (fr) {
		snprintf(err, errlen, "failed to open %s: %s", out,
			 strerror(-fr));
		goto out;
	}
	elf = elf_begin(o.fd, ELF_C_WRITE, NULL);
	if (!elf || !gelf_newehdr(elf, cls))
		goto elferr;
	GElf_Ehdr eh;

	gelf_getehdr(elf, &eh);
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_REL;
	eh.e_machine = (GElf_Half)mach;
	eh.e_version = EV_CURRENT;

	/* 1 .probes, 2 .note.GNU-stack, 3 .symtab, 4 .strtab, 5 .shstrtab */
	struct {
		const char *name;
		GElf_Word type;
		GElf_Xword flags, align, entsize;
		void *buf;
		size_t size;
		Elf_Type dtype;
	} secs[5] = {
		{ ".probes", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 2, 0, sems,
		  (size_t)nsem * 2, ELF_T_BYTE },
		{ ".note.GNU-stack", SHT_PROGBITS, 0, 1, 0, NULL, 0,
		  ELF_T_BYTE },
		{ ".symtab", SHT_SYMTAB, 0, cls == ELFCLASS32 ? 4 : 8,
		  gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT), NULL, 0,
		  ELF_T_SYM },
		{ ".strtab", SHT_STRTAB, 0, 1, 0, NULL, 0, ELF_T_BYTE },
		{ ".shstrtab", SHT_STRTAB, 0, 1, 0, NULL, 0, ELF_T_BYTE },
	};
	size_t names[5];

	add_str(&shstr, "");
	for (int i = 0; i < 5; i++)
		names[i] = add_str(&shstr, secs[i].name);
	/* the symbol table in the file's class */
	size_t symsz = gelf_fsize(elf, ELF_T_SYM, nsyms, EV_CURRENT);

	symbuf = sd_calloc(1, symsz);

	for (int i = 0; i < 5; i++) {
		Elf_Scn *scn = elf_newscn(elf);
		Elf_Data *d;
		GElf_Shdr sh;

		if (!scn || !(d = elf_newdata(scn)))
			goto elferr;
		gelf_getshdr(scn, &sh);
		sh.sh_name = (GElf_Word)names[i];
		sh.sh_type = secs[i].type;
		sh.sh_flags = secs[i].flags;
		sh.sh_addralign = secs[i].align;
		sh.sh_entsize = secs[i].entsize;
		d->d_type = secs[i].dtype;
		d->d_align = secs[i].align;
		d->d_version = EV_CURRENT;
		switch (i) {
		case 2:
			sh.sh_link = 4;
			sh.sh_info = 2;		/* the first global */
			d->d_buf = symbuf;
			d->d_size = symsz;
			break;
		case 3:
			d->d_buf = str.buf;
			d->d_size = str.len;
			break;
		case 4:
			d->d_buf = shstr.buf;
			d->d_size = shstr.len;
			break;
		default:
			d->d_buf = secs[i].buf;
			d->d_size = secs[i].size;
		}
		if (!gelf_update_shdr(scn, &sh))
			goto elferr;
		if (i == 2)
			for (size_t k = 0; k < nsyms; k++)
				if (!gelf_update_sym(d, (int)k, &syms[k]))
					goto elferr;
	}
	eh.e_shstrndx = 5;
	if (!gelf_update_ehdr(elf, &eh) || elf_update(elf, ELF_C_WRITE) < 0)
		goto elferr;
	elf_end(elf);
	elf = NULL;
	free(symbuf);
	symbuf = NULL;
	fr = sd_outfile_close(&o);
	if (fr) {
		snprintf(err, errlen, "failed to write %s: %s", out,
			 strerror(-fr));
		r = 2;
		goto out;
	}
	r = 0;
	goto out;
elferr:
	snprintf(err, errlen, "failed to write %s: %s", out, elf_errmsg(-1));
	if (elf)
		elf_end(elf);
	elf = NULL;
	free(symbuf);
	sd_outfile_discard(&o);
	r = 2;
out:
	sd_outfile_free(&o);
	free(syms);
	free(sems);
	free(str.buf);
	free(shstr.buf);
	gen_free(&g);
	return r;
}
