/* download.c — fetch mapfile.csv and a CPU's event files from the Intel
 * perfmon repository (or any base URL: https, http, file) into the cache,
 * laid out like the repository. Conditional requests use the validators kept
 * in <file>.etag sidecars. Nothing in the cache changes unless every file
 * arrived whole and parses: then each is written to a temporary name and
 * renamed, mapfile.csv last. */
#include <curl/curl.h>
#include <dlfcn.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/ev-internal.h"

#define DEFAULT_EVENTS_URL "https://raw.githubusercontent.com/intel/perfmon/main"

/* libcurl is loaded when a download starts, not when ocrec starts: with its
 * TLS and protocol libraries it costs about 10 ms of dynamic linking, which
 * every `ocrec resolve` would otherwise pay. */
static struct {
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *curl);
	void (*easy_reset)(CURL *curl);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
} cu;

static int load_libcurl(void)
{
	static void *handle;
	static const char *const names[] = { "libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so" };
	size_t i;

	if (handle)
		return 0;
	for (i = 0; i < ARRAY_SIZE(names) && !handle; i++)
		handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return oc_err("cannot load libcurl (%s): install libcurl4", dlerror());
#define SYM(field, name) *(void **)&cu.field = dlsym(handle, name)
	SYM(global_init, "curl_global_init");
	SYM(global_cleanup, "curl_global_cleanup");
	SYM(easy_init, "curl_easy_init");
	SYM(easy_cleanup, "curl_easy_cleanup");
	SYM(easy_reset, "curl_easy_reset");
	SYM(easy_setopt, "curl_easy_setopt");
	SYM(easy_perform, "curl_easy_perform");
	SYM(easy_getinfo, "curl_easy_getinfo");
	SYM(easy_strerror, "curl_easy_strerror");
	SYM(slist_append, "curl_slist_append");
	SYM(slist_free_all, "curl_slist_free_all");
#undef SYM
	if (!cu.global_init || !cu.global_cleanup || !cu.easy_init || !cu.easy_cleanup || !cu.easy_reset ||
	    !cu.easy_setopt || !cu.easy_perform || !cu.easy_getinfo || !cu.easy_strerror ||
	    !cu.slist_append || !cu.slist_free_all) {
		handle = NULL;
		memset(&cu, 0, sizeof(cu));
		return oc_err("the libcurl found lacks functions ocrec needs");
	}
	return 0;
}

struct fetch {
	char *rel;                 /* "mapfile.csv", "SKX/events/skylakex_core.json" */
	char *url, *path, *sidecar;
	struct strbuf body;
	char *etag, *last_modified; /* from the response */
	long status;
	bool not_modified;
};

struct transfer {
	const struct ev_download_opts *o;
	struct fetch *f;
};

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct fetch *f = arg;
	sb_add(&f->body, data, size * n);
	return size * n;
}

static char *header_value(const char *line, size_t len, const char *name)
{
	size_t nl = strlen(name);
	const char *v, *end = line + len;
	if (len <= nl || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
		return NULL;
	v = line + nl + 1;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
		end--;
	return xstrndup(v, (size_t)(end - v));
}

static size_t on_header(char *line, size_t size, size_t n, void *arg)
{
	struct fetch *f = arg;
	char *v;
	if ((v = header_value(line, size * n, "ETag"))) {
		free(f->etag);
		f->etag = v;
	} else if ((v = header_value(line, size * n, "Last-Modified"))) {
		free(f->last_modified);
		f->last_modified = v;
	}
	return size * n;
}

static int on_progress(void *arg, curl_off_t total, curl_off_t now, curl_off_t ut, curl_off_t un)
{
	struct transfer *t = arg;
	(void)ut;
	(void)un;
	t->o->progress(t->f->rel, (size_t)now, (size_t)total, t->o->progress_arg);
	return 0;
}

/* The validators of a cached file: "etag VALUE" and "last-modified VALUE" lines. */
static void read_sidecar(const char *sidecar, char **etag, char **last_modified)
{
	size_t len, n, i;
	char *text = file_exists(sidecar) ? read_file(sidecar, &len) : NULL, **lines;

	*etag = *last_modified = NULL;
	if (!text)
		return;
	lines = str_split(text, '\n', &n);
	for (i = 0; i < n; i++) {
		if (!strncmp(lines[i], "etag ", 5) && !*etag)
			*etag = xstrdup(lines[i] + 5);
		else if (!strncmp(lines[i], "last-modified ", 14) && !*last_modified)
			*last_modified = xstrdup(lines[i] + 14);
	}
	strv_free(lines);
	free(text);
}

static int fetch_one(CURL *curl, const struct ev_download_opts *o, struct fetch *f)
{
	struct curl_slist *hdrs = NULL;
	struct transfer t = { o, f };
	char *etag = NULL, *lm = NULL, errbuf[CURL_ERROR_SIZE] = "";
	bool have_file = file_exists(f->path);
	CURLcode rc;

	if (have_file && !o->force) {
		read_sidecar(f->sidecar, &etag, &lm);
		if (etag) {
			char *h = xasprintf("If-None-Match: %s", etag);
			hdrs = cu.slist_append(hdrs, h);
			free(h);
		}
		if (lm) {
			char *h = xasprintf("If-Modified-Since: %s", lm);
			hdrs = cu.slist_append(hdrs, h);
			free(h);
		}
	}
	cu.easy_reset(curl);
	cu.easy_setopt(curl, CURLOPT_URL, f->url);
	cu.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https,http,file");
	cu.easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "https,http");
	cu.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
	cu.easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
	cu.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 20L);
	cu.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 100L);
	cu.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 30L);
	cu.easy_setopt(curl, CURLOPT_USERAGENT, "ocrec/" OCREC_VERSION);
	cu.easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
	cu.easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	cu.easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	cu.easy_setopt(curl, CURLOPT_WRITEDATA, f);
	cu.easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
	cu.easy_setopt(curl, CURLOPT_HEADERDATA, f);
	cu.easy_setopt(curl, CURLOPT_HTTPHEADER, hdrs);
	if (o->progress) {
		cu.easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
		cu.easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
		cu.easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
	}
	rc = cu.easy_perform(curl);
	cu.slist_free_all(hdrs);
	free(etag);
	free(lm);
	if (rc != CURLE_OK)
		return oc_err("%s: %s", f->url, *errbuf ? errbuf : cu.easy_strerror(rc));
	cu.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &f->status);
	if (f->status == 304 && have_file) {
		f->not_modified = true;
		return 0;
	}
	if (f->status != 0 && f->status != 200)
		return oc_err("%s: HTTP status %ld", f->url, f->status);
	return 0;
}

/* A downloaded event file must be a table ocrec can read. */
static int check_json(const struct fetch *f)
{
	json_error_t jerr;
	json_t *root = json_loadb(sb_str(&f->body), f->body.len, JSON_DECODE_ANY, &jerr);
	bool ok = root && (json_is_array(root) ||
			   (json_is_object(root) && json_is_array(json_object_get(root, "Events"))));
	json_decref(root);
	if (!ok)
		return oc_err("%s: not a perfmon event table (%s)", f->url,
			      root ? "no Events array" : jerr.text);
	return 0;
}

static int check_mapfile(const struct fetch *f)
{
	if (!str_starts_with(sb_str(&f->body), "Family-model,"))
		return oc_err("%s: not a perfmon mapfile.csv (it should start with \"Family-model,\")", f->url);
	return 0;
}

static void fetch_init(struct fetch *f, const char *base, const char *cache, const char *rel)
{
	memset(f, 0, sizeof(*f));
	while (*rel == '/')
		rel++;
	f->rel = xstrdup(rel);
	f->url = xasprintf("%s/%s", base, rel);
	f->path = xasprintf("%s/%s", cache, rel);
	f->sidecar = xasprintf("%s.etag", f->path);
}

static void fetch_free(struct fetch *f)
{
	free(f->rel);
	free(f->url);
	free(f->path);
	free(f->sidecar);
	free(f->etag);
	free(f->last_modified);
	sb_free(&f->body);
}

static int commit(const struct fetch *f)
{
	struct strbuf side = STRBUF_INIT;
	char *dir = xstrdup(f->path), *slash = strrchr(dir, '/');
	int ret;

	if (slash)
		*slash = 0;
	ret = mkdir_p(dir, 0755);
	free(dir);
	if (ret < 0)
		return -1;
	if (write_file_atomic(f->path, sb_str(&f->body), f->body.len) < 0)
		return -1;
	sb_printf(&side, "url %s\n", f->url);
	if (f->etag)
		sb_printf(&side, "etag %s\n", f->etag);
	if (f->last_modified)
		sb_printf(&side, "last-modified %s\n", f->last_modified);
	ret = write_file_atomic(f->sidecar, side.buf, side.len);
	sb_free(&side);
	return ret;
}

static bool wanted_type(const char *type)
{
	return !strcasecmp(type, "core") || !strcasecmp(type, "hybridcore") ||
	       !strcasecmp(type, "uncore") || !strcasecmp(type, "offcore");
}

int ev_download(const struct ev_download_opts *o, struct ev_download_result *res)
{
	const char *env = getenv("OCREC_EVENTS_URL");
	char *base, *cache = o->cache_dir ? xstrdup(o->cache_dir) : ev_cache_dir(), *text;
	struct fetch *files = NULL;
	struct ev_map_row *rows = NULL;
	size_t nfiles = 0, cap = 0, i;
	int nrows = 0, ret = -1;
	CURL *curl;

	memset(res, 0, sizeof(*res));
	base = xstrdup(o->base_url ? o->base_url : env && *env ? env : DEFAULT_EVENTS_URL);
	while (*base && base[strlen(base) - 1] == '/')
		base[strlen(base) - 1] = 0;
	if (load_libcurl() < 0) {
		free(base);
		free(cache);
		return -1;
	}
	if (cu.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(curl = cu.easy_init())) {
		free(base);
		free(cache);
		return oc_err("cannot initialise libcurl");
	}
	GROW(files, cap, 1);
	fetch_init(&files[nfiles++], base, cache, "mapfile.csv");
	if (fetch_one(curl, o, &files[0]) < 0)
		goto out;
	if (files[0].not_modified) {
		size_t len;
		text = read_file(files[0].path, &len);
		if (!text)
			goto out;
	} else {
		if (check_mapfile(&files[0]) < 0)
			goto out;
		text = xstrdup(sb_str(&files[0].body));
	}
	nrows = ev_mapfile_parse(text, o->all ? NULL : o->cpu_id, &rows);
	free(text);
	for (i = 0; i < (size_t)nrows; i++) {
		size_t k;
		const char *rel = rows[i].file;
		if (!wanted_type(rows[i].type))
			continue;
		while (*rel == '/')
			rel++;
		for (k = 1; k < nfiles; k++)
			if (!strcmp(files[k].rel, rel))
				break;
		if (k < nfiles)
			continue;
		GROW(files, cap, nfiles + 1);
		fetch_init(&files[nfiles++], base, cache, rel);
	}
	if (nfiles == 1) {
		oc_err("%s/mapfile.csv has no event table for %s%s", base, o->cpu_id ? o->cpu_id : "this CPU",
		       o->cpu_id && !strncmp(o->cpu_id, "GenuineIntel", 12) ? "" :
		       " (Intel's perfmon tables cover Intel CPUs; libpfm4 knows this CPU's events)");
		goto out;
	}
	/* everything first, then the cache: a failure leaves the old cache as it was */
	for (i = 1; i < nfiles; i++) {
		if (fetch_one(curl, o, &files[i]) < 0)
			goto out;
		if (!files[i].not_modified && check_json(&files[i]) < 0)
			goto out;
	}
	for (i = nfiles; i-- > 0;) {
		res->files++;
		if (files[i].not_modified) {
			res->not_modified++;
			continue;
		}
		if (commit(&files[i]) < 0)
			goto out;
		res->fetched++;
		res->bytes += files[i].body.len;
	}
	ret = 0;
out:
	for (i = 0; i < (size_t)nrows; i++)
		ev_map_row_free(&rows[i]);
	free(rows);
	for (i = 0; i < nfiles; i++)
		fetch_free(&files[i]);
	free(files);
	cu.easy_cleanup(curl);
	cu.global_cleanup();
	free(base);
	free(cache);
	return ret;
}
