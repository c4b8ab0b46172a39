/* download.c — fetch mapfile.csv and a CPU's event files into the cache, laid
 * out like their source: Intel's perfmon repository (files the mapfile names),
 * or the Linux kernel's pmu-events (tools/perf/pmu-events/arch/x86: every
 * file of the directory the mapfile names, listed by GitHub's contents API,
 * a file:// directory or another server's index). Any base URL may be given
 * (https, http, file). Conditional requests use the validators kept in
 * <file>.etag sidecars. Nothing in the cache changes unless every file
 * arrived whole and parses: then each is written to a temporary name and
 * renamed, mapfile.csv last. */
#include <ctype.h>
#include <curl/curl.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "events/ev-internal.h"

/* Both sources live on GitHub; the hosts can be replaced (a GitHub Enterprise
 * mirror, or the tests' server on 127.0.0.1). */
#define GITHUB_RAW_URL "https://raw.githubusercontent.com"
#define GITHUB_API_URL "https://api.github.com"
#define PERFMON_PATH "intel/perfmon/main"
#define LINUX_PATH "torvalds/linux/master/tools/perf/pmu-events/arch/x86"

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
	char *rate_remaining, *rate_reset; /* GitHub's X-RateLimit-* headers */
	long status;
	bool not_modified;
	bool too_big;              /* the body went past EV_MAX_TABLE_FILE: the transfer was stopped */
	bool github_api;           /* a request to GitHub's REST API */
	bool listing;              /* a directory's file names (linux), "DIR/.listing" in the cache */
};

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);
	return v && *v ? v : dflt;
}

struct transfer {
	const struct ev_download_opts *o;
	struct fetch *f;
};

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct fetch *f = arg;
	if (size * n > EV_MAX_TABLE_FILE - f->body.len) {
		f->too_big = true;
		return 0;   /* curl stops the transfer */
	}
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
	} else if ((v = header_value(line, size * n, "X-RateLimit-Remaining"))) {
		free(f->rate_remaining);
		f->rate_remaining = v;
	} else if ((v = header_value(line, size * n, "X-RateLimit-Reset"))) {
		free(f->rate_reset);
		f->rate_reset = v;
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
	if (f->github_api) {
		hdrs = cu.slist_append(hdrs, "Accept: application/vnd.github+json");
		hdrs = cu.slist_append(hdrs, "X-GitHub-Api-Version: 2022-11-28");
	}
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
	if (f->too_big)
		return oc_err("%s: larger than %u MiB, the most ocrec reads of an event file", f->url,
			      EV_MAX_TABLE_FILE >> 20);
	if (rc != CURLE_OK)
		return oc_err("%s: %s", f->url, *errbuf ? errbuf : cu.easy_strerror(rc));
	cu.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &f->status);
	if (f->status == 304 && have_file) {
		f->not_modified = true;
		return 0;
	}
	if (f->status == 403 && f->rate_remaining && !strcmp(f->rate_remaining, "0")) {
		time_t reset = (time_t)strtoll(f->rate_reset ? f->rate_reset : "0", NULL, 10);
		char when[32] = "an hour";
		struct tm tm;
		if (reset > 0 && gmtime_r(&reset, &tm))
			strftime(when, sizeof(when), "%H:%M UTC", &tm);
		return oc_err("%s: HTTP status 403: GitHub's limit of 60 API requests an hour without a token "
			      "is used up until %s (an unchanged listing, answered 304, does not count; "
			      "--url file://DIR reads a kernel checkout)", f->url, when);
	}
	if (f->status != 0 && f->status != 200)
		return oc_err("%s: HTTP status %ld", f->url, f->status);
	return 0;
}

/* What a source's files are called in messages. */
static const char *kind_name(enum ev_source source)
{
	return source == EV_SOURCE_LINUX ? "pmu-events" : "perfmon";
}

/* A downloaded event file must be a table ocrec can read. */
static int check_json(const struct fetch *f, enum ev_source source)
{
	json_error_t jerr;
	json_t *root = json_loadb(sb_str(&f->body), f->body.len, JSON_DECODE_ANY, &jerr);
	bool ok = root && (json_is_array(root) ||
			   (json_is_object(root) && json_is_array(json_object_get(root, "Events"))));
	json_decref(root);
	if (!ok)
		return oc_err("%s: not a %s event table (%s)", f->url, kind_name(source),
			      root ? "no Events array" : jerr.text);
	return 0;
}

static int check_mapfile(const struct fetch *f, enum ev_source source)
{
	if (f->body.len > EV_MAX_MAPFILE)
		return oc_err("%s: larger than %u MiB, the most ocrec reads of a mapfile.csv", f->url,
			      EV_MAX_MAPFILE >> 20);
	if (!str_starts_with(sb_str(&f->body), "Family-model,"))
		return oc_err("%s: not a %s mapfile.csv (it should start with \"Family-model,\")", f->url,
			      kind_name(source));
	return 0;
}

/* A path the mapfile or a listing names must stay inside the cache. */
static bool safe_rel(const char *rel)
{
	const char *p;

	if (!*rel || *rel == '/')
		return false;
	for (p = rel; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-/", *p))
			return false;
	return !ev_path_climbs(rel);
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
	free(f->rate_remaining);
	free(f->rate_reset);
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

struct download {
	const struct ev_download_opts *o;
	struct ev_download_result *res;
	CURL *curl;
	char *base, *cache;
	struct fetch *files;        /* [0] is mapfile.csv */
	size_t nfiles, cap;
};

static struct fetch *add_fetch(struct download *d, const char *base, const char *rel)
{
	GROW(d->files, d->cap, d->nfiles + 1);
	fetch_init(&d->files[d->nfiles], base, d->cache, rel);
	return &d->files[d->nfiles++];
}

/* Intel's perfmon: the core, hybridcore, uncore and offcore files of the rows. */
static int plan_perfmon(struct download *d, struct ev_map_row *rows, int nrows)
{
	size_t k;
	int i;

	for (i = 0; i < nrows; i++) {
		const char *rel = rows[i].file;
		if (!wanted_type(rows[i].type))
			continue;
		while (*rel == '/')
			rel++;
		if (!safe_rel(rel))
			return oc_err("%s/mapfile.csv: file name '%s' leaves the repository", d->base, rows[i].file);
		if (!str_ends_with(rel, ".json"))
			return oc_err("%s/mapfile.csv names a directory, %s: the Linux kernel's layout (--from linux)",
				      d->base, rel);
		for (k = 1; k < d->nfiles; k++)
			if (!strcmp(d->files[k].rel, rel))
				break;
		if (k == d->nfiles)
			add_fetch(d, d->base, rel);
	}
	return 0;
}

/* --- the kernel's pmu-events: a directory per CPU, listed ------------------ */

static bool event_file_name(const char *name)
{
	return *name != '.' && str_ends_with(name, ".json") && strlen(name) > 5 && !strchr(name, '/') &&
	       safe_rel(name);
}

/* A kernel pmu-events directory has about 20 files; a listing of a million
 * names (a hostile mirror) must not take a million squared comparisons. */
#define MAX_LISTED 4096

static void add_name(char ***names, size_t *n, size_t *cap, const char *name, size_t len)
{
	char *s;
	size_t i;

	if (*n >= MAX_LISTED)
		return;   /* list_dir() refuses the listing */
	s = xstrndup(name, len);
	for (i = 0; i < *n; i++)
		if (!strcmp((*names)[i], s)) {
			free(s);
			return;
		}
	GROW(*names, *cap, *n + 1);
	(*names)[(*n)++] = s;
}

/* The .json files of a listing: a JSON array of {"name", "type"} objects (GitHub's
 * contents API, or a mirror that answers like it), or an HTML index page
 * (href="NAME.json", as nginx, Apache and python's http.server write them). */
static int parse_listing(const struct fetch *f, char ***names, size_t *n)
{
	const char *body = sb_str(&f->body), *p;
	size_t cap = 0, i;
	json_t *root = json_loadb(body, f->body.len, 0, NULL), *item;

	*names = NULL;
	*n = 0;
	if (json_is_array(root)) {
		json_array_foreach(root, i, item) {
			const char *name = json_string_value(json_object_get(item, "name"));
			const char *type = json_string_value(json_object_get(item, "type"));
			if (name && (!type || !strcmp(type, "file")) && event_file_name(name))
				add_name(names, n, &cap, name, strlen(name));
		}
	} else if (!root && !f->github_api) {
		for (p = body; (p = strstr(p, "href=\"")); ) {
			const char *v = p + 6, *end = strchr(v, '"');
			char *name;
			if (!end)
				break;
			if (!strncmp(v, "./", 2))
				v += 2;
			name = xstrndup(v, (size_t)(end - v));
			if (event_file_name(name))
				add_name(names, n, &cap, name, strlen(name));
			free(name);
			p = end;
		}
	}
	json_decref(root);
	if (!*n)
		return oc_err("%s: no .json file listed (expected %s)", f->url, f->github_api ?
			      "GitHub's contents API answer, a JSON array of files" :
			      "a JSON array of {\"name\": ...} objects or an HTML index page");
	return 0;
}

/* Where a directory's file list comes from: GitHub's contents API for a base on
 * raw.githubusercontent.com/OWNER/REPO/REF/PATH, BASE/DIR/ (a JSON or HTML index)
 * on other servers. */
static char *listing_url(const char *base, const char *dir, bool *github_api)
{
	const char *raw = env_or("OCREC_GITHUB_RAW_URL", GITHUB_RAW_URL);
	size_t rl = strlen(raw);

	*github_api = false;
	while (rl && raw[rl - 1] == '/')
		rl--;
	if (!strncmp(base, raw, rl) && base[rl] == '/') {
		size_t n;
		char **part = str_split(base + rl + 1, '/', &n), *url = NULL, *path;
		if (n >= 3 && *part[0] && *part[1] && *part[2]) {
			size_t i;
			struct strbuf sb = STRBUF_INIT;
			for (i = 3; i < n; i++)
				if (*part[i])
					sb_printf(&sb, "%s/", part[i]);
			path = sb_detach(&sb);
			url = xasprintf("%s/repos/%s/%s/contents/%s%s?ref=%s", env_or("OCREC_GITHUB_API_URL", GITHUB_API_URL),
					part[0], part[1], path ? path : "", dir, part[2]);
			free(path);
			*github_api = true;
		}
		strv_free(part);
		if (url)
			return url;
	}
	return xasprintf("%s/%s/", base, dir);
}

/* The local directory of a file:// base, or NULL. */
static const char *file_url_path(const char *base)
{
	if (!strncasecmp(base, "file://localhost/", 17))
		return base + 16;
	if (!strncasecmp(base, "file:///", 8))
		return base + 7;
	return NULL;
}

/* List dir: *names, 0; 1 when the source has no such directory; -1 + oc_err(). */
static int list_dir(struct download *d, const char *dir, struct fetch *lf, char ***names, size_t *n)
{
	const char *local = file_url_path(d->base);
	size_t cap = 0, i;

	*names = NULL;
	*n = 0;
	if (local) {
		char *path = xasprintf("%s/%s", local, dir);
		DIR *dd = opendir(path);
		struct dirent *de;
		if (!dd) {
			int err = errno;
			free(path);
			if (err == ENOENT)
				return 1;
			errno = err;
			return oc_err_errno("%s/%s", d->base, dir);
		}
		while ((de = readdir(dd)))
			if (event_file_name(de->d_name))
				add_name(names, n, &cap, de->d_name, strlen(de->d_name));
		closedir(dd);
		free(path);
		if (!*n)
			return oc_err("%s/%s: no .json file in the directory", d->base, dir);
	} else {
		if (fetch_one(d->curl, d->o, lf) < 0)
			return lf->status == 404 ? (oc_err_clear(), 1) : -1;
		if (lf->not_modified) {
			char *text = read_file(lf->path, NULL), **lines;
			if (!text)
				return -1;
			lines = str_split(text, '\n', NULL);
			free(text);
			for (i = 0; lines[i]; i++)
				if (event_file_name(lines[i]))
					add_name(names, n, &cap, lines[i], strlen(lines[i]));
			strv_free(lines);
			if (!*n) {
				/* an unreadable cached listing: ask again, unconditionally */
				lf->not_modified = false;
				unlink(lf->path);
				if (fetch_one(d->curl, d->o, lf) < 0)
					return -1;
			}
		}
		if (!lf->not_modified && parse_listing(lf, names, n) < 0)
			return -1;
	}
	if (*n >= MAX_LISTED)
		return oc_err("%s/%s: %d or more event files listed", d->base, dir, MAX_LISTED);
	/* the cache keeps the names, one a line, for the next conditional request */
	sb_reset(&lf->body);
	for (i = 0; i < *n; i++)
		sb_printf(&lf->body, "%s\n", (*names)[i]);
	return 0;
}

/* The kernel's layout: each row names a directory; a CPU's first row whose
 * directory the source has wins (as in perf, rows overlap: Zen 3 and Zen 4 are
 * both family 25). Every .json file of the directory is fetched. */
static int plan_linux(struct download *d, struct ev_map_row *rows, int nrows)
{
	struct strbuf absent = STRBUF_INIT;
	char **done = NULL;
	size_t ndone = 0, cap_done = 0, nabsent = 0, k;
	int i, ret = 0;

	for (i = 0; i < nrows && ret == 0; i++) {
		const char *dir = rows[i].file;
		char *rel, **names = NULL;
		size_t n = 0, first;
		struct fetch *lf;
		if (strcasecmp(rows[i].type, "core") != 0)
			continue;
		if (!safe_rel(dir)) {
			ret = oc_err("%s/mapfile.csv: directory '%s' leaves the tree", d->base, dir);
			break;
		}
		if (str_ends_with(dir, ".json")) {
			ret = oc_err("%s/mapfile.csv names a file, %s: Intel's perfmon layout (--from perfmon)",
				     d->base, dir);
			break;
		}
		for (k = 0; k < ndone; k++)
			if (!strcmp(done[k], dir))
				break;
		if (k < ndone)
			continue;
		GROW(done, cap_done, ndone + 1);
		done[ndone++] = xstrdup(dir);
		rel = xasprintf("%s/.listing", dir);
		first = d->nfiles;
		lf = add_fetch(d, d->base, rel);
		free(rel);
		free(lf->url);
		lf->url = listing_url(d->base, dir, &lf->github_api);
		lf->listing = true;
		ret = list_dir(d, dir, lf, &names, &n);
		if (ret == 1) {
			/* not in this source (a partial mirror): the next row that matches */
			if (nabsent++ < 4)
				sb_printf(&absent, "%s%s", absent.len ? ", " : "", dir);
			fetch_free(&d->files[--d->nfiles]);
			ret = 0;
			continue;
		}
		for (k = 0; k < n; k++) {
			if (ret == 0) {
				char *file = xasprintf("%s/%s", dir, names[k]);
				add_fetch(d, d->base, file);
				free(file);
			}
			free(names[k]);
		}
		free(names);
		if (ret == 0 && !d->o->all) {
			snprintf(d->res->table, sizeof(d->res->table), "%s", d->files[first].rel);
			*strchr(d->res->table, '/') = 0;
			break;
		}
	}
	if (nabsent > 4)
		sb_printf(&absent, " and %zu more", nabsent - 4);
	if (ret == 0 && absent.len)
		oc_warn("%s has no %s, which mapfile.csv names%s", d->base, sb_str(&absent),
			d->o->all ? "" : d->nfiles > 1 ? ": the next row for this CPU serves it" : "");
	if (ret == 0 && d->nfiles == 1 && absent.len)
		ret = oc_err("%s has none of the directories mapfile.csv names for %s (%s)", d->base,
			     d->o->all ? "any CPU" : d->o->cpu_id, sb_str(&absent));
	for (k = 0; k < ndone; k++)
		free(done[k]);
	free(done);
	sb_free(&absent);
	return ret;
}

/* Cached event files of a listed directory that the listing no longer names. */
static int prune_dir(const struct fetch *lf)
{
	char *dir = xstrdup(lf->path), *slash = strrchr(dir, '/'), **names;
	size_t n, i;
	DIR *dd;
	struct dirent *de;
	int removed = 0;

	*slash = 0;
	names = str_split(sb_str(&lf->body), '\n', &n);
	if ((dd = opendir(dir))) {
		while ((de = readdir(dd))) {
			bool listed = false;
			if (!event_file_name(de->d_name))
				continue;
			for (i = 0; i < n && !listed; i++)
				listed = !strcmp(names[i], de->d_name);
			if (!listed) {
				char *path = xasprintf("%s/%s", dir, de->d_name), *side = xasprintf("%s.etag", path);
				if (unlink(path) == 0)
					removed++;
				unlink(side);
				free(path);
				free(side);
			}
		}
		closedir(dd);
	}
	strv_free(names);
	free(dir);
	return removed;
}

int ev_download(const struct ev_download_opts *o, struct ev_download_result *res)
{
	bool linux_src = o->source == EV_SOURCE_LINUX;
	const char *env = getenv(linux_src ? "OCREC_LINUX_EVENTS_URL" : "OCREC_EVENTS_URL");
	struct download d = { o, res, NULL, NULL, NULL, NULL, 0, 0 };
	struct ev_map_row *rows = NULL;
	char *text;
	size_t i;
	int nrows = 0, ret = -1;

	memset(res, 0, sizeof(*res));
	if (o->base_url)
		d.base = xstrdup(o->base_url);
	else if (env && *env)
		d.base = xstrdup(env);
	else
		d.base = xasprintf("%s/%s", env_or("OCREC_GITHUB_RAW_URL", GITHUB_RAW_URL),
				   linux_src ? LINUX_PATH : PERFMON_PATH);
	while (*d.base && d.base[strlen(d.base) - 1] == '/')
		d.base[strlen(d.base) - 1] = 0;
	d.cache = o->cache_dir ? xstrdup(o->cache_dir) : ev_source_cache_dir(o->source);
	if (load_libcurl() < 0)
		goto free_names;
	if (cu.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(d.curl = cu.easy_init())) {
		oc_err("cannot initialise libcurl");
		goto free_names;
	}
	add_fetch(&d, d.base, "mapfile.csv");
	if (fetch_one(d.curl, o, &d.files[0]) < 0)
		goto out;
	if (d.files[0].not_modified) {
		size_t len;
		text = read_file_max(d.files[0].path, &len, EV_MAX_MAPFILE, "a mapfile.csv");
		if (!text)
			goto out;
	} else {
		if (check_mapfile(&d.files[0], o->source) < 0)
			goto out;
		text = xstrdup(sb_str(&d.files[0].body));
	}
	nrows = ev_mapfile_parse(text, o->all ? NULL : o->cpu_id, &rows);
	free(text);
	if ((linux_src ? plan_linux(&d, rows, nrows) : plan_perfmon(&d, rows, nrows)) < 0)
		goto out;
	if (d.nfiles == 1) {
		const char *id = o->cpu_id ? o->cpu_id : "this CPU";
		oc_err("%s/mapfile.csv has no event table for %s%s", d.base, id,
		       linux_src || (o->cpu_id && !strncmp(o->cpu_id, "GenuineIntel", 12)) ? "" :
		       " (Intel's perfmon tables cover Intel CPUs: --from linux fetches the Linux kernel's)");
		goto out;
	}
	/* everything first, then the cache: a failure leaves the old cache as it was */
	for (i = 1; i < d.nfiles; i++) {
		if (d.files[i].listing)
			continue;   /* listed already */
		if (fetch_one(d.curl, o, &d.files[i]) < 0)
			goto out;
		if (!d.files[i].not_modified && check_json(&d.files[i], o->source) < 0)
			goto out;
	}
	for (i = d.nfiles; i-- > 0;) {
		struct fetch *f = &d.files[i];
		if (f->listing) {
			/* after its files: a listing in the cache names files that are there */
			if (!f->not_modified && commit(f) < 0)
				goto out;
			res->removed += prune_dir(f);
			continue;
		}
		res->files++;
		if (f->not_modified) {
			res->not_modified++;
			continue;
		}
		if (commit(f) < 0)
			goto out;
		res->fetched++;
		res->bytes += f->body.len;
	}
	ret = 0;
out:
	cu.easy_cleanup(d.curl);
	cu.global_cleanup();
free_names:
	for (i = 0; i < (size_t)nrows; i++)
		ev_map_row_free(&rows[i]);
	free(rows);
	for (i = 0; i < d.nfiles; i++)
		fetch_free(&d.files[i]);
	free(d.files);
	free(d.base);
	free(d.cache);
	return ret;
}
