/* pprof.c — profile.proto encoding (protocol buffers wire format: varints,
 * length-delimited messages, packed repeated numbers) and its gzip output.
 * Field numbers are profile.proto's (github.com/google/pprof, proto/profile.proto). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pprof/pprof.h"
#include "util/util.h"

/* profile.proto's field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3, LABEL_NUM_UNIT = 4,
	MAPPING_ID = 1, MAPPING_START = 2, MAPPING_LIMIT = 3, MAPPING_OFFSET = 4, MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

enum { WIRE_VARINT = 0, WIRE_BYTES = 2 };

struct pbuf {
	unsigned char *b;
	size_t n, cap;
};

static void put_raw(struct pbuf *p, const void *data, size_t len)
{
	if (!len)   /* an empty field's data may be NULL, which memcpy must not get */
		return;
	GROW(p->b, p->cap, p->n + len);
	memcpy(p->b + p->n, data, len);
	p->n += len;
}

static void put_varint(struct pbuf *p, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put_raw(p, tmp, n);
}

static void put_key(struct pbuf *p, unsigned field, unsigned wire)
{
	put_varint(p, (uint64_t)field << 3 | wire);
}

/* A number field; proto3 leaves zeros out. int64 values go as their two's
 * complement, as protobuf encodes them. */
static void put_num(struct pbuf *p, unsigned field, uint64_t v)
{
	if (!v)
		return;
	put_key(p, field, WIRE_VARINT);
	put_varint(p, v);
}

static void put_bytes(struct pbuf *p, unsigned field, const void *data, size_t len)
{
	put_key(p, field, WIRE_BYTES);
	put_varint(p, len);
	put_raw(p, data, len);
}

static void put_message(struct pbuf *p, unsigned field, const struct pbuf *msg)
{
	put_bytes(p, field, msg->b, msg->n);
}

static void put_packed(struct pbuf *p, unsigned field, const uint64_t *v, size_t n)
{
	struct pbuf tmp = { 0 };
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		put_varint(&tmp, v[i]);
	put_message(p, field, &tmp);
	free(tmp.b);
}

struct mapping_key {
	uint64_t start, limit, offset;
	int64_t file, build_id;
	uint32_t flags;
	uint32_t pad;
};

struct function_key {
	int64_t name, system_name, file, start_line;
};

struct pprof {
	struct hmap strings;         /* const char * (owned) -> nothing; entry i is string i */
	struct hmap mappings;        /* mapping_key; entry i is mapping i + 1 */
	struct hmap functions;       /* function_key; entry i is function i + 1 */
	uint64_t nr_locations;
	struct pbuf *mapping_msgs;     /* mapping i + 1's message: written with the main one first */
	uint64_t main_mapping;
	struct pbuf sample_types, samples, location_msgs, function_msgs, comments;
	size_t nr_sample_types;
	int64_t default_sample_type;
	struct pbuf period_type;
	int64_t period, time_nanos, duration_nanos;
};

static int64_t str_index(struct pprof *p, const char *s)
{
	return (int64_t)hmap_intern(&p->strings, s ? s : "", NULL);
}

struct pprof *pprof_new(void)
{
	struct pprof *p = xcalloc(1, sizeof(*p));

	hmap_init(&p->strings, sizeof(const char *), 0, &hmap_str_ops);
	hmap_init(&p->mappings, sizeof(struct mapping_key), 0, NULL);
	hmap_init(&p->functions, sizeof(struct function_key), 0, NULL);
	str_index(p, "");   /* string 0 is always "" */
	return p;
}

void pprof_free(struct pprof *p)
{
	size_t i;

	if (!p)
		return;
	hmap_clear_interned(&p->strings);
	for (i = 0; i < hmap_count(&p->mappings); i++)
		free(p->mapping_msgs[i].b);
	free(p->mapping_msgs);
	hmap_free(&p->strings);
	hmap_free(&p->mappings);
	hmap_free(&p->functions);
	free(p->sample_types.b);
	free(p->samples.b);
	free(p->location_msgs.b);
	free(p->function_msgs.b);
	free(p->comments.b);
	free(p->period_type.b);
	free(p);
}

static void value_type(struct pprof *p, struct pbuf *out, const char *type, const char *unit)
{
	put_num(out, VALUE_TYPE_TYPE, (uint64_t)str_index(p, type));
	put_num(out, VALUE_TYPE_UNIT, (uint64_t)str_index(p, unit));
}

void pprof_add_sample_type(struct pprof *p, const char *type, const char *unit)
{
	struct pbuf vt = { 0 };

	value_type(p, &vt, type, unit);
	put_message(&p->sample_types, PROFILE_SAMPLE_TYPE, &vt);
	free(vt.b);
	p->nr_sample_types++;
}

size_t pprof_nr_sample_types(const struct pprof *p)
{
	return p->nr_sample_types;
}

void pprof_set_default_sample_type(struct pprof *p, const char *type)
{
	p->default_sample_type = str_index(p, type);
}

void pprof_set_period(struct pprof *p, const char *type, const char *unit, int64_t period)
{
	p->period_type.n = 0;
	value_type(p, &p->period_type, type, unit);
	p->period = period;
}

void pprof_set_time(struct pprof *p, int64_t time_nanos, int64_t duration_nanos)
{
	p->time_nanos = time_nanos;
	p->duration_nanos = duration_nanos;
}

void pprof_add_comment(struct pprof *p, const char *text)
{
	put_num(&p->comments, PROFILE_COMMENT, (uint64_t)str_index(p, text));
}

uint64_t pprof_mapping(struct pprof *p, const struct pprof_mapping *m)
{
	struct mapping_key k;
	struct pbuf *msg;
	bool added;
	size_t i;

	memset(&k, 0, sizeof(k));   /* the padding is part of the key */
	k.start = m->start;
	k.limit = m->limit;
	k.offset = m->offset;
	k.file = str_index(p, m->file);
	k.build_id = str_index(p, m->build_id);
	k.flags = m->has_functions | m->has_filenames << 1 | m->has_line_numbers << 2 |
		  m->has_inline_frames << 3;
	i = hmap_add(&p->mappings, &k, &added);
	if (!added)
		return i + 1;
	p->mapping_msgs = xrealloc(p->mapping_msgs, (i + 1) * sizeof(*p->mapping_msgs));
	msg = memset(&p->mapping_msgs[i], 0, sizeof(*msg));
	put_num(msg, MAPPING_ID, i + 1);
	put_num(msg, MAPPING_START, k.start);
	put_num(msg, MAPPING_LIMIT, k.limit);
	put_num(msg, MAPPING_OFFSET, k.offset);
	put_num(msg, MAPPING_FILENAME, (uint64_t)k.file);
	put_num(msg, MAPPING_BUILD_ID, (uint64_t)k.build_id);
	put_num(msg, MAPPING_HAS_FUNCTIONS, m->has_functions);
	put_num(msg, MAPPING_HAS_FILENAMES, m->has_filenames);
	put_num(msg, MAPPING_HAS_LINE_NUMBERS, m->has_line_numbers);
	put_num(msg, MAPPING_HAS_INLINE_FRAMES, m->has_inline_frames);
	return i + 1;
}

void pprof_set_main_mapping(struct pprof *p, uint64_t mapping)
{
	p->main_mapping = mapping;
}

uint64_t pprof_function(struct pprof *p, const char *name, const char *system_name,
			const char *file, int64_t start_line)
{
	struct function_key k = { str_index(p, name), str_index(p, system_name), str_index(p, file),
				  start_line };
	struct pbuf msg = { 0 };
	bool added;
	size_t i = hmap_add(&p->functions, &k, &added);

	if (!added)
		return i + 1;
	put_num(&msg, FUNCTION_ID, i + 1);
	put_num(&msg, FUNCTION_NAME, (uint64_t)k.name);
	put_num(&msg, FUNCTION_SYSTEM_NAME, (uint64_t)k.system_name);
	put_num(&msg, FUNCTION_FILENAME, (uint64_t)k.file);
	put_num(&msg, FUNCTION_START_LINE, (uint64_t)k.start_line);
	put_message(&p->function_msgs, PROFILE_FUNCTION, &msg);
	free(msg.b);
	return i + 1;
}

uint64_t pprof_location(struct pprof *p, uint64_t mapping, uint64_t address,
			const struct pprof_line *lines, size_t nr_lines)
{
	struct pbuf msg = { 0 }, line = { 0 };
	uint64_t id = ++p->nr_locations;
	size_t i;

	put_num(&msg, LOCATION_ID, id);
	put_num(&msg, LOCATION_MAPPING_ID, mapping);
	put_num(&msg, LOCATION_ADDRESS, address);
	for (i = 0; i < nr_lines; i++) {
		line.n = 0;
		put_num(&line, LINE_FUNCTION_ID, lines[i].function);
		put_num(&line, LINE_LINE, (uint64_t)lines[i].line);
		put_message(&msg, LOCATION_LINE, &line);
	}
	put_message(&p->location_msgs, PROFILE_LOCATION, &msg);
	free(line.b);
	free(msg.b);
	return id;
}

void pprof_add_sample(struct pprof *p, const uint64_t *locations, size_t nr_locations,
		      const int64_t *values, size_t nr_values,
		      const struct pprof_label *labels, size_t nr_labels)
{
	struct pbuf msg = { 0 }, label = { 0 };
	size_t i;

	put_packed(&msg, SAMPLE_LOCATION_ID, locations, nr_locations);
	put_packed(&msg, SAMPLE_VALUE, (const uint64_t *)values, nr_values);
	for (i = 0; i < nr_labels; i++) {
		label.n = 0;
		put_num(&label, LABEL_KEY, (uint64_t)str_index(p, labels[i].key));
		if (labels[i].str) {
			put_num(&label, LABEL_STR, (uint64_t)str_index(p, labels[i].str));
		} else {
			put_num(&label, LABEL_NUM, (uint64_t)labels[i].num);
			if (labels[i].num_unit)
				put_num(&label, LABEL_NUM_UNIT, (uint64_t)str_index(p, labels[i].num_unit));
		}
		put_message(&msg, SAMPLE_LABEL, &label);
	}
	put_message(&p->samples, PROFILE_SAMPLE, &msg);
	free(label.b);
	free(msg.b);
}

/* The whole Profile message, fields in profile.proto's order. */
static void encode(struct pprof *p, struct pbuf *out)
{
	size_t i;

	put_raw(out, p->sample_types.b, p->sample_types.n);
	put_raw(out, p->samples.b, p->samples.n);
	/* pprof takes the first mapping for the program's own binary */
	if (p->main_mapping)
		put_message(out, PROFILE_MAPPING, &p->mapping_msgs[p->main_mapping - 1]);
	for (i = 0; i < hmap_count(&p->mappings); i++)
		if (i + 1 != p->main_mapping)
			put_message(out, PROFILE_MAPPING, &p->mapping_msgs[i]);
	put_raw(out, p->location_msgs.b, p->location_msgs.n);
	put_raw(out, p->function_msgs.b, p->function_msgs.n);
	for (i = 0; i < hmap_count(&p->strings); i++) {
		const char *s = *(char *const *)hmap_key(&p->strings, i);
		put_bytes(out, PROFILE_STRING_TABLE, s, strlen(s));   /* "" too: it is string 0 */
	}
	put_num(out, PROFILE_TIME_NANOS, (uint64_t)p->time_nanos);
	put_num(out, PROFILE_DURATION_NANOS, (uint64_t)p->duration_nanos);
	if (p->period_type.n)
		put_message(out, PROFILE_PERIOD_TYPE, &p->period_type);
	put_num(out, PROFILE_PERIOD, (uint64_t)p->period);
	put_raw(out, p->comments.b, p->comments.n);
	put_num(out, PROFILE_DEFAULT_SAMPLE_TYPE, (uint64_t)p->default_sample_type);
}

static int gzip_to(FILE *fp, const unsigned char *data, size_t len)
{
	unsigned char chunk[65536];
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (unsigned char *)data;
	do {
		/* zlib counts in uInt: feed at most 1 GiB at a time */
		size_t take = len > (1u << 30) ? (1u << 30) : len;
		z.avail_in = (uInt)take;
		len -= take;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			ret = deflate(&z, len ? Z_NO_FLUSH : Z_FINISH);
			if (ret == Z_STREAM_ERROR || fwrite(chunk, 1, sizeof(chunk) - z.avail_out, fp) !=
							     sizeof(chunk) - z.avail_out) {
				deflateEnd(&z);
				return -1;
			}
		} while (z.avail_out == 0);
	} while (len);
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -1;
}

int pprof_write(struct pprof *p, const char *path)
{
	struct atomic_file af;
	struct pbuf out = { 0 };
	int ret;

	encode(p, &out);
	if (atomic_open(&af, path) < 0) {
		free(out.b);
		return -1;
	}
	ret = gzip_to(af.fp, out.b, out.n);
	free(out.b);
	if (ret < 0) {
		int err = errno;
		atomic_abort(&af);
		errno = err;
		return oc_err_errno("%s: cannot write the profile", path);
	}
	return atomic_commit(&af);
}
