/* session-internal.h — shared between the session's source files. */
#ifndef OCREC_SESSION_INTERNAL_H
#define OCREC_SESSION_INTERNAL_H

#include "session/session.h"
#include "util/util.h"

struct thread_slot {
	struct session_thread t;
	bool named;                /* a COMM gave its name (perf's comm_set) */
};

/* The address cache's key (session_resolve()). */
struct loc_key {
	uint64_t addr;
	uint64_t where;            /* pid << 32 | cpumode << 8 | at */
};

struct queued {                /* a record waiting for its turn (ordered mode) */
	uint64_t time, seq, offset;
	size_t rec;                /* where its bytes are in the arena */
};

struct session {
	struct session_opts opts;
	struct symtab *st;
	struct hmap strs;          /* interned strings: char * keys, owned */
	struct session_event **events;
	size_t nr_events, cap_events;
	unsigned nr_inputs;

	/* the open input */
	struct pd_reader *rd;
	const struct pd_info *info;
	unsigned *event_of_attr;   /* the input's attr index -> session event */
	size_t nr_event_of_attr;
	size_t nr_build_ids;       /* of info's, given to the symtab */
	bool begun;                /* tool->begin called */
	const struct session_tool *tool;
	void *arg;

	struct hmap threads;       /* of the open input: tid -> struct thread_slot * */
	struct thread_slot *last_thread;   /* the last sample's: samples come in runs of one thread */

	/* per-sample scratch */
	struct session_frame *frames;
	size_t cap_frames;

	/* address cache: key -> struct session_loc * in chunks (stable pointers) */
	struct hmap cache;
	struct session_loc **chunks;
	size_t nr_chunks, cap_chunks, chunk, chunk_used;
	unsigned maps_gen;         /* times the cache was cleared: session_maps_gen() */

	/* ordered mode: perf's ordered events (util/ordered-events.c) */
	struct queued *queue;
	size_t nr_queue, cap_queue;
	bool queue_sorted;
	unsigned char *arena;      /* the queued records' bytes, 8-byte aligned */
	size_t arena_len, arena_cap;
	uint64_t seq, max_time, next_flush;
};

/* The address cache (resolve.c). */
void loc_cache_clear(struct session *s);
void loc_cache_free(struct session *s);

/* Apply a record to the machine state and hand it to the tool (session.c). */
int session_deliver(struct session *s, const struct pd_event *ev);
/* A sample of an input that is not perf.data, handed over like a file's. */
int session_deliver_sample(struct session *s, const struct pd_sample *smp, unsigned event, unsigned cpumode);
/* The open input's next attr: the session event of that name this input has
 * not taken yet, else a new one. Returns its index. */
unsigned session_add_event(struct session *s, const char *name, const struct perf_event_attr *attr);
/* Start an input (its threads and maps are its own), closing the open one. */
void session_begin_input(struct session *s);
/* End the input that the tool was given: begin() if no sample came, then
 * close. Returns ret, or begin()'s value. */
int session_end_input(struct session *s, int ret);

#endif
