// SPDX-License-Identifier: GPL-2.0-only
/* pprof — profile.proto builder, writer and reader. See pprof.h.
 *
 * The interning tables store index + 1 as their (never NULL) values; the
 * lookups compare through a key that carries the builder. */
#include "pprof.h"
#include "util.h"
#include "profile.pb-c.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;

struct key {
	const struct pprof *p;
	const void *a;
	const void *b;
	size_t n, m;
};

void pprof_init(struct pprof *p)
{
	memset(p, 0, sizeof(*p));
	pprof_str(p, "");
}

void pprof_free(struct pprof *p)
{
	for (size_t i = 0; i < p->nstrings; i++)
		free(p->strings[i]);
	free(p->strings);
	free(p->types);
	free(p->mappings);
	free(p->functions);
	for (size_t i = 0; i < p->nlocations; i++)
		free(p->locations[i].lines);
	free(p->locations);
	for (size_t i = 0; i < p->nsamples; i++) {
		free(p->samples[i].locs);
		free(p->samples[i].values);
		free(p->samples[i].labels);
	}
	free(p->samples);
	free(p->comments);
	htab_free(&p->str_index);
	htab_free(&p->fn_index);
	htab_free(&p->loc_index);
	htab_free(&p->sample_index);
	memset(p, 0, sizeof(*p));
}

/* ---- strings ---- */

static bool str_eq(const void *val, const void *key)
{
	const struct key *k = key;

	return strcmp(k->p->strings[(uintptr_t)val - 1], k->a) == 0;
}

int64_t pprof_str(struct pprof *p, const char *s)
{
	struct key k = { p, s ? s : "", NULL, 0, 0 };
	uint64_t h;
	void *v;

	s = k.a;
	h = hash_bytes(s, strlen(s), 0x5157);
	if ((v = htab_get(&p->str_index, h, str_eq, &k)))
		return (int64_t)((uintptr_t)v - 1);
	sd_grow(&p->strings, &p->capstrings, p->nstrings + 1,
		sizeof(*p->strings));
	p->strings[p->nstrings] = sd_strdup(s);
	htab_put(&p->str_index, h, (void *)(uintptr_t)(p->nstrings + 1));
	return (int64_t)p->nstrings++;
}

const char *pprof_string(const struct pprof *p, int64_t idx)
{
	return idx >= 0 && (size_t)idx < p->nstrings ? p->strings[idx] : "";
}

/* ---- header fields ---- */

void pprof_add_type(struct pprof *p, const char *type, const char *unit)
{
	p->types = sd_realloc(p->types, (p->ntypes + 1) * sizeof(*p->types));
	p->types[p->ntypes++] = (struct pprof_valtype){ pprof_str(p, type),
							pprof_str(p, unit) };
}

void pprof_set_period(struct pprof *p, const char *type, const char *unit,
		      int64_t period)
{
	p->period_type = (struct pprof_valtype){ pprof_str(p, type),
						 pprof_str(p, unit) };
	p->period = period;
}

void pprof_add_comment(struct pprof *p, const char *text)
{
	p->comments = sd_realloc(p->comments,
				 (p->ncomments + 1) * sizeof(*p->comments));
	p->comments[p->ncomments++] = pprof_str(p, text);
}

uint64_t pprof_add_mapping(struct pprof *p, const struct pprof_mapping *m)
{
	sd_grow(&p->mappings, &p->capmappings, p->nmappings + 1,
		sizeof(*p->mappings));
	p->mappings[p->nmappings++] = *m;
	return p->nmappings;
}

/* ---- functions ---- */

static bool fn_eq(const void *val, const void *key)
{
	const struct key *k = key;

	return memcmp(&k->p->functions[(uintptr_t)val - 1], k->a,
		      sizeof(struct pprof_function)) == 0;
}

static uint64_t function_id(struct pprof *p, const struct pprof_function *f)
{
	struct key k = { p, f, NULL, 0, 0 };
	uint64_t h = hash_bytes(f, sizeof(*f), 0xf0);
	void *v;

	if ((v = htab_get(&p->fn_index, h, fn_eq, &k)))
		return (uintptr_t)v;
	sd_grow(&p->functions, &p->capfunctions, p->nfunctions + 1,
		sizeof(*p->functions));
	p->functions[p->nfunctions++] = *f;
	htab_put(&p->fn_index, h, (void *)(uintptr_t)p->nfunctions);
	return p->nfunctions;
}

uint64_t pprof_function(struct pprof *p, const char *name,
			const char *system_name, const char *file,
			int64_t start_line)
{
	struct pprof_function f;

	memset(&f, 0, sizeof(f));
	f.name = pprof_str(p, name);
	f.system_name = pprof_str(p, system_name ? system_name : name);
	f.file = pprof_str(p, file);
	f.start_line = start_line;
	return function_id(p, &f);
}

/* ---- locations ---- */

static bool loc_eq(const void *val, const void *key)
{
	const struct key *k = key;
	const struct pprof_location *l = &k->p->locations[(uintptr_t)val - 1];
	const uint64_t *ma = k->a;

	return l->mapping == ma[0] && l->address == ma[1];
}

uint64_t pprof_location(struct pprof *p, uint64_t mapping, uint64_t address,
			const struct pprof_line *lines, size_t nlines)
{
	uint64_t ma[2] = { mapping, address };
	struct key k = { p, ma, NULL, 0, 0 };
	uint64_t h = hash_bytes(ma, sizeof(ma), 0x10c);
	struct pprof_location *l;
	void *v;

	if ((v = htab_get(&p->loc_index, h, loc_eq, &k)))
		return (uintptr_t)v;
	sd_grow(&p->locations, &p->caplocations, p->nlocations + 1,
		sizeof(*p->locations));
	l = &p->locations[p->nlocations++];
	l->mapping = mapping;
	l->address = address;
	l->nlines = nlines;
	l->lines = nlines ? sd_malloc(nlines * sizeof(*lines)) : NULL;
	if (nlines)
		memcpy(l->lines, lines, nlines * sizeof(*lines));
	htab_put(&p->loc_index, h, (void *)(uintptr_t)p->nlocations);
	return p->nlocations;
}

/* ---- samples ---- */

static bool sample_eq(const void *val, const void *key)
{
	const struct key *k = key;
	const struct pprof_sample *s = &k->p->samples[(uintptr_t)val - 1];

	return s->nlocs == k->n && s->nlabels == k->m &&
	       !memcmp(s->locs, k->a, k->n * sizeof(*s->locs)) &&
	       (!k->m || !memcmp(s->labels, k->b, k->m * sizeof(*s->labels)));
}

void pprof_add_sample(struct pprof *p, const uint64_t *locs, size_t nlocs,
		      const int64_t *values, const struct pprof_label *labels,
		      size_t nlabels)
{
	struct key k = { p, locs, labels, nlocs, nlabels };
	uint64_t h = hash_bytes(locs, nlocs * sizeof(*locs), 0x5a);
	struct pprof_sample *s;
	void *v;

	if (nlabels)
		h ^= hash_bytes(labels, nlabels * sizeof(*labels), 0x1ab);
	if ((v = htab_get(&p->sample_index, h, sample_eq, &k))) {
		s = &p->samples[(uintptr_t)v - 1];
		for (size_t i = 0; i < p->ntypes; i++)
			s->values[i] += values[i];
		return;
	}
	sd_grow(&p->samples, &p->capsamples, p->nsamples + 1,
		sizeof(*p->samples));
	s = &p->samples[p->nsamples++];
	s->nlocs = nlocs;
	s->locs = sd_malloc((nlocs ? nlocs : 1) * sizeof(*locs));
	memcpy(s->locs, locs, nlocs * sizeof(*locs));
	s->values = sd_calloc(p->ntypes ? p->ntypes : 1, sizeof(*values));
	memcpy(s->values, values, p->ntypes * sizeof(*values));
	s->nlabels = nlabels;
	s->labels = nlabels ? sd_malloc(nlabels * sizeof(*labels)) : NULL;
	if (nlabels)
		memcpy(s->labels, labels, nlabels * sizeof(*labels));
	htab_put(&p->sample_index, h, (void *)(uintptr_t)p->nsamples);
}

/* ---- encoding ---- */

uint8_t *pprof_encode(const struct pprof *p, size_t *len)
{
	PbProfile pb = PERFTOOLS__PROFILES__PROFILE__INIT;
	PbValueType *types, period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	PbValueType **typep;
	PbMapping *maps, **mapp;
	PbFunction *fns, **fnp;
	PbLocation *locs, **locp;
	PbLine *lines, **linep;
	PbSample *samples, **samplep;
	PbLabel *labels, **labelp;
	size_t nlines = 0, nlabels = 0, li = 0, bi = 0;
	uint8_t *buf;

	types = sd_calloc(p->ntypes + 1, sizeof(*types));
	typep = sd_calloc(p->ntypes + 1, sizeof(*typep));
	for (size_t i = 0; i < p->ntypes; i++) {
		perftools__profiles__value_type__init(&types[i]);
		types[i].type = p->types[i].type;
		types[i].unit = p->types[i].unit;
		typep[i] = &types[i];
	}
	pb.n_sample_type = p->ntypes;
	pb.sample_type = typep;

	maps = sd_calloc(p->nmappings + 1, sizeof(*maps));
	mapp = sd_calloc(p->nmappings + 1, sizeof(*mapp));
	for (size_t i = 0; i < p->nmappings; i++) {
		const struct pprof_mapping *m = &p->mappings[i];

		perftools__profiles__mapping__init(&maps[i]);
		maps[i].id = i + 1;
		maps[i].memory_start = m->start;
		maps[i].memory_limit = m->limit;
		maps[i].file_offset = m->offset;
		maps[i].filename = m->file;
		maps[i].build_id = m->build_id;
		maps[i].has_functions = m->has_functions;
		maps[i].has_filenames = m->has_filenames;
		maps[i].has_line_numbers = m->has_lines;
		maps[i].has_inline_frames = m->has_inlines;
		mapp[i] = &maps[i];
	}
	pb.n_mapping = p->nmappings;
	pb.mapping = mapp;

	fns = sd_calloc(p->nfunctions + 1, sizeof(*fns));
	fnp = sd_calloc(p->nfunctions + 1, sizeof(*fnp));
	for (size_t i = 0; i < p->nfunctions; i++) {
		const struct pprof_function *f = &p->functions[i];

		perftools__profiles__function__init(&fns[i]);
		fns[i].id = i + 1;
		fns[i].name = f->name;
		fns[i].system_name = f->system_name;
		fns[i].filename = f->file;
		fns[i].start_line = f->start_line;
		fnp[i] = &fns[i];
	}
	pb.n_function = p->nfunctions;
	pb.function = fnp;

	for (size_t i = 0; i < p->nlocations; i++)
		nlines += p->locations[i].nlines;
	locs = sd_calloc(p->nlocations + 1, sizeof(*locs));
	locp = sd_calloc(p->nlocations + 1, sizeof(*locp));
	lines = sd_calloc(nlines + 1, sizeof(*lines));
	linep = sd_calloc(nlines + 1, sizeof(*linep));
	for (size_t i = 0; i < p->nlocations; i++) {
		const struct pprof_location *l = &p->locations[i];

		perftools__profiles__location__init(&locs[i]);
		locs[i].id = i + 1;
		locs[i].mapping_id = l->mapping;
		locs[i].address = l->address;
		locs[i].n_line = l->nlines;
		locs[i].line = &linep[li];
		for (size_t j = 0; j < l->nlines; j++, li++) {
			perftools__profiles__line__init(&lines[li]);
			lines[li].function_id = l->lines[j].function;
			lines[li].line = l->lines[j].line;
			lines[li].column = l->lines[j].column;
			linep[li] = &lines[li];
		}
		locp[i] = &locs[i];
	}
	pb.n_location = p->nlocations;
	pb.location = locp;

	for (size_t i = 0; i < p->nsamples; i++)
		nlabels += p->samples[i].nlabels;
	samples = sd_calloc(p->nsamples + 1, sizeof(*samples));
	samplep = sd_calloc(p->nsamples + 1, sizeof(*samplep));
	labels = sd_calloc(nlabels + 1, sizeof(*labels));
	labelp = sd_calloc(nlabels + 1, sizeof(*labelp));
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pprof_sample *s = &p->samples[i];

		perftools__profiles__sample__init(&samples[i]);
		samples[i].n_location_id = s->nlocs;
		samples[i].location_id = s->locs;
		samples[i].n_value = p->ntypes;
		samples[i].value = s->values;
		samples[i].n_label = s->nlabels;
		samples[i].label = &labelp[bi];
		for (size_t j = 0; j < s->nlabels; j++, bi++) {
			perftools__profiles__label__init(&labels[bi]);
			labels[bi].key = s->labels[j].key;
			labels[bi].str = s->labels[j].str;
			labels[bi].num = s->labels[j].num;
			labels[bi].num_unit = s->labels[j].unit;
			labelp[bi] = &labels[bi];
		}
		samplep[i] = &samples[i];
	}
	pb.n_sample = p->nsamples;
	pb.sample = samplep;

	pb.n_string_table = p->nstrings;
	pb.string_table = p->strings;
	pb.time_nanos = p->time_ns;
	pb.duration_nanos = p->duration_ns;
	period_type.type = p->period_type.type;
	period_type.unit = p->period_type.unit;
	pb.period_type = &period_type;
	pb.period = p->period;
	pb.n_comment = p->ncomments;
	pb.comment = p->comments;
	pb.default_sample_type = p->default_type;

	*len = perftools__profiles__profile__get_packed_size(&pb);
	buf = sd_malloc(*len ? *len : 1);
	perftools__profiles__profile__pack(&pb, buf);

	free(types);
	free(typep);
	free(maps);
	free(mapp);
	free(fns);
	free(fnp);
	free(locs);
	free(locp);
	free(lines);
	free(linep);
	free(samples);
	free(samplep);
	free(labels);
	free(labelp);
	return buf;
}

uint8_t *pprof_encode_gzip(const struct pprof *p, size_t *len)
{
	size_t raw_len;
	uint8_t *raw = pprof_encode(p, &raw_len), *out;
	z_stream z;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
	    != Z_OK)
		sd_die("zlib: cannot start compressing");
	*len = deflateBound(&z, (uLong)raw_len);
	out = sd_malloc(*len);
	z.next_in = raw;
	z.avail_in = (uInt)raw_len;
	z.next_out = out;
	z.avail_out = (uInt)*len;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		sd_die("zlib: cannot compress a profile of %zu bytes", raw_len);
	*len = z.total_out;
	deflateEnd(&z);
	free(raw);
	return out;
}

int pprof_write(const struct pprof *p, const char *path)
{
	size_t len;
	uint8_t *buf = pprof_encode(p, &len);
	char *tmp = sd_malloc(strlen(path) + 16);
	gzFile gz;
	int fd, err = 0;

	sprintf(tmp, "%s.tmp%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	gz = gzdopen(fd, "wb6");
	if (!gz) {
		close(fd);
		err = -ENOMEM;
		goto out_unlink;
	}
	if (len && gzwrite(gz, buf, (unsigned)len) != (int)len) {
		int zerr;

		gzerror(gz, &zerr);
		err = zerr == Z_ERRNO ? -errno : -EIO;
		gzclose(gz);
		goto out_unlink;
	}
	if (gzclose(gz) != Z_OK) {
		err = -EIO;
		goto out_unlink;
	}
	if (rename(tmp, path)) {
		err = -errno;
		goto out_unlink;
	}
	goto out;
out_unlink:
	unlink(tmp);
out:
	free(tmp);
	free(buf);
	return err;
}

/* ---- decoding and merging ---- */

static int merge_pb(struct pprof *p, const PbProfile *pb)
{
	uint64_t *map_ids = NULL, *fn_ids = NULL, *loc_ids = NULL;
	size_t maxmap = 0, maxfn = 0, maxloc = 0;
	int err = 0;

#define STR(i) ((i) >= 0 && (size_t)(i) < pb->n_string_table ? \
		pb->string_table[i] : "")
	if (pb->n_string_table == 0 || pb->string_table[0][0])
		return -EPROTO;
	if (p->ntypes == 0) {
		for (size_t i = 0; i < pb->n_sample_type; i++)
			pprof_add_type(p, STR(pb->sample_type[i]->type),
				       STR(pb->sample_type[i]->unit));
		if (pb->period_type)
			pprof_set_period(p, STR(pb->period_type->type),
					 STR(pb->period_type->unit), pb->period);
		p->time_ns = pb->time_nanos;
		p->duration_ns = pb->duration_nanos;
		p->default_type = pprof_str(p, STR(pb->default_sample_type));
	} else {
		if (p->ntypes != pb->n_sample_type)
			return -EINVAL;
		for (size_t i = 0; i < p->ntypes; i++)
			if (strcmp(pprof_string(p, p->types[i].type),
				   STR(pb->sample_type[i]->type)) ||
			    strcmp(pprof_string(p, p->types[i].unit),
				   STR(pb->sample_type[i]->unit)))
				return -EINVAL;
		/* Two parts of one run: the earlier start, the sum. */
		if (pb->time_nanos && (!p->time_ns || pb->time_nanos < p->time_ns))
			p->time_ns = pb->time_nanos;
		p->duration_ns += pb->duration_nanos;
	}
	for (size_t i = 0; i < pb->n_comment; i++)
		pprof_add_comment(p, STR(pb->comment[i]));

	/* IDs in the file are arbitrary: map them to ours. */
	for (size_t i = 0; i < pb->n_mapping; i++)
		if (pb->mapping[i]->id > maxmap)
			maxmap = pb->mapping[i]->id;
	for (size_t i = 0; i < pb->n_function; i++)
		if (pb->function[i]->id > maxfn)
			maxfn = pb->function[i]->id;
	for (size_t i = 0; i < pb->n_location; i++)
		if (pb->location[i]->id > maxloc)
			maxloc = pb->location[i]->id;
	if (maxmap > 16 * (pb->n_mapping + 1024) ||
	    maxfn > 16 * (pb->n_function + 1024) ||
	    maxloc > 16 * (pb->n_location + 1024))
		return -EPROTO;		/* sparse ids: not from a sane writer */
	map_ids = sd_calloc(maxmap + 1, sizeof(*map_ids));
	fn_ids = sd_calloc(maxfn + 1, sizeof(*fn_ids));
	loc_ids = sd_calloc(maxloc + 1, sizeof(*loc_ids));

	for (size_t i = 0; i < pb->n_mapping; i++) {
		const PbMapping *m = pb->mapping[i];
		struct pprof_mapping nm = {
			m->memory_start, m->memory_limit, m->file_offset,
			pprof_str(p, STR(m->filename)),
			pprof_str(p, STR(m->build_id)),
			m->has_functions, m->has_filenames,
			m->has_line_numbers, m->has_inline_frames,
		};

		map_ids[m->id] = pprof_add_mapping(p, &nm);
	}
	for (size_t i = 0; i < pb->n_function; i++) {
		const PbFunction *f = pb->function[i];

		fn_ids[f->id] = pprof_function(p, STR(f->name),
					       STR(f->system_name),
					       STR(f->filename), f->start_line);
	}
	for (size_t i = 0; i < pb->n_location; i++) {
		const PbLocation *l = pb->location[i];
		struct pprof_line *ln = sd_calloc(l->n_line + 1, sizeof(*ln));

		for (size_t j = 0; j < l->n_line; j++) {
			uint64_t f = l->line[j]->function_id;

			ln[j].function = f <= maxfn ? fn_ids[f] : 0;
			ln[j].line = l->line[j]->line;
			ln[j].column = l->line[j]->column;
		}
		/* Each file's locations stay distinct: a merged profile's
		 * addresses belong to different runs of the code. */
		sd_grow(&p->locations, &p->caplocations, p->nlocations + 1,
			sizeof(*p->locations));
		p->locations[p->nlocations] = (struct pprof_location){
			l->mapping_id <= maxmap ? map_ids[l->mapping_id] : 0,
			l->address, ln, l->n_line };
		loc_ids[l->id] = ++p->nlocations;
	}
	for (size_t i = 0; i < pb->n_sample; i++) {
		const PbSample *s = pb->sample[i];
		uint64_t *locs = sd_calloc(s->n_location_id + 1, sizeof(*locs));
		struct pprof_label *lb = sd_calloc(s->n_label + 1, sizeof(*lb));
		int64_t *vals = sd_calloc(p->ntypes + 1, sizeof(*vals));

		for (size_t j = 0; j < s->n_location_id; j++)
			locs[j] = s->location_id[j] <= maxloc ?
				  loc_ids[s->location_id[j]] : 0;
		for (size_t j = 0; j < s->n_label; j++) {
			const PbLabel *l = s->label[j];

			lb[j] = (struct pprof_label){
				pprof_str(p, STR(l->key)),
				l->str ? pprof_str(p, STR(l->str)) : 0,
				l->num,
				l->num_unit ? pprof_str(p, STR(l->num_unit)) : 0 };
		}
		for (size_t j = 0; j < s->n_value && j < p->ntypes; j++)
			vals[j] = s->value[j];
		pprof_add_sample(p, locs, s->n_location_id, vals, lb,
				 s->n_label);
		free(locs);
		free(lb);
		free(vals);
	}
#undef STR
	free(map_ids);
	free(fn_ids);
	free(loc_ids);
	return err;
}

int pprof_merge_bytes(struct pprof *p, const uint8_t *buf, size_t len)
{
	PbProfile *pb = perftools__profiles__profile__unpack(NULL, len, buf);
	int err;

	if (!pb)
		return -EPROTO;
	err = merge_pb(p, pb);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	return err;
}

int pprof_read(struct pprof *p, const char *path)
{
	return pprof_read_max(p, path, SIZE_MAX);
}

int pprof_read_max(struct pprof *p, const char *path, size_t max)
{
	gzFile gz;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, n, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* gzread passes data that is not gzipped through unchanged. */
	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		return -ENOMEM;
	}
	do {
		if (len >= max) {	/* a gzip bomb, or no profile at all */
			gzclose(gz);
			free(buf);
			return -EFBIG;
		}
		sd_grow(&buf, &cap, len + 65536, 1);
		n = gzread(gz, buf + len, 65536);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0);
	/* gzclose says Z_BUF_ERROR when the stream ended early: a truncated
	 * file, which must not pass for a smaller profile. */
	if (gzclose(gz) != Z_OK || n < 0) {
		free(buf);
		return -EPROTO;
	}
	err = pprof_merge_bytes(p, buf, len);
	free(buf);
	return err;
}
