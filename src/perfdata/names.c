/* names.c — perf's names for record types and branch types, and the branch
 * entry flag encoding shared by the reader, the writer and the sampler. */
#include <inttypes.h>
#include <string.h>

#include "perfdata/perfdata.h"
#include "util/util.h"

/* perf_event__names[] of tools/perf/util/event.c, indexed by record type. */
static const char *const record_names[] = {
	[0] = "TOTAL", [1] = "MMAP", [2] = "LOST", [3] = "COMM", [4] = "EXIT",
	[5] = "THROTTLE", [6] = "UNTHROTTLE", [7] = "FORK", [8] = "READ", [9] = "SAMPLE",
	[10] = "MMAP2", [11] = "AUX", [12] = "ITRACE_START", [13] = "LOST_SAMPLES",
	[14] = "SWITCH", [15] = "SWITCH_CPU_WIDE", [16] = "NAMESPACES", [17] = "KSYMBOL",
	[18] = "BPF_EVENT", [19] = "CGROUP", [20] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
	[PD_RECORD_HEADER_ATTR] = "ATTR", [PD_RECORD_HEADER_EVENT_TYPE] = "EVENT_TYPE",
	[PD_RECORD_HEADER_TRACING_DATA] = "TRACING_DATA", [PD_RECORD_HEADER_BUILD_ID] = "BUILD_ID",
	[PD_RECORD_FINISHED_ROUND] = "FINISHED_ROUND", [PD_RECORD_ID_INDEX] = "ID_INDEX",
	[PD_RECORD_AUXTRACE_INFO] = "AUXTRACE_INFO", [PD_RECORD_AUXTRACE] = "AUXTRACE",
	[PD_RECORD_AUXTRACE_ERROR] = "AUXTRACE_ERROR", [PD_RECORD_THREAD_MAP] = "THREAD_MAP",
	[PD_RECORD_CPU_MAP] = "CPU_MAP", [PD_RECORD_STAT_CONFIG] = "STAT_CONFIG",
	[PD_RECORD_STAT] = "STAT", [PD_RECORD_STAT_ROUND] = "STAT_ROUND",
	[PD_RECORD_EVENT_UPDATE] = "EVENT_UPDATE", [PD_RECORD_TIME_CONV] = "TIME_CONV",
	[PD_RECORD_HEADER_FEATURE] = "FEATURE", [PD_RECORD_COMPRESSED] = "COMPRESSED",
	[PD_RECORD_FINISHED_INIT] = "FINISHED_INIT",
};

const char *pd_record_name(uint32_t type)
{
	if (type < sizeof(record_names) / sizeof(record_names[0]) && record_names[type])
		return record_names[type];
	return "INVALID";
}

/* branch_type_name() of tools/perf/util/branch.c, indexed by PERF_BR_*. */
static const char *const branch_type_names[] = {
	"N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
	"SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "",
};

const char *pd_br_type_name(unsigned type)
{
	if (type < sizeof(branch_type_names) / sizeof(branch_type_names[0]))
		return branch_type_names[type];
	return "";
}

/* The bit layout of struct perf_branch_entry's flags word (little-endian
 * bitfields): mispred:1 predicted:1 in_tx:1 abort:1 cycles:16 type:4 ... */
uint64_t pd_br_make_flags(unsigned mispred, unsigned predicted, unsigned cycles, unsigned type)
{
	return (uint64_t)(mispred & 1) | (uint64_t)(predicted & 1) << 1 |
	       (uint64_t)(cycles & 0xffff) << 4 | (uint64_t)(type & 0xf) << 20;
}

/* --- event names, as perf's evsel__name() derives them without EVENT_DESC --- */

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

/* evsel__add_modifiers() of perf 6.1 */
static void add_modifiers(struct strbuf *sb, const struct perf_event_attr *a)
{
	bool colon = false, guest_default = false;
#define MOD(excl, c) do { if (!(excl)) { sb_puts(sb, colon ? "" : ":"); colon = true; sb_putc(sb, c); } } while (0)
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		guest_default = true;
	}
	if (a->precise_ip) {
		sb_puts(sb, colon ? "" : ":");
		colon = true;
		sb_add(sb, "ppp", a->precise_ip);
		guest_default = true;
	}
	if (a->exclude_host || a->exclude_guest == guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
}

char *pd_attr_name(const struct pd_attr *pa)
{
	const struct perf_event_attr *a = &pa->attr;
	struct strbuf sb = STRBUF_INIT;

	if (pa->name)
		return xstrdup(pa->name);
	if (a->type == PERF_TYPE_HARDWARE && a->config < ARRAY_SIZE(hw_names))
		sb_puts(&sb, hw_names[a->config]);
	else if (a->type == PERF_TYPE_SOFTWARE && a->config < ARRAY_SIZE(sw_names))
		sb_puts(&sb, sw_names[a->config]);
	else if (a->type == PERF_TYPE_RAW)
		sb_printf(&sb, "raw 0x%" PRIx64, (uint64_t)a->config);
	else
		sb_printf(&sb, "unknown attr type: %u", a->type);
	add_modifiers(&sb, a);
	return sb_detach(&sb);
}

bool pd_build_id_equal(const uint8_t *a, size_t asize, const uint8_t *b, size_t bsize)
{
	size_t n = asize < bsize ? asize : bsize, i;
	const uint8_t *rest = asize > bsize ? a : b;

	if (!n || memcmp(a, b, n))
		return false;
	for (i = n; i < (asize > bsize ? asize : bsize); i++)
		if (rest[i])
			return false;
	return true;
}

size_t pd_sample_id_size(const struct perf_event_attr *a)
{
	static const uint64_t bits[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					 PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					 PERF_SAMPLE_IDENTIFIER };
	size_t n = 0, i;

	if (!a->sample_id_all)
		return 0;
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (a->sample_type & bits[i])
			n += 8;
	return n;
}
