// SPDX-License-Identifier: GPL-2.0-only
/* cli — the front door every command shares: a usage error is one line that
 * names the offending token and points at the command's help, getopt's
 * errors are turned into that line naming the right token, and an unknown
 * word is matched against the known ones for a suggestion.
 * Knows nothing about any tool. */
#ifndef SONDE_CLI_H
#define SONDE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

/* "sonde hot: bad duration 'x' (see sonde hot --help)" on stderr, with
 * sd_prog() as the prefix; returns SD_EXIT_USAGE. */
int sd_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* For getopt()/getopt_long()'s '?' and ':' returns (opterr = 0 and a
 * leading ':' in the option string): names the token that was wrong —
 * "unknown option '-q'" for a short one inside a cluster such as -vq,
 * "unknown option '--bogus'", "option '--verbose' takes no value",
 * "option '-d' needs a value" — through sd_usage_error(). longopts may be
 * NULL. Call it right after getopt returned c. Returns SD_EXIT_USAGE. */
int sd_getopt_error(int c, char **argv, const struct option *longopts);

/* The word of words[0..n) nearest to word (edit distance at most 2, or
 * word is a prefix of exactly one), or NULL when none is near. */
const char *sd_nearest(const char *word, const char *const *words, size_t n);

/* Edit distance (insertions, deletions, substitutions, transpositions of
 * neighbours), capped at cap + 1 for speed. */
size_t sd_edit_distance(const char *a, const char *b, size_t cap);

#endif
