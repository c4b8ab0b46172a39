/* names.c — perf's names for record types and branch types, and the branch
 * entry flag encoding shared by the reader, the writer and the sampler. */
#include "perfdata/perfdata.h"

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
