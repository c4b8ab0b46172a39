/* header.c — the perf.data header as `perf report --header-only` (perf 6.1)
 * prints the fields ocrec reads (tools/perf/util/header.c, and
 * perf_event_attr__fprintf() of util/perf_event_attr_fprintf.c). */
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "script/script.h"
#include "util/util.h"

struct bit_name {
	uint64_t bit;
	const char *name;
};

static const struct bit_name sample_type_names[] = {
	{ PERF_SAMPLE_IP, "IP" }, { PERF_SAMPLE_TID, "TID" }, { PERF_SAMPLE_TIME, "TIME" },
	{ PERF_SAMPLE_ADDR, "ADDR" }, { PERF_SAMPLE_READ, "READ" },
	{ PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" }, { PERF_SAMPLE_ID, "ID" }, { PERF_SAMPLE_CPU, "CPU" },
	{ PERF_SAMPLE_PERIOD, "PERIOD" }, { PERF_SAMPLE_STREAM_ID, "STREAM_ID" },
	{ PERF_SAMPLE_RAW, "RAW" }, { PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK" },
	{ PERF_SAMPLE_REGS_USER, "REGS_USER" }, { PERF_SAMPLE_STACK_USER, "STACK_USER" },
	{ PERF_SAMPLE_WEIGHT, "WEIGHT" }, { PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
	{ PERF_SAMPLE_IDENTIFIER, "IDENTIFIER" }, { PERF_SAMPLE_TRANSACTION, "TRANSACTION" },
	{ PERF_SAMPLE_REGS_INTR, "REGS_INTR" }, { PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" },
	{ 1ULL << 20, "AUX" }, { 1ULL << 21, "CGROUP" }, { 1ULL << 22, "DATA_PAGE_SIZE" },
	{ 1ULL << 23, "CODE_PAGE_SIZE" }, { 1ULL << 24, "WEIGHT_STRUCT" },
};

static const struct bit_name branch_type_names[] = {
	{ 1 << 0, "USER" }, { 1 << 1, "KERNEL" }, { 1 << 2, "HV" }, { 1 << 3, "ANY" },
	{ 1 << 4, "ANY_CALL" }, { 1 << 5, "ANY_RETURN" }, { 1 << 6, "IND_CALL" },
	{ 1 << 7, "ABORT_TX" }, { 1 << 8, "IN_TX" }, { 1 << 9, "NO_TX" }, { 1 << 10, "COND" },
	{ 1 << 11, "CALL_STACK" }, { 1 << 12, "IND_JUMP" }, { 1 << 13, "CALL" },
	{ 1 << 14, "NO_FLAGS" }, { 1 << 15, "NO_CYCLES" }, { 1 << 16, "TYPE_SAVE" },
	{ 1 << 17, "HW_INDEX" }, { 1 << 18, "PRIV_SAVE" },
};

static const struct bit_name read_format_names[] = {
	{ PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED" },
	{ PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING" },
	{ PERF_FORMAT_ID, "ID" }, { PERF_FORMAT_GROUP, "GROUP" }, { 1 << 4, "LOST" },
};

/* ", FIELD = A|B|0xREST" for a bit-set field that is not 0, as perf prints one. */
static void bits(struct strbuf *sb, const char *field, uint64_t v, const struct bit_name *names, size_t n)
{
	bool first = true;
	size_t i;

	if (!v)
		return;
	sb_printf(sb, ", %s = ", field);
	for (i = 0; i < n; i++)
		if (v & names[i].bit) {
			sb_printf(sb, "%s%s", first ? "" : "|", names[i].name);
			first = false;
			v &= ~names[i].bit;
		}
	if (v)
		sb_printf(sb, "%s0x%" PRIx64, first ? "" : "|", v);
}

/* The flag bits of the u64 at offset 40, in perf's print order. */
static const char *const flag_names[] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat", "enable_on_exec",
	"task", "watermark", NULL /* precise_ip, 2 bits */, NULL, "mmap_data", "sample_id_all",
	"exclude_host", "exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user",
	"mmap2", "comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces",
	"ksymbol", "bpf_event", "aux_output", "cgroup", "text_poke", "build_id",
	"inherit_thread", "remove_on_exec", "sigtrap",
};

static void attr_line(struct strbuf *sb, const struct perf_event_attr *a, uint32_t file_size)
{
	uint64_t flags;
	size_t i;

	memcpy(&flags, (const char *)a + 40, 8);
	if (a->type)
		sb_printf(sb, ", type = %u", a->type);
	sb_printf(sb, ", size = %u", file_size);
	if (a->config)
		sb_printf(sb, ", config = 0x%" PRIx64, (uint64_t)a->config);
	if (a->sample_period)
		sb_printf(sb, ", { sample_period, sample_freq } = %" PRIu64, (uint64_t)a->sample_period);
	bits(sb, "sample_type", a->sample_type, sample_type_names, ARRAY_SIZE(sample_type_names));
	bits(sb, "read_format", a->read_format, read_format_names, ARRAY_SIZE(read_format_names));
	for (i = 0; i < ARRAY_SIZE(flag_names); i++) {
		if (i == 15 && a->precise_ip)
			sb_printf(sb, ", precise_ip = %u", (unsigned)a->precise_ip);
		if (flag_names[i] && ((flags >> i) & 1))
			sb_printf(sb, ", %s = 1", flag_names[i]);
	}
	if (a->wakeup_events)
		sb_printf(sb, ", { wakeup_events, wakeup_watermark } = %u", a->wakeup_events);
	if (a->bp_type)
		sb_printf(sb, ", bp_type = %u", a->bp_type);
	if (a->config1)
		sb_printf(sb, ", { bp_addr, config1 } = 0x%" PRIx64, (uint64_t)a->config1);
	if (a->config2)
		sb_printf(sb, ", { bp_len, config2 } = 0x%" PRIx64, (uint64_t)a->config2);
	bits(sb, "branch_sample_type", a->branch_sample_type, branch_type_names, ARRAY_SIZE(branch_type_names));
	if (a->sample_regs_user)
		sb_printf(sb, ", sample_regs_user = 0x%" PRIx64, (uint64_t)a->sample_regs_user);
	if (a->sample_stack_user)
		sb_printf(sb, ", sample_stack_user = %u", a->sample_stack_user);
	if (a->clockid)
		sb_printf(sb, ", clockid = %d", a->clockid);
	if (a->sample_max_stack)
		sb_printf(sb, ", sample_max_stack = %u", a->sample_max_stack);
}

void script_print_header(const char *path, const struct pd_info *in, FILE *f)
{
	struct stat st;
	size_t i, j;

	fprintf(f, "# ========\n");
	if (path && stat(path, &st) == 0) {
		char tb[64];
		strftime(tb, sizeof(tb), "%a %b %e %H:%M:%S %Y", localtime(&st.st_mtime));
		fprintf(f, "# captured on    : %s\n", tb);
	}
	/* a pipe has no sections: perf prints zeros */
	fprintf(f, "# header version : 1\n");
	fprintf(f, "# data offset    : %" PRIu64 "\n", in->data_offset);
	fprintf(f, "# data size      : %" PRIu64 "\n", in->data_size);
	fprintf(f, "# feat offset    : %" PRIu64 "\n", in->pipe_mode ? 0 : in->data_offset + in->data_size);
	if (in->hostname)
		fprintf(f, "# hostname : %s\n", in->hostname);
	if (in->osrelease)
		fprintf(f, "# os release : %s\n", in->osrelease);
	if (in->version)
		fprintf(f, "# perf version : %s\n", in->version);
	if (in->arch)
		fprintf(f, "# arch : %s\n", in->arch);
	if (pd_has_feature(in, PD_FEAT_NRCPUS)) {
		fprintf(f, "# nrcpus online : %u\n", in->nr_cpus_online);
		fprintf(f, "# nrcpus avail : %u\n", in->nr_cpus_avail);
	}
	if (in->cpudesc)
		fprintf(f, "# cpudesc : %s\n", in->cpudesc);
	if (in->cpuid)
		fprintf(f, "# cpuid : %s\n", in->cpuid);
	if (pd_has_feature(in, PD_FEAT_TOTAL_MEM))
		fprintf(f, "# total memory : %" PRIu64 " kB\n", in->total_mem);
	if (in->cmdline) {
		fprintf(f, "# cmdline : ");
		for (i = 0; i < in->nr_cmdline; i++)
			fprintf(f, "%s ", in->cmdline[i]);
		fputc('\n', f);
	}
	for (i = 0; i < in->nr_attrs; i++) {
		const struct pd_attr *a = &in->attrs[i];
		struct strbuf sb = STRBUF_INIT;
		sb_printf(&sb, "# event : name = %s, ", a->name ? a->name : "");
		if (a->nr_ids) {
			sb_puts(&sb, ", id = {");
			for (j = 0; j < a->nr_ids; j++)
				sb_printf(&sb, "%s %" PRIu64, j ? "," : "", a->ids[j]);
			sb_puts(&sb, " }");
		}
		attr_line(&sb, &a->attr, a->file_attr_size);
		fprintf(f, "%s\n", sb_str(&sb));
		sb_free(&sb);
	}
	if (pd_has_feature(in, PD_FEAT_BRANCH_STACK))
		fprintf(f, "# contains samples with branch stack\n");
	for (i = 0; i < in->nr_pmu_caps; i++)
		fprintf(f, "%s%s", i ? ", " : "# cpu pmu capabilities: ", in->pmu_caps[i]);
	if (in->nr_pmu_caps)
		fputc('\n', f);
	fprintf(f, "# ========\n#\n");
}
