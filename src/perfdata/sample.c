/* sample.c — decoding PERF_RECORD_SAMPLE from its attr's sample_type, in the
 * kernel's field order (docs/perfdata.md, "PERF_RECORD_SAMPLE"). Every length is
 * checked against the record, so a corrupt count never reads past it. */
#include <string.h>

#include "perfdata/perfdata.h"
#include "util/util.h"

#define PD_SAMPLE_BRANCH_COUNTERS (1ULL << 19)   /* not in Linux 6.1's headers */

struct cursor {
	const unsigned char *p, *end;
	const char *field;   /* the field being read, for the message */
};

static int need(struct cursor *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n)
		return oc_err("sample record too short for its %s field", c->field);
	return 0;
}

static int u64(struct cursor *c, const char *field, uint64_t *v)
{
	c->field = field;
	if (need(c, 8) < 0)
		return -1;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
}

static int u32pair(struct cursor *c, const char *field, uint32_t *a, uint32_t *b)
{
	uint32_t v[2];

	c->field = field;
	if (need(c, 8) < 0)
		return -1;
	memcpy(v, c->p, 8);
	c->p += 8;
	*a = v[0];
	if (b)
		*b = v[1];
	return 0;
}

/* A count of n elements of size each that must fit in what is left. */
static int counted(struct cursor *c, const char *field, uint64_t n, size_t size, const void **out)
{
	c->field = field;
	if (n > (uint64_t)(c->end - c->p) / size)
		return oc_err("%s count %llu does not fit in the sample record", field,
			      (unsigned long long)n);
	*out = c->p;
	c->p += n * size;
	return 0;
}

/* Skip n bytes of a fixed-size field. */
static int need_field(struct cursor *c, const char *field, uint64_t n)
{
	c->field = field;
	if (need(c, n) < 0)
		return -1;
	c->p += n;
	return 0;
}

/* REGS_USER / REGS_INTR: the ABI word, then one word per mask bit (none when
 * the ABI is 0: no registers were taken). */
static int regs(struct cursor *c, const char *field, uint64_t mask)
{
	const void *p;
	uint64_t abi;

	if (u64(c, field, &abi) < 0)
		return -1;
	return abi ? counted(c, field, (uint64_t)__builtin_popcountll(mask), 8, &p) : 0;
}

static uint64_t read_format_size(uint64_t rf, uint64_t nr)
{
	uint64_t per = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) + ((rf & (1U << 4)) ? 8 : 0); /* LOST */
	uint64_t fixed = ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
			 ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);

	if (rf & PERF_FORMAT_GROUP)
		return 8 + fixed + nr * per;
	return fixed + per;
}

int pd_parse_sample(const struct perf_event_attr *attr, const void *rec, size_t size,
		    struct pd_sample *out)
{
	const struct perf_event_header *h = rec;
	struct cursor c = { (const unsigned char *)rec + sizeof(*h), (const unsigned char *)rec + size, "" };
	uint64_t t = attr->sample_type;
	const void *p = NULL;

	memset(out, 0, sizeof(*out));
	if (size < sizeof(*h))
		return oc_err("sample record of %zu bytes", size);
	out->misc = h->misc;
	if ((t & PERF_SAMPLE_IDENTIFIER) && u64(&c, "IDENTIFIER", &out->id) < 0)
		return -1;
	if ((t & PERF_SAMPLE_IP) && u64(&c, "IP", &out->ip) < 0)
		return -1;
	if ((t & PERF_SAMPLE_TID) && u32pair(&c, "TID", &out->pid, &out->tid) < 0)
		return -1;
	if ((t & PERF_SAMPLE_TIME) && u64(&c, "TIME", &out->time) < 0)
		return -1;
	if ((t & PERF_SAMPLE_ADDR) && u64(&c, "ADDR", &out->addr) < 0)
		return -1;
	if ((t & PERF_SAMPLE_ID) && u64(&c, "ID", &out->id) < 0)
		return -1;
	if ((t & PERF_SAMPLE_STREAM_ID) && u64(&c, "STREAM_ID", &out->stream_id) < 0)
		return -1;
	if ((t & PERF_SAMPLE_CPU) && u32pair(&c, "CPU", &out->cpu, NULL) < 0)
		return -1;
	if (t & PERF_SAMPLE_PERIOD) {
		if (u64(&c, "PERIOD", &out->period) < 0)
			return -1;
	} else if (!attr->freq) {
		out->period = attr->sample_period;  /* as perf does when PERIOD is absent */
	}
	if (t & PERF_SAMPLE_READ) {
		uint64_t nr = 1;
		if (attr->read_format & PERF_FORMAT_GROUP) {
			if (u64(&c, "READ", &nr) < 0)
				return -1;
			c.p -= 8;
		}
		if (nr > size || counted(&c, "READ", read_format_size(attr->read_format, nr), 1, &p) < 0)
			return oc_err("READ field does not fit in the sample record");
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		if (u64(&c, "CALLCHAIN", &out->callchain_nr) < 0 ||
		    counted(&c, "CALLCHAIN", out->callchain_nr, 8, &p) < 0)
			return -1;
		out->callchain = p;
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t raw_size, pad;
		if (u32pair(&c, "RAW", &raw_size, &pad) < 0)
			return -1;
		c.p -= 4;   /* the data starts right after the u32 size */
		if (counted(&c, "RAW", raw_size, 1, &p) < 0)
			return -1;
		out->raw_size = raw_size;
		out->raw = p;
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		if (u64(&c, "BRANCH_STACK", &out->branch_nr) < 0)
			return -1;
		/* The kernel writes no hw_idx when the sample has no stack at all, but
		 * does for an empty one (and perf 6.1 always reads it): with nr == 0,
		 * hw_idx is there when the record has room for it and the fixed
		 * fields that follow. */
		uint64_t after = 8 * (uint64_t)(!!(t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) +
						!!(t & PERF_SAMPLE_DATA_SRC) + !!(t & PERF_SAMPLE_TRANSACTION) +
						!!(t & PERF_SAMPLE_PHYS_ADDR) + !!(t & PERF_SAMPLE_CGROUP) +
						!!(t & PERF_SAMPLE_DATA_PAGE_SIZE) +
						!!(t & PERF_SAMPLE_CODE_PAGE_SIZE));
		if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) &&
		    (out->branch_nr || (uint64_t)(c.end - c.p) >= 8 + after)) {
			if (u64(&c, "BRANCH_STACK hw_idx", &out->branch_hw_idx) < 0)
				return -1;
			out->has_hw_idx = true;
		}
		if (counted(&c, "BRANCH_STACK", out->branch_nr, sizeof(struct pd_branch), &p) < 0)
			return -1;
		out->branches = p;
		/* perf >= 6.8: one counters word per entry */
		if ((attr->branch_sample_type & PD_SAMPLE_BRANCH_COUNTERS) &&
		    counted(&c, "BRANCH_STACK counters", out->branch_nr, 8, &p) < 0)
			return -1;
	}
	if ((t & PERF_SAMPLE_REGS_USER) && regs(&c, "REGS_USER", attr->sample_regs_user) < 0)
		return -1;
	if (t & PERF_SAMPLE_STACK_USER) {
		uint64_t n;
		if (u64(&c, "STACK_USER", &n) < 0 || counted(&c, "STACK_USER", n, 1, &p) < 0 ||
		    (n && u64(&c, "STACK_USER dyn_size", &n) < 0))
			return -1;
	}
	if ((t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) && u64(&c, "WEIGHT", &out->weight) < 0)
		return -1;
	if ((t & PERF_SAMPLE_DATA_SRC) && u64(&c, "DATA_SRC", &out->data_src) < 0)
		return -1;
	if ((t & PERF_SAMPLE_TRANSACTION) && u64(&c, "TRANSACTION", &out->transaction) < 0)
		return -1;
	if ((t & PERF_SAMPLE_REGS_INTR) && regs(&c, "REGS_INTR", attr->sample_regs_intr) < 0)
		return -1;
	if ((t & PERF_SAMPLE_PHYS_ADDR) && u64(&c, "PHYS_ADDR", &out->phys_addr) < 0)
		return -1;
	/* the rest is checked for room only: ocrec does not use it */
	if ((t & PERF_SAMPLE_CGROUP) && need_field(&c, "CGROUP", 8) < 0)
		return -1;
	if ((t & PERF_SAMPLE_DATA_PAGE_SIZE) && need_field(&c, "DATA_PAGE_SIZE", 8) < 0)
		return -1;
	if ((t & PERF_SAMPLE_CODE_PAGE_SIZE) && need_field(&c, "CODE_PAGE_SIZE", 8) < 0)
		return -1;
	if (t & PERF_SAMPLE_AUX) {
		uint64_t n;
		if (u64(&c, "AUX", &n) < 0 || counted(&c, "AUX", n, 1, &p) < 0)
			return -1;
	}
	return 0;
}
