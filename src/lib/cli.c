// SPDX-License-Identifier: GPL-2.0-only
/* cli — one-line usage errors, getopt's errors naming the right token, and
 * nearest-word suggestions. See cli.h. */
#include "cli.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int sd_usage_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s (see %s --help)\n", sd_prog(), msg, sd_prog());
	return SD_EXIT_USAGE;
}

int sd_getopt_error(int c, char **argv, const struct option *longopts)
{
	/* getopt has moved optind past the token it complained about, except
	 * inside a cluster of short options, where optopt names the letter. */
	const char *tok = optind > 0 ? argv[optind - 1] : "";

	if (tok && !strncmp(tok, "--", 2) && tok[2]) {
		size_t n = strcspn(tok, "=");
		const char *eq = tok[n] ? tok + n : NULL;

		if (c == ':')
			return sd_usage_error("option '%.*s' needs a value",
					      (int)n, tok);
		/* getopt_long sets optopt to the option's value when it is
		 * known but was given "=value" it does not take. */
		if (eq && optopt && longopts)
			return sd_usage_error("option '%.*s' takes no value",
					      (int)n, tok);
		return sd_usage_error("unknown option '%.*s'", (int)n, tok);
	}
	if (c == ':')
		return sd_usage_error("option '-%c' needs a value", optopt);
	if (optopt > ' ' && optopt < 127)
		return sd_usage_error("unknown option '-%c'", optopt);
	return sd_usage_error("unknown option '%s'", tok ? tok : "");
}

size_t sd_edit_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b);
	/* Three rows of the optimal-string-alignment matrix; words longer
	 * than 63 bytes are never near anything worth suggesting. */
	size_t r0[64], r1[64], r2[64], *pp = r0, *p = r1, *cur = r2;

	if (la > 63 || lb > 63)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		p[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = p[j - 1] + cost;

			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			cur[j] = v;
		}
		size_t *t = pp;

		pp = p;
		p = cur;
		cur = t;
	}
	return p[lb] > cap ? cap + 1 : p[lb];
}

const char *sd_nearest(const char *word, const char *const *words, size_t n)
{
	const char *best = NULL, *prefix = NULL;
	size_t best_d = 3, wl = strlen(word), nprefix = 0;

	for (size_t i = 0; i < n; i++) {
		size_t d = sd_edit_distance(word, words[i], 2);

		if (d < best_d) {
			best_d = d;
			best = words[i];
		}
		if (wl && !strncmp(words[i], word, wl)) {
			prefix = words[i];
			nprefix++;
		}
	}
	/* A word of one or two letters is near almost anything. */
	if (best && wl <= 2 && best_d >= wl)
		best = NULL;
	if (!best && nprefix == 1)
		best = prefix;
	return best;
}
