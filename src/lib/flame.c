// SPDX-License-Identifier: GPL-2.0-only
/* flame — folded stacks and flame-graph SVG. See flame.h.
 *
 * The SVG follows flamegraph.pl's layout: the root at the bottom, one row
 * per stack depth, siblings in alphabetical order, frame width proportional
 * to samples. A small embedded script zooms into a clicked frame, searches
 * by regular expression and shows the hovered frame's counts. */
#include "flame.h"
#include "util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int cmp_stack(const void *a, const void *b)
{
	const struct flame_stack *x = a, *y = b;
	size_t n = x->n < y->n ? x->n : y->n;

	for (size_t i = 0; i < n; i++) {
		int c = strcmp(x->frames[i], y->frames[i]);

		if (c)
			return c;
	}
	return (x->n > y->n) - (x->n < y->n);
}

size_t flame_sort(struct flame_stack *s, size_t n)
{
	size_t w = 0;

	if (n == 0)
		return 0;
	qsort(s, n, sizeof(*s), cmp_stack);
	for (size_t r = 1; r < n; r++) {
		if (cmp_stack(&s[w], &s[r]) == 0)
			s[w].count += s[r].count;
		else
			s[++w] = s[r];
	}
	return w + 1;
}

static void put_frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s, f);
}

void flame_write_folded(FILE *f, const struct flame_stack *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < s[i].n; k++) {
			if (k)
				fputc(';', f);
			put_frame(f, s[i].frames[k]);
		}
		if (s[i].n == 0)
			fputs("[empty]", f);
		fprintf(f, " %llu\n", (unsigned long long)s[i].count);
	}
}

/* The tree is built from sorted stacks: a stack shares a prefix with its
 * predecessor, so a node's new child is always after its last child. */
struct node {
	const char *name;
	uint64_t total;
	size_t depth;
	size_t nkids, capkids;
	struct node **kids;
};

static struct node *node_new(const char *name, size_t depth)
{
	struct node *n = sd_calloc(1, sizeof(*n));

	n->name = name;
	n->depth = depth;
	return n;
}

static void node_free(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n);
}

static struct node *build(const struct flame_stack *s, size_t n,
			  size_t *maxdepth)
{
	struct node *root = node_new("all", 0);

	*maxdepth = 0;
	for (size_t i = 0; i < n; i++) {
		struct node *cur = root;

		root->total += s[i].count;
		for (size_t k = 0; k < s[i].n; k++) {
			struct node *last = cur->nkids ? cur->kids[cur->nkids - 1]
						       : NULL;

			if (!last || strcmp(last->name, s[i].frames[k]) != 0) {
				sd_grow(&cur->kids, &cur->capkids, cur->nkids + 1,
					sizeof(*cur->kids));
				last = node_new(s[i].frames[k], k + 1);
				cur->kids[cur->nkids++] = last;
			}
			last->total += s[i].count;
			cur = last;
		}
		if (s[i].n > *maxdepth)
			*maxdepth = s[i].n;
	}
	return root;
}

static void xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* Control characters are not allowed in XML 1.0. */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

enum {
	IMG_WIDTH = 1200,
	FRAME_H = 16,
	FONT_SIZE = 12,
	XPAD = 10,
	YPAD_TOP = FONT_SIZE * 3,
	YPAD_BOTTOM = FONT_SIZE * 2 + 10,
};
#define FONT_WIDTH 0.59
#define MIN_WIDTH 0.1

struct svg {
	FILE *f;
	double scale;		/* pixels per sample */
	uint64_t total;
	double height;
};

/* flamegraph.pl's "hot" palette, but seeded by the name so a function
 * keeps its colour across runs. */
static void color(const char *name, int *r, int *g, int *b)
{
	uint32_t h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	double v1 = (h & 0xff) / 255.0, v2 = (h >> 8 & 0xff) / 255.0,
	       v3 = (h >> 16 & 0xff) / 255.0;

	*r = 205 + (int)(50 * v3);
	*g = 0 + (int)(230 * v1);
	*b = 0 + (int)(55 * v2);
}

/* The bytes of name's first n characters (UTF-8: continuation bytes
 * belong to the character before them), and the count of all of them. */
static size_t utf8_prefix(const char *name, size_t n, size_t *chars)
{
	size_t bytes = 0, c = 0;

	for (const char *p = name; *p; p++) {
		if (((unsigned char)*p & 0xc0) == 0x80)
			continue;
		if (c++ == n)
			bytes = (size_t)(p - name);
	}
	*chars = c;
	return c > n ? bytes : strlen(name);
}

/* The label: as much of the name as fits, in characters, cut between two
 * characters (a demangled Rust name may hold any of them) so the SVG
 * stays well-formed UTF-8. */
static void frame_text(FILE *f, const char *name, double width)
{
	size_t fit = (size_t)((width - 3) / (FONT_SIZE * FONT_WIDTH));
	size_t chars, cut;

	if (fit < 3)
		return;
	cut = utf8_prefix(name, fit - 2, &chars);
	if (chars <= fit) {
		xml_escape(f, name);
		return;
	}
	char *t = sd_strndup(name, cut);

	xml_escape(f, t);
	fputs("..", f);
	free(t);
}

static void draw(struct svg *v, const struct node *n, uint64_t offset)
{
	double x = XPAD + offset * v->scale, w = n->total * v->scale;
	double y = v->height - YPAD_BOTTOM - (n->depth + 1) * FRAME_H;
	int r, g, b;

	if (w < MIN_WIDTH)
		return;
	if (n->depth == 0)
		r = g = b = 220;	/* the "all" root: neutral grey */
	else
		color(n->name, &r, &g, &b);
	fputs("<g><title>", v->f);
	xml_escape(v->f, n->name);
	fprintf(v->f, " (%llu samples, %.2f%%)</title>",
		(unsigned long long)n->total, 100.0 * n->total / v->total);
	fprintf(v->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
		x, y, w, FRAME_H - 1, r, g, b);
	fprintf(v->f, "<text x=\"%.2f\" y=\"%.2f\">", x + 3,
		y + FRAME_H - 5.5);
	frame_text(v->f, n->name, w);
	fputs("</text></g>\n", v->f);
	for (size_t i = 0; i < n->nkids; i++) {
		draw(v, n->kids[i], offset);
		offset += n->kids[i]->total;
	}
}

/* Written with fputs: no printf conversions inside. W and pad are declared
 * just before it. */
static const char flame_script[] =
"var details, matched, unzoom, searching = null, fw = " "0.59" ", fs = 12;\n"
"function init() {\n"
"  details = document.getElementById('details').firstChild;\n"
"  matched = document.getElementById('matched');\n"
"  unzoom = document.getElementById('unzoom');\n"
"  var gs = document.querySelectorAll('#frames g');\n"
"  for (var i = 0; i < gs.length; i++) {\n"
"    var g = gs[i], r = g.querySelector('rect');\n"
"    g.ox = +r.getAttribute('x'); g.ow = +r.getAttribute('width');\n"
"    g.name = g.querySelector('title').textContent;\n"
"    g.onclick = function () { zoom(this); };\n"
"    g.onmouseover = function () { details.nodeValue = this.name; };\n"
"    g.onmouseout = function () { details.nodeValue = ' '; };\n"
"  }\n"
"}\n"
"function label(g) {\n"
"  var t = g.querySelector('text'), w = +g.querySelector('rect').getAttribute('width');\n"
"  var s = g.name.replace(/ \\([0-9]+ samples, [0-9.]+%\\)$/, '');\n"
"  var fit = Math.floor((w - 3) / (fs * fw));\n"
"  t.textContent = fit < 3 ? '' : (s.length <= fit ? s : s.substring(0, fit - 2) + '..');\n"
"}\n"
"function place(g, x, w) {\n"
"  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
"  r.setAttribute('x', x); r.setAttribute('width', w);\n"
"  t.setAttribute('x', x + 3); label(g);\n"
"}\n"
"function zoom(node) {\n"
"  var r = node.querySelector('rect'), y0 = +r.getAttribute('y');\n"
"  var x0 = node.ox, w0 = node.ow;\n"
"  var k = (W - 2 * pad) / w0;\n"
"  var gs = document.querySelectorAll('#frames g');\n"
"  for (var i = 0; i < gs.length; i++) {\n"
"    var g = gs[i], y = +g.querySelector('rect').getAttribute('y');\n"
"    var inside = g.ox >= x0 - 1e-6 && g.ox + g.ow <= x0 + w0 + 1e-6;\n"
"    var under = g.ox <= x0 + 1e-6 && g.ox + g.ow >= x0 + w0 - 1e-6;\n"
"    if (y <= y0 && inside) {\n"
"      g.style.display = ''; g.style.opacity = '';\n"
"      place(g, pad + (g.ox - x0) * k, g.ow * k);\n"
"    } else if (y > y0 && under) {\n"
"      g.style.display = ''; g.style.opacity = '0.5';\n"
"      place(g, pad, W - 2 * pad);\n"
"    } else {\n"
"      g.style.display = 'none';\n"
"    }\n"
"  }\n"
"  unzoom.style.opacity = '1';\n"
"}\n"
"function reset() {\n"
"  var gs = document.querySelectorAll('#frames g');\n"
"  for (var i = 0; i < gs.length; i++) {\n"
"    var g = gs[i]; g.style.display = ''; g.style.opacity = '';\n"
"    place(g, g.ox, g.ow);\n"
"  }\n"
"  unzoom.style.opacity = '0';\n"
"}\n"
"function search() {\n"
"  var term = searching ? null : prompt('Search for (regular expression):', '');\n"
"  var gs = document.querySelectorAll('#frames g'), re, hits = [], total = 0;\n"
"  if (term) { try { re = new RegExp(term); } catch (e) { return; } }\n"
"  for (var i = 0; i < gs.length; i++) {\n"
"    var g = gs[i], r = g.querySelector('rect');\n"
"    if (!r.orig) r.orig = r.getAttribute('fill');\n"
"    var m = re && re.test(g.name.replace(/ \\([0-9]+ samples.*$/, ''));\n"
"    r.setAttribute('fill', m ? 'rgb(230,0,230)' : r.orig);\n"
"    if (m) hits.push(g);\n"
"  }\n"
"  /* Count each matched sample once: skip frames inside another hit. */\n"
"  hits.sort(function (a, b) { return a.ox - b.ox || b.ow - a.ow; });\n"
"  var end = -1, root = document.querySelector('#frames g');\n"
"  for (var j = 0; j < hits.length; j++) {\n"
"    if (hits[j].ox >= end - 1e-6) { total += hits[j].ow; end = hits[j].ox + hits[j].ow; }\n"
"  }\n"
"  searching = term || null;\n"
"  matched.firstChild.nodeValue = term ? 'Matched: ' + (100 * total / root.ow).toFixed(1) + '%' : ' ';\n"
"}\n"
"]]></script>\n";

void flame_write_svg(FILE *f, const struct flame_stack *s, size_t n,
		     const char *title, const char *subtitle)
{
	size_t maxdepth;
	struct node *root = build(s, n, &maxdepth);
	struct svg v = { .f = f, .total = root->total };

	v.height = YPAD_TOP + YPAD_BOTTOM + (maxdepth + 1) * FRAME_H;
	v.scale = root->total ? (double)(IMG_WIDTH - 2 * XPAD) / root->total : 0;

	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%.0f\" "
		"onload=\"init()\" viewBox=\"0 0 %d %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		IMG_WIDTH, v.height, IMG_WIDTH, v.height);
	fprintf(f, "<style type=\"text/css\">text { font-family: Verdana, "
		"sans-serif; font-size: %dpx; fill: rgb(0,0,0); } "
		"#frames g:hover rect { stroke: black; stroke-width: 0.5; } "
		"#frames g { cursor: pointer; } "
		".button { cursor: pointer; }</style>\n", FONT_SIZE);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"'use strict';\nvar W = %d, pad = %d;\n", IMG_WIDTH, XPAD);
	fputs(flame_script, f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" "
		"fill=\"rgb(248,248,248)\"/>\n", IMG_WIDTH, v.height);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
		"style=\"font-size:17px\">", IMG_WIDTH / 2, FONT_SIZE * 2);
	xml_escape(f, title ? title : "Flame Graph");
	fputs("</text>\n", f);
	if (subtitle) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
			"fill=\"rgb(160,160,160)\">", IMG_WIDTH / 2,
			FONT_SIZE * 2 + 14);
		xml_escape(f, subtitle);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text id=\"unzoom\" class=\"button\" x=\"%d\" y=\"%d\" "
		"style=\"opacity:0\" onclick=\"reset()\">Reset Zoom</text>\n",
		XPAD, FONT_SIZE * 2);
	fprintf(f, "<text id=\"search\" class=\"button\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\" onclick=\"search()\">Search</text>\n",
		IMG_WIDTH - XPAD, FONT_SIZE * 2);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%.0f\"> </text>\n",
		XPAD, v.height - FONT_SIZE / 2.0 - 4);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%.0f\" "
		"text-anchor=\"end\"> </text>\n", IMG_WIDTH - XPAD,
		v.height - FONT_SIZE / 2.0 - 4);
	fputs("<g id=\"frames\">\n", f);
	if (root->total)
		draw(&v, root, 0);
	fputs("</g>\n</svg>\n", f);
	node_free(root);
}
