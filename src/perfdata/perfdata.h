/* perfdata.h — Linux perf's perf.data format: a streaming reader and a writer.
 *
 * Reader: pd_open() parses the header, attrs and feature sections; pd_for_each()
 * streams the data section, one callback per record, in constant memory. Samples
 * are decoded from their attr's sample_type in perf's field order.
 * Writer: file-mode perf.data that perf 6.1 reads (attr.size 128), written to a
 * temporary name and renamed by pd_writer_close().
 * Layouts and traps: docs/perfdata.md, "The format".
 */
#ifndef OCREC_PERFDATA_H
#define OCREC_PERFDATA_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Header feature bits (perf's HEADER_*). */
enum pd_feature {
	PD_FEAT_TRACING_DATA = 1, PD_FEAT_BUILD_ID = 2, PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4, PD_FEAT_VERSION = 5, PD_FEAT_ARCH = 6, PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8, PD_FEAT_CPUID = 9, PD_FEAT_TOTAL_MEM = 10, PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12, PD_FEAT_CPU_TOPOLOGY = 13, PD_FEAT_NUMA_TOPOLOGY = 14,
	PD_FEAT_BRANCH_STACK = 15, PD_FEAT_PMU_MAPPINGS = 16, PD_FEAT_GROUP_DESC = 17,
	PD_FEAT_SAMPLE_TIME = 21, PD_FEAT_COMPRESSED = 27, PD_FEAT_CPU_PMU_CAPS = 28,
	PD_FEAT_MAX = 256,
};

/* perf's user record types (beyond the kernel's PERF_RECORD_*). */
enum {
	PD_RECORD_HEADER_ATTR = 64, PD_RECORD_HEADER_EVENT_TYPE = 65,
	PD_RECORD_HEADER_TRACING_DATA = 66, PD_RECORD_HEADER_BUILD_ID = 67,
	PD_RECORD_FINISHED_ROUND = 68, PD_RECORD_ID_INDEX = 69, PD_RECORD_AUXTRACE_INFO = 70,
	PD_RECORD_AUXTRACE = 71, PD_RECORD_AUXTRACE_ERROR = 72, PD_RECORD_THREAD_MAP = 73,
	PD_RECORD_CPU_MAP = 74, PD_RECORD_STAT_CONFIG = 75, PD_RECORD_STAT = 76,
	PD_RECORD_STAT_ROUND = 77, PD_RECORD_EVENT_UPDATE = 78, PD_RECORD_TIME_CONV = 79,
	PD_RECORD_HEADER_FEATURE = 80, PD_RECORD_COMPRESSED = 81, PD_RECORD_FINISHED_INIT = 82,
};

/* One branch-stack entry as the kernel writes it (24 bytes). */
struct pd_branch {
	uint64_t from, to;
	uint64_t flags;   /* perf_branch_entry bitfields; use the accessors below */
};
static inline unsigned pd_br_mispred(const struct pd_branch *b) { return b->flags & 1; }
static inline unsigned pd_br_predicted(const struct pd_branch *b) { return (b->flags >> 1) & 1; }
static inline unsigned pd_br_in_tx(const struct pd_branch *b) { return (b->flags >> 2) & 1; }
static inline unsigned pd_br_abort(const struct pd_branch *b) { return (b->flags >> 3) & 1; }
static inline unsigned pd_br_cycles(const struct pd_branch *b) { return (b->flags >> 4) & 0xffff; }
static inline unsigned pd_br_type(const struct pd_branch *b) { return (b->flags >> 20) & 0xf; }
static inline unsigned pd_br_spec(const struct pd_branch *b) { return (b->flags >> 24) & 0x3; }
static inline unsigned pd_br_new_type(const struct pd_branch *b) { return (b->flags >> 26) & 0xf; }
static inline unsigned pd_br_priv(const struct pd_branch *b) { return (b->flags >> 30) & 0x7; }
uint64_t pd_br_make_flags(unsigned mispred, unsigned predicted, unsigned cycles, unsigned type);
/* perf's name of a PERF_BR_* type ("COND", "CALL", ...; "" for unknown). */
const char *pd_br_type_name(unsigned type);

/* A decoded PERF_RECORD_SAMPLE. Fields absent from sample_type are 0. Pointers
 * point into the reader's buffer and are valid only during the callback. */
struct pd_sample {
	uint64_t ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu;
	uint16_t misc;                       /* header.misc: cpumode, EXACT_IP */
	uint64_t callchain_nr;
	const uint64_t *callchain;
	uint64_t branch_nr;
	bool has_hw_idx;
	uint64_t branch_hw_idx;
	const struct pd_branch *branches;    /* newest first, as the kernel writes */
	uint32_t raw_size;
	const void *raw;
	uint64_t weight, data_src, transaction, phys_addr;
	int attr_index;                      /* which attr (event) the sample belongs to */
};

/* The records a tool cares about, decoded; every other type arrives raw (its
 * union is undefined: look at the type first). */
struct pd_event {
	uint32_t type;          /* PERF_RECORD_* or PD_RECORD_* */
	uint16_t misc;
	uint16_t size;
	uint64_t file_offset;   /* where the record starts in the file */
	const void *raw;        /* the whole record, header included (host-endian) */
	union {
		struct pd_sample sample;
		struct { uint32_t pid, tid; uint64_t start, len, pgoff; const char *filename;
			 uint32_t maj, min; uint64_t ino; uint32_t prot, flags;
			 uint8_t build_id_size; const uint8_t *build_id; /* MMAP2 with MISC_MMAP_BUILD_ID */
		} mmap;             /* PERF_RECORD_MMAP and MMAP2 */
		struct { uint32_t pid, tid; const char *comm; bool exec; } comm;
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } fork;  /* FORK and EXIT */
		struct { uint64_t id, lost; } lost;      /* LOST; LOST_SAMPLES uses .lost */
		struct { uint64_t time, id, stream_id; } throttle;
	} u;
	/* sample_id_all trailer of non-sample records, when present */
	bool has_sample_id;
	uint32_t sid_pid, sid_tid, sid_cpu;
	uint64_t sid_time, sid_id;
	int attr_index;         /* -1 when unknown */
};

struct pd_build_id {
	int32_t pid;
	uint16_t misc;          /* cpumode */
	uint8_t size;           /* real length: 20 for SHA-1, 8 for xxHash, ... */
	uint8_t id[20];
	char *filename;
};

/* Do two build-ids name the same object? Old perf wrote every id as 20 bytes,
 * zero-padded: ids compare on their real length, like perf's
 * dso__build_id_equal(). */
bool pd_build_id_equal(const uint8_t *a, size_t asize, const uint8_t *b, size_t bsize);

struct pd_attr {
	struct perf_event_attr attr;  /* copied in; fields past the file's attr.size are 0 */
	uint32_t file_attr_size;      /* attr.size as found in the file */
	uint64_t *ids;
	size_t nr_ids;
	char *name;                   /* from EVENT_DESC, or NULL */
};

/* Everything the header and feature sections say. Strings are NULL when absent. */
struct pd_info {
	bool pipe_mode;
	uint64_t data_offset, data_size;
	uint64_t features[4];         /* feature bitmap */
	struct pd_attr *attrs;
	size_t nr_attrs;
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem;
	char **cmdline;               /* NULL-terminated */
	size_t nr_cmdline;
	struct pd_build_id *build_ids;
	size_t nr_build_ids;
	uint64_t sample_time_first, sample_time_last;
	char **pmu_caps;              /* "name=value" strings of CPU_PMU_CAPS, NULL-terminated */
	size_t nr_pmu_caps;
};
static inline bool pd_has_feature(const struct pd_info *i, int bit)
{
	return (i->features[bit / 64] >> (bit % 64)) & 1;
}

/* --- reader --- */
struct pd_reader;

/* Open a file (file or pipe mode; "-" = stdin, pipe mode). NULL + oc_err() on
 * error; messages name the file and the byte offset. */
struct pd_reader *pd_open(const char *path);
const struct pd_info *pd_get_info(const struct pd_reader *r);
/* Called for every record in file order. Return non-zero to stop. */
typedef int (*pd_event_fn)(const struct pd_event *ev, void *arg);
/* Stream the data section. 0 at the end, the callback's value if it stopped,
 * -1 + oc_err() on malformed data. In pipe mode the info (attrs, features,
 * build-ids) grows while records are read. */
int pd_for_each(struct pd_reader *r, pd_event_fn fn, void *arg);
void pd_close(struct pd_reader *r);
/* Decode again a record this reader handed to the callback, its bytes
 * copied away to be handled later (8-byte aligned): ev as the callback got
 * it, pointing into rec. 0, or -1 + oc_err(). */
int pd_decode(struct pd_reader *r, const void *rec, uint64_t file_offset, struct pd_event *ev);
/* The attr of a sample/record (by id, or the only one); NULL if unknown. */
const struct pd_attr *pd_attr_of(const struct pd_reader *r, int attr_index);
/* Decode one raw sample record against attr; 0 or -1 + oc_err(). Used by the
 * reader, the recorder and tests. */
int pd_parse_sample(const struct perf_event_attr *attr, const void *rec, size_t size,
		    struct pd_sample *out);
/* The event's name: EVENT_DESC's, else derived from the attr as perf's
 * evsel__name() does ("cycles:u", "cpu-clock"). Caller frees. */
char *pd_attr_name(const struct pd_attr *a);
/* Bytes of the sample_id_all trailer that attr puts after every non-sample
 * kernel record (0 without sample_id_all). */
size_t pd_sample_id_size(const struct perf_event_attr *a);
/* perf's name of a record type ("SAMPLE", "MMAP2", ...). */
const char *pd_record_name(uint32_t type);

/* --- writer --- */
struct pd_writer;

struct pd_writer_event {
	struct perf_event_attr attr;  /* written with attr.size = 128 */
	const char *name;             /* for EVENT_DESC, e.g. "cpu-clock" */
	const uint64_t *ids;          /* sample ids of this event's fds (may be 0) */
	size_t nr_ids;
};

/* Create path's temp file and reserve room for the header and attrs. */
struct pd_writer *pd_writer_open(const char *path, const struct pd_writer_event *evs, size_t nr_evs);
/* Append one record as-is (a record copied from the ring buffer). */
int pd_write_raw(struct pd_writer *w, const void *rec, size_t size);
/* Synthesized records. With sample_id_all their trailer is zero-filled, as perf
 * does, unless pd_writer_set_sample_id() gave values. */
int pd_write_comm(struct pd_writer *w, uint32_t pid, uint32_t tid, const char *comm, bool exec);
int pd_write_mmap2(struct pd_writer *w, uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
		   uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino, uint32_t prot,
		   uint32_t flags, const char *filename);
int pd_write_fork(struct pd_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time);
int pd_write_exit(struct pd_writer *w, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time);
int pd_write_lost(struct pd_writer *w, uint64_t id, uint64_t lost);
/* Encode a sample for event evidx according to its attr.sample_type. */
int pd_write_sample(struct pd_writer *w, int evidx, const struct pd_sample *s);
int pd_write_finished_round(struct pd_writer *w);
/* The sample_id_all trailer (pid, tid, time, id, stream_id, cpu) of the records
 * synthesized after this call; NULL returns to perf's zero-filled trailer. */
void pd_writer_set_sample_id(struct pd_writer *w, const struct pd_sample *sid);
/* Header features. HOSTNAME, OSRELEASE, ARCH, NRCPUS, CPUDESC, CPUID and TOTAL_MEM
 * are filled from this machine unless set here; BUILD_ID is always written (empty
 * without pd_writer_add_build_id()); CMDLINE once set; BRANCH_STACK is set
 * automatically when an event samples branch stacks. */
void pd_writer_set_string(struct pd_writer *w, enum pd_feature feat, const char *value);
void pd_writer_set_cmdline(struct pd_writer *w, int argc, char *const argv[]);
void pd_writer_add_build_id(struct pd_writer *w, int32_t pid, uint16_t misc, const uint8_t *id,
			    uint8_t size, const char *filename);
void pd_writer_set_feature(struct pd_writer *w, enum pd_feature feat, bool on);
uint64_t pd_writer_data_size(const struct pd_writer *w);
/* commit=true: write features, patch the header, rename into place.
 * commit=false: remove the temp file. Frees w either way. */
int pd_writer_close(struct pd_writer *w, bool commit);

#endif
