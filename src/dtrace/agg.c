// SPDX-License-Identifier: GPL-2.0-only
/* agg — aggregation values: layouts, buckets, merging, the value printa()
 * prints, and DTrace's histogram layout. See agg.h. The histogram rules
 * follow illumos' dtrace(1): the rows printed are the first and last
 * buckets with data widened by one zero row on each side; bars are
 * 40 '@' wide scaled to the total of the rows printed; negative counts
 * (from negative increments) draw bars to the left of a centre line. */
#include "agg.h"

#include <stdlib.h>
#include <string.h>

int dt_agg_words(const struct dt_var *v)
{
	switch (v->fn) {
	case AGG_COUNT:
	case AGG_SUM:
		return 1;
	case AGG_STDDEV:
		return 4;	/* count, sum, sum of squares (128 bits) */
	case AGG_QUANTIZE:
		return DT_QUANTIZE_NBUCKETS;
	case AGG_LQUANTIZE:
		return (int)v->qarg[3] + 2;
	case AGG_LLQUANTIZE:
		return dt_llquantize_nbuckets(v->qarg[0], v->qarg[1],
					      v->qarg[2], v->qarg[3]);
	default:
		return 2;	/* avg: count, sum; min/max: value, set */
	}
}

bool dt_agg_is_hist(const struct dt_var *v)
{
	return v->fn == AGG_QUANTIZE || v->fn == AGG_LQUANTIZE ||
	       v->fn == AGG_LLQUANTIZE;
}

/* ---- buckets ---- */

static int ilog2_u64(uint64_t x)
{
	return 63 - __builtin_clzll(x);
}

int dt_quantize_bucket(int64_t val)
{
	int b;

	if (val == 0)
		return DT_QUANTIZE_ZERO;
	if (val > 0)
		return DT_QUANTIZE_ZERO + 1 + ilog2_u64((uint64_t)val);
	b = DT_QUANTIZE_ZERO - 1 - ilog2_u64(-(uint64_t)val);
	return b < 0 ? 0 : b;
}

int64_t dt_quantize_bucketval(int b)
{
	if (b > DT_QUANTIZE_ZERO)
		return (int64_t)(1ull << (b - DT_QUANTIZE_ZERO - 1));
	if (b < DT_QUANTIZE_ZERO)
		return -(int64_t)(1ull << (DT_QUANTIZE_ZERO - b - 1));
	return 0;
}

int dt_lquantize_bucket(int64_t lo, int64_t step, int64_t levels, int64_t val)
{
	if (val < lo)
		return 0;
	if (val >= lo + levels * step)
		return (int)levels + 1;
	return (int)((val - lo) / step) + 1;
}

int dt_llquantize_zero(int64_t factor, int64_t low, int64_t high,
		       int64_t nsteps)
{
	return 1 + (int)((high - low + 1) * (nsteps - nsteps / factor));
}

static uint64_t ipow(int64_t factor, int64_t n)
{
	uint64_t p = 1;

	while (n-- > 0)
		p *= (uint64_t)factor;
	return p;
}

/* dtrace-utils' dt_cg_agg_llquantize_bin, as the BPF code computes it
 * (cg_agg.c): the absolute value's magnitude and step, mirrored below
 * the middle bucket for negative values; a division by zero is 0 there
 * too. */
int dt_llquantize_bucket(int64_t factor, int64_t low, int64_t high,
			 int64_t nsteps, int64_t val)
{
	int64_t sf = nsteps / factor, mag, ind = 0, b;
	uint64_t t = val < 0 ? -(uint64_t)val : (uint64_t)val;
	uint64_t max = ipow(factor, low);
	int zero = dt_llquantize_zero(factor, low, high, nsteps);

	if (t < max)
		return zero;
	for (mag = low;; ) {
		max *= (uint64_t)factor;
		if (t < max) {
			uint64_t q = (uint64_t)nsteps;

			if (mag) {
				q = max / (uint64_t)nsteps;
				ind = q ? (int64_t)(t / q) : 0;
			} else {
				ind = (int64_t)(t * q / max);
			}
			ind -= sf;
			break;
		}
		if (++mag > high)
			break;
	}
	b = (mag - low) * (nsteps - sf) + ind + 1;
	return zero + (int)(val < 0 ? -b : b);
}

int dt_llquantize_nbuckets(int64_t factor, int64_t low, int64_t high,
			   int64_t nsteps)
{
	return 2 * dt_llquantize_zero(factor, low, high, nsteps) + 1;
}

const char *dt_llquantize_check(int64_t factor, int64_t low, int64_t high,
				int64_t nsteps)
{
	int64_t p = 1;

	/* dtrace-utils' rules (dt_cg_agg_llquantize) */
	if (factor < 2 || factor > 65535)
		return "factor (argument #1) must be between 2 and 65535";
	if (low < 0 || low > 65535 || high < 0 || high > 65535)
		return "magnitudes (arguments #2 and #3) must be between 0 "
		       "and 65535";
	if (low > high)
		return "low magnitude (argument #2) must be at most the high "
		       "magnitude (argument #3)";
	if (nsteps < 1 || nsteps > 65535)
		return "number of steps (argument #4) must be between 1 and "
		       "65535";
	if (nsteps < factor && factor % nsteps)
		return "steps (argument #4) must evenly divide the factor";
	if (nsteps > factor) {
		int64_t pw = 1;

		for (int64_t i = 0; i <= (low ? low : 1); i++)
			if (__builtin_mul_overflow(pw, factor, &pw))
				return "high magnitude (argument #3) overflows "
				       "64 bits";
		if (nsteps % factor || pw % nsteps)
			return "steps (argument #4) must be a multiple of the "
			       "factor that evenly divides factor^(low + 1)";
	}
	for (int o = 0; o <= high; o++)
		if (__builtin_mul_overflow(p, factor, &p))
			return "high magnitude (argument #3) overflows 64 bits";
	return NULL;
}

/* ---- merging and values ---- */

void dt_agg_merge(const struct dt_var *v, int64_t *dst, const int64_t *src)
{
	unsigned __int128 a, b;
	int n;

	switch (v->fn) {
	case AGG_MIN:
	case AGG_MAX:
		if (!src[1])
			break;
		if (!dst[1] || (v->fn == AGG_MIN ? src[0] < dst[0] :
				src[0] > dst[0]))
			dst[0] = src[0];
		dst[1] = 1;
		break;
	case AGG_STDDEV:
		dst[0] += src[0];
		dst[1] += src[1];
		a = (unsigned __int128)(uint64_t)dst[3] << 64 | (uint64_t)dst[2];
		b = (unsigned __int128)(uint64_t)src[3] << 64 | (uint64_t)src[2];
		a += b;
		dst[2] = (int64_t)(uint64_t)a;
		dst[3] = (int64_t)(uint64_t)(a >> 64);
		break;
	default:
		n = dt_agg_words(v);
		for (int i = 0; i < n; i++)
			dst[i] = (int64_t)((uint64_t)dst[i] + (uint64_t)src[i]);
	}
}

static uint64_t isqrt128(unsigned __int128 x)
{
	uint64_t r = 0;

	for (int bit = 63; bit >= 0; bit--) {
		unsigned __int128 t = r | (1ull << bit);

		if (t * t <= x)
			r = (uint64_t)t;
	}
	return r;
}

/* DTrace's integer approximation: sqrt(avg(x^2) - avg(x)^2). */
static uint64_t stddev(const int64_t *d, uint64_t normal)
{
	unsigned __int128 sq, avgsq, sqavg;
	int64_t avg;

	if (!d[0])
		return 0;
	sq = (unsigned __int128)(uint64_t)d[3] << 64 | (uint64_t)d[2];
	avgsq = sq / normal / (uint64_t)d[0];
	avg = d[1] / (int64_t)normal / d[0];
	if (avg < 0)
		avg = -avg;
	sqavg = (unsigned __int128)(uint64_t)avg * (uint64_t)avg;
	return avgsq > sqavg ? isqrt128(avgsq - sqavg) : 0;
}

int64_t dt_agg_scalar(const struct dt_var *v, const int64_t *val,
		      uint64_t normal)
{
	if (!normal)
		normal = 1;
	switch (v->fn) {
	case AGG_AVG:
		return val[0] ? val[1] / (int64_t)normal / val[0] : 0;
	case AGG_STDDEV:
		return (int64_t)stddev(val, normal);
	default:
		return val[0] / (int64_t)normal;
	}
}

/* A histogram's weight: the sum of bucket value times count, and the count
 * of the bucket holding zero. */
static long double hist_sum(const struct dt_var *v, const int64_t *d,
			    int64_t *zero)
{
	long double t = 0;
	int n = dt_agg_words(v);

	*zero = 0;
	switch (v->fn) {
	case AGG_QUANTIZE:
		for (int i = 0; i < n; i++)
			t += (long double)dt_quantize_bucketval(i) * d[i];
		*zero = d[DT_QUANTIZE_ZERO];
		break;
	case AGG_LQUANTIZE: {
		int64_t base = v->qarg[0], step = v->qarg[2];
		int64_t levels = v->qarg[3];

		t = (long double)d[0] * (long double)(base - 1);
		for (int i = 0; i < levels; i++, base += step) {
			t += (long double)d[i + 1] * (long double)base;
			if (base == 0)
				*zero = d[i + 1];
		}
		t += (long double)d[levels + 1] * (long double)(base + 1);
		if (base + 1 == 0)
			*zero = d[levels + 1];
		break;
	}
	default: {
		/* dtrace-utils' dt_aggregate_llquantizedsum */
		int64_t factor = v->qarg[0], lmag = v->qarg[1];
		int64_t hmag = v->qarg[2], steps = v->qarg[3];
		int64_t sf = steps / factor;
		int z = dt_llquantize_zero(factor, lmag, hmag, steps), i = 1;
		long double scale;

		t = (long double)ipow(factor, lmag) *
		    (long double)(d[z + 1] - d[z - 1]);
		if (lmag == 0 && steps > factor) {
			for (int64_t st = 2; st <= factor; st++) {
				i += (int)sf;
				t += (long double)st * (long double)(d[z + i] -
								    d[z - i]);
			}
			lmag = 1;
		}
		scale = (long double)ipow(factor, lmag + 1) / steps;
		for (int64_t mag = lmag; mag <= hmag; mag++) {
			for (int64_t st = sf + 1; st <= steps; st++) {
				i++;
				t += (long double)st * scale *
				     (long double)(d[z + i] - d[z - i]);
			}
			scale *= factor;
		}
		*zero = d[z];
	}
	}
	return t;
}

int dt_agg_valcmp(const struct dt_var *v, const int64_t *a, const int64_t *b)
{
	if (dt_agg_is_hist(v)) {
		int64_t za, zb;
		long double sa = hist_sum(v, a, &za), sb = hist_sum(v, b, &zb);

		if (sa != sb)
			return sa < sb ? -1 : 1;
		return za < zb ? -1 : za > zb;
	}
	int64_t x = dt_agg_scalar(v, a, 1), y = dt_agg_scalar(v, b, 1);

	if (v->fn == AGG_STDDEV)
		return (uint64_t)x < (uint64_t)y ? -1 : (uint64_t)x > (uint64_t)y;
	return x < y ? -1 : x > y;
}

/* ---- histograms ---- */

struct hist {
	FILE *f;
	uint64_t normal;
	long double total;
	bool pos, neg;
};

/* A bar of at most len characters for val: |val| in long double (llabs
 * of INT64_MIN overflows) and never past len when values overflowed. */
static unsigned bar_depth(int64_t val, unsigned len, long double total)
{
	long double a = val < 0 ? -(long double)val : (long double)val, d;

	if (total <= 0)
		return 0;
	d = a * (long double)len / total + 0.5;
	return d >= (long double)len ? len : (unsigned)d;
}

static void quantline(const struct hist *h, int64_t val)
{
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	static const char spaces[] = "                                        ";
	long long shown = (long long)val / (long long)h->normal;
	unsigned len = 40, depth = 0;

	if (!h->neg) {
		if (h->pos)
			depth = bar_depth(val, len, h->total);
		fprintf(h->f, "|%s%s %-9lld\n", ats + len - depth,
			spaces + depth, shown);
		return;
	}
	if (!h->pos) {
		depth = bar_depth(val, len, h->total);
		fprintf(h->f, "%s%s| %-9lld\n", spaces + depth,
			ats + len - depth, shown);
		return;
	}
	/* Both signs: half-size bars on each side of a centre line. */
	len /= 2;
	depth = bar_depth(val, len, h->total);
	if (val <= 0)
		fprintf(h->f, "%s%s|%*s %-9lld\n", spaces + 20 + depth,
			ats + 20 + len - depth, (int)len, "", shown);
	else
		fprintf(h->f, "%20s|%s%s %-9lld\n", "", ats + 20 + len - depth,
			spaces + 20 + depth, shown);
}

/* The rows to print: the buckets with data, one more on each side;
 * false when every bucket is zero. */
static bool hist_range(const int64_t *d, int n, int *first, int *last)
{
	int a = 0, b = n - 1;

	while (a < n && d[a] == 0)
		a++;
	if (a == n)
		return false;
	if (a > 0)
		a--;
	while (b > 0 && d[b] == 0)
		b--;
	if (b < n - 1)
		b++;
	*first = a;
	*last = b;
	return true;
}

static void hist_head(struct hist *h, const int64_t *d, int first, int last)
{
	h->total = 0;
	h->pos = h->neg = false;
	for (int i = first; i <= last; i++) {
		h->pos |= d[i] > 0;
		h->neg |= d[i] < 0;
		h->total += d[i] < 0 ? -(long double)d[i] : (long double)d[i];
	}
	fprintf(h->f, "\n%16s %41s %-9s\n", "value",
		"------------- Distribution -------------", "count");
}

static void print_quantize(struct hist *h, const int64_t *d)
{
	int first, last;

	if (!hist_range(d, DT_QUANTIZE_NBUCKETS, &first, &last)) {
		first = DT_QUANTIZE_ZERO - 1;
		last = DT_QUANTIZE_ZERO + 1;
	}
	hist_head(h, d, first, last);
	for (int i = first; i <= last; i++) {
		fprintf(h->f, "%16lld ", (long long)dt_quantize_bucketval(i));
		quantline(h, d[i]);
	}
}

static void print_lquantize(struct hist *h, const struct dt_var *v,
			    const int64_t *d)
{
	int64_t base = v->qarg[0], step = v->qarg[2], levels = v->qarg[3];
	int first, last;
	char c[48];

	if (!hist_range(d, (int)levels + 2, &first, &last)) {
		first = 0;
		last = 2;
	}
	hist_head(h, d, first, last);
	for (int i = first; i <= last; i++) {
		if (i == 0) {
			snprintf(c, sizeof(c), "< %lld", (long long)base);
			fprintf(h->f, "%16s ", c);
		} else if (i == levels + 1) {
			snprintf(c, sizeof(c), ">= %lld",
				 (long long)(base + levels * step));
			fprintf(h->f, "%16s ", c);
		} else {
			fprintf(h->f, "%16lld ",
				(long long)(base + (i - 1) * step));
		}
		quantline(h, d[i]);
	}
}

/* dtrace-utils' dt_print_llquantize: rows labelled from the middle
 * bucket outwards, the unused buckets of magnitude 0 left out. */
static void print_llquantize(struct hist *h, const struct dt_var *v,
			     const int64_t *d)
{
	enum { W = 24 };
	int64_t factor = v->qarg[0], lmag = v->qarg[1], hmag = v->qarg[2];
	int64_t steps = v->qarg[3], sf = steps / factor;
	int n = dt_agg_words(v), z = dt_llquantize_zero(factor, lmag, hmag,
							 steps);
	int first = 0, last = n - 1, pad = 0, i;
	uint64_t scale;
	char (*c)[W];

	while (first <= last && d[first] == 0)
		first++;
	if (first > last) {
		first = last = z + 1;
	} else {
		while (d[last] == 0)
			last--;
	}
	h->total = 0;
	h->pos = h->neg = false;
	for (i = first; i <= last; i++) {
		h->pos |= d[i] > 0;
		h->neg |= d[i] < 0;
		h->total += d[i] < 0 ? -(long double)d[i] : (long double)d[i];
	}
	fprintf(h->f, "\n%16s %41s %-9s\n", "value",
		"------------- Distribution -------------", "count");
	if (first > 0)
		first--;
	if (last < n - 1)
		last++;
	if (lmag == 0 && steps > factor)
		pad = (int)sf;
	c = calloc((size_t)(last - first + 1 + 2 * pad), sizeof(*c));
	if (!c)
		return;
#define LABEL(I, ...) do { \
		if ((I) >= first - pad && (I) <= last + pad) \
			snprintf(c[(I) - first + pad], W, __VA_ARGS__); \
	} while (0)
	scale = ipow(factor, lmag);
	if (scale == 1)
		LABEL(z, "%d", 0);
	else if (first >= z)
		LABEL(z, "< %llu", (unsigned long long)scale);
	else
		LABEL(z, "abs() < %llu", (unsigned long long)scale);
	LABEL(z - 1, "-%llu", (unsigned long long)scale);
	LABEL(z + 1, "%llu", (unsigned long long)scale);
	int64_t mag = lmag;

	i = 1;
	if (lmag == 0 && steps > factor) {
		for (int64_t st = 2; st <= factor; st++) {
			i += (int)sf;
			LABEL(z - i, "-%lld", (long long)st);
			LABEL(z + i, "%lld", (long long)st);
		}
		mag++;
	}
	scale = ipow(factor, mag + 1) / (uint64_t)steps;
	for (; mag <= hmag; mag++) {
		for (int64_t st = sf + 1; st <= steps; st++) {
			i++;
			LABEL(z - i, "-%llu", (unsigned long long)st * scale);
			LABEL(z + i, "%llu", (unsigned long long)st * scale);
		}
		scale *= (uint64_t)factor;
	}
	scale = ipow(factor, hmag + 1);
	LABEL(0, "<= -%llu", (unsigned long long)scale);
	LABEL(n - 1, ">= %llu", (unsigned long long)scale);
#undef LABEL
	/* a first or last row on an unused bucket takes its neighbour's
	 * label (dtrace-utils' "ghost bin") */
	if (pad > 0) {
		int j = pad, k;

		if (!c[j][0]) {
			for (k = 1; k < pad && !c[j - k][0]; k++)
				;
			if (k < pad)
				memcpy(c[j], c[j - k], W);
		}
		j = last - first + pad;
		if (!c[j][0]) {
			for (k = 1; k < pad && !c[j + k][0]; k++)
				;
			if (k < pad)
				memcpy(c[j], c[j + k], W);
		}
	}
	for (i = first; i <= last; i++) {
		if (!c[i - first + pad][0])
			continue;
		fprintf(h->f, "%16s ", c[i - first + pad]);
		quantline(h, d[i]);
	}
	free(c);
}

void dt_agg_print_hist(FILE *f, const struct dt_var *v, const int64_t *val,
		       uint64_t normal)
{
	struct hist h = { .f = f, .normal = normal ? normal : 1 };

	switch (v->fn) {
	case AGG_QUANTIZE:
		print_quantize(&h, val);
		break;
	case AGG_LQUANTIZE:
		print_lquantize(&h, v, val);
		break;
	case AGG_LLQUANTIZE:
		print_llquantize(&h, v, val);
		break;
	default:
		break;
	}
}
