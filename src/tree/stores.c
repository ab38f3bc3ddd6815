/* stores.c - the models a folder holds (see stores.h). */
#include "stores.h"
#include "gguffs/buf.h"
#include "gguffs/model.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 16
#define MAX_MANIFEST (4u << 20)

typedef struct list {
    gg_found *v;
    size_t n, cap;
    int oom;
    dev_t skip; /* folders on this device are not looked into (0: none) */
} list;

static void found_clear(gg_found *f)
{
    free(f->key);
    for (int i = 0; i < f->ncomps; i++)
        free(f->comps[i]);
    free(f->comps);
    free(f->spec);
    free(f->error);
    gg_side_specs_free(f->sides, f->nsides);
}

void gg_found_free(gg_found *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        found_clear(&f[i]);
    free(f);
}

/* A new, zeroed entry of the list, or NULL (out of memory). */
static gg_found *grow(list *l)
{
    if (l->oom)
        return NULL;
    if (gg_grow((void **)&l->v, &l->cap, l->n, sizeof *l->v, 64)) {
        l->oom = 1;
        return NULL;
    }
    gg_found *f = &l->v[l->n];
    memset(f, 0, sizeof *f);
    return f;
}

static void set_stat(gg_found *f, const struct stat *st)
{
    f->dev = st->st_dev;
    f->ino = st->st_ino;
    f->size = (uint64_t)st->st_size;
    f->mtime = st->st_mtim;
}

/* Add a model: key, name components (count, then strings), the file. */
static void add(list *l, const char *key, const char *spec, int ncomps, const char *const *comps)
{
    struct stat st;
    if (l->oom || stat(spec, &st) != 0 || !S_ISREG(st.st_mode))
        return;
    gg_found *f = grow(l);
    if (!f)
        return;
    f->key = strdup(key);
    f->spec = strdup(spec);
    f->comps = calloc((size_t)(ncomps ? ncomps : 1), sizeof *f->comps);
    int ok = f->key && f->spec && f->comps;
    for (int i = 0; ok && i < ncomps; i++)
        ok = (f->comps[i] = strdup(comps[i])) != NULL;
    f->ncomps = ncomps;
    if (!ok) {
        found_clear(f);
        l->oom = 1;
        return;
    }
    set_stat(f, &st);
    l->n++;
}

/* Add what is wrong with the place key (the file path, e.g. a manifest):
 * no model, its message for .errors. */
static void add_error(list *l, const char *key, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add_error(list *l, const char *key, const char *path, const char *fmt, ...)
{
    struct stat st;
    if (l->oom || stat(path, &st) != 0)
        return;
    gg_found *f = grow(l);
    if (!f)
        return;
    va_list ap;
    va_start(ap, fmt);
    f->error = gg_vxprintf(fmt, ap);
    va_end(ap);
    f->key = strdup(key);
    f->spec = strdup(path);
    f->comps = calloc(1, sizeof *f->comps);
    if (!f->error || !f->key || !f->spec || !f->comps) {
        found_clear(f);
        l->oom = 1;
        return;
    }
    set_stat(f, &st);
    l->n++;
}

/* A split set is known by all its files, so that a shard added or changed
 * (the rest of a download) changes it: its size is that of the shards
 * there, its time the newest. path is the first shard's, its suffix at. */
static void whole_set(gg_found *f, const char *path, size_t at)
{
    char p[8192];
    int count = atoi(path + at + 10); /* "-00001-of-00003.gguf" */
    for (int k = 2; k <= count && k <= 99999; k++) {
        struct stat st;
        snprintf(p, sizeof p, "%.*s-%05d-of-%.5s.gguf", (int)at, path, k, path + at + 10);
        if (stat(p, &st) != 0) {
            f->incomplete = 1; /* (listed in .errors by the check, never shown) */
            continue;
        }
        f->size += (uint64_t)st.st_size;
        if (st.st_mtim.tv_sec > f->mtime.tv_sec ||
            (st.st_mtim.tv_sec == f->mtime.tv_sec && st.st_mtim.tv_nsec > f->mtime.tv_nsec))
            f->mtime = st.st_mtim;
    }
}

static int is_gguf(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && !strcmp(name + n - 5, ".gguf");
}

/* The folders a walk is in, innermost first: a symbolic link back to one
 * of them (a loop) is not followed. */
typedef struct anc {
    dev_t dev;
    ino_t ino;
    const struct anc *up;
} anc;

/* A plain folder: *.gguf below root, named by their path (components from
 * prefix on, then the folders walked) without .gguf. */
static void walk(list *l, const char *root, const char *rel, const char *const *prefix, int nprefix, int depth,
                 const anc *up)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    struct stat me;
    if (depth > MAX_DEPTH || stat(path, &me) != 0)
        return;
    for (const anc *a = up; a; a = a->up)
        if (a->dev == me.st_dev && a->ino == me.st_ino)
            return; /* a link to a folder the walk is in */
    anc here = {me.st_dev, me.st_ino, up};
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *de; (de = readdir(d));) {
        const char *nm = de->d_name;
        if (nm[0] == '.')
            continue; /* ., .., and hidden folders: .locks, .cache, ... */
        char sub[4096], full[8192];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", nm);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (!l->skip || st.st_dev != l->skip)
                walk(l, root, sub, prefix, nprefix, depth + 1, &here);
            continue;
        }
        if (!S_ISREG(st.st_mode) || !is_gguf(nm))
            continue;
        int part = 0;
        long cut = gg_shard_suffix(nm, strlen(nm), &part);
        if (cut >= 0 && part != 1)
            continue; /* the set is entered by its first shard */
        /* name: prefix, then sub's components, the last without its suffix */
        const char *comps[MAX_DEPTH + 8];
        char buf[4096];
        int nc = 0;
        for (int i = 0; i < nprefix; i++)
            comps[nc++] = prefix[i];
        snprintf(buf, sizeof buf, "%s", sub);
        size_t blen = strlen(buf);
        buf[cut >= 0 ? blen - strlen(nm) + (size_t)cut : blen - 5] = 0;
        for (char *p = buf, *s; nc < MAX_DEPTH + 7 && (s = strsep(&p, "/"));)
            comps[nc++] = s;
        size_t before = l->n;
        add(l, sub, full, nc, comps);
        if (cut >= 0 && l->n > before)
            whole_set(&l->v[before], full, strlen(full) - strlen(nm) + (size_t)cut);
    }
    closedir(d);
}

/* ---- Ollama ---- */

static char *read_small(const char *path, size_t max)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max, f) : 0;
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = 0;
    return buf;
}

/* s as printable text (a hostile manifest's bytes go to .errors and the
 * log): other bytes as \xHH, cut to fit cap. */
static void printable(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    for (; *s && o + 5 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f && c != '\\')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
    }
    out[o] = 0;
}

/* The blob of the layer of this mediaType: 1 with its path in out, 0 if the
 * manifest has none, -1 with the digest (printable) in out if it cannot
 * name a blob: only "sha256:" and 64 hex digits do (never a path). */
static int layer_blob(cJSON *m, const char *media, const char *blobs, char *out, size_t cap)
{
    out[0] = 0;
    cJSON *layers = cJSON_GetObjectItemCaseSensitive(m, "layers"), *it;
    cJSON_ArrayForEach(it, layers)
    {
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(it, "mediaType");
        const cJSON *dg = cJSON_GetObjectItemCaseSensitive(it, "digest");
        if (!cJSON_IsString(mt) || strcmp(mt->valuestring, media))
            continue;
        const char *d = cJSON_IsString(dg) ? dg->valuestring : "";
        if (strncmp(d, "sha256:", 7) || strlen(d + 7) != 64 || strspn(d + 7, "0123456789abcdef") != 64) {
            printable(d, out, cap);
            return -1;
        }
        snprintf(out, cap, "%s/sha256-%s", blobs, d + 7);
        return 1;
    }
    return 0;
}

/* The layer's blob, as a model named comps, or what is wrong with it. */
static void ollama_layer(list *l, cJSON *m, const char *path, const char *blobs, const char *media,
                         const char *what, const char *key, int ncomps, const char *const *comps)
{
    char blob[4400];
    struct stat st;
    int k = layer_blob(m, media, blobs, blob, sizeof blob);
    if (k < 0)
        add_error(l, key, path, "%s: the %s layer's digest \"%s\" is not sha256: and 64 hex digits", path, what,
                  blob);
    else if (k > 0 && stat(blob, &st) != 0)
        add_error(l, key, path, "%s: the %s layer's blob %s is missing (%s; a pull that did not finish?)", path,
                  what, blob, strerror(errno));
    else if (k > 0)
        add(l, key, blob, ncomps, comps);
}

/* The small layers of an Ollama model, shown beside it as files named
 * after them (the same for an ollama:// name: src/remote/ollama.c). */
static const char *const side_layers[] = {"template", "system", "params", "license"};

/* Each small layer of the manifest as a side file of f (its blob, size and
 * digest; a layer of another digest form is left out). */
static void ollama_sides(list *l, gg_found *f, cJSON *m, const char *blobs)
{
    cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(m, "layers"))
    {
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(it, "mediaType");
        const cJSON *dg = cJSON_GetObjectItemCaseSensitive(it, "digest");
        const cJSON *sz = cJSON_GetObjectItemCaseSensitive(it, "size");
        const char *d = cJSON_IsString(dg) ? dg->valuestring : "";
        if (!cJSON_IsString(mt) || strncmp(mt->valuestring, "application/vnd.ollama.image.", 29) ||
            !cJSON_IsNumber(sz) || sz->valuedouble < 0 || strncmp(d, "sha256:", 7) || strlen(d + 7) != 64 ||
            strspn(d + 7, "0123456789abcdef") != 64)
            continue;
        size_t k = 0;
        while (k < sizeof side_layers / sizeof *side_layers && strcmp(mt->valuestring + 29, side_layers[k]))
            k++;
        gg_side_spec *v = k < sizeof side_layers / sizeof *side_layers
                              ? realloc(f->sides, (size_t)(f->nsides + 1) * sizeof *v)
                              : NULL;
        if (!v) {
            l->oom |= k < sizeof side_layers / sizeof *side_layers;
            continue;
        }
        f->sides = v;
        gg_side_spec *sp = &v[f->nsides];
        memset(sp, 0, sizeof *sp);
        sp->name = strdup(side_layers[k]);
        if (asprintf(&sp->spec, "%s/sha256-%s", blobs, d + 7) < 0)
            sp->spec = NULL;
        sp->size = (uint64_t)sz->valuedouble;
        memcpy(sp->sha256, d + 7, 65);
        f->nsides++;
        if (!sp->name || !sp->spec)
            l->oom = 1;
    }
}

static void ollama_manifest(list *l, const char *dir, const char *mroot, const char *rel)
{
    /* rel is HOST/NS/MODEL/TAG */
    char parts[4096];
    snprintf(parts, sizeof parts, "%s", rel);
    char *c[4], *p = parts;
    int k = 0;
    for (char *s; k < 4 && (s = strsep(&p, "/"));)
        c[k++] = s;
    if (k != 4 || p)
        return;
    char path[8192], blobs[4200], key[8300], tagged[2200], ptagged[2300];
    snprintf(path, sizeof path, "%s/%s/%s", dir, mroot, rel);
    snprintf(blobs, sizeof blobs, "%s/blobs", dir);
    snprintf(key, sizeof key, "%s/%s", mroot, rel);
    char *text = read_small(path, MAX_MANIFEST);
    if (!text)
        return; /* (gone meanwhile) */
    const char *end = NULL;
    cJSON *m = cJSON_ParseWithOpts(text, &end, 0);
    if (!m || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(m, "layers"))) {
        if (!m)
            add_error(l, key, path, "%s: offset %zu: not valid JSON", path, end ? (size_t)(end - text) : (size_t)0);
        else
            add_error(l, key, path, "%s: offset 0: not an Ollama manifest (no \"layers\" array)", path);
        cJSON_Delete(m);
        free(text);
        return;
    }
    free(text);
    /* The name, nested as folders: MODEL:TAG in the library, NS/MODEL:TAG
     * in another namespace, HOST/NS/MODEL:TAG from another registry. */
    snprintf(tagged, sizeof tagged, "%s:%s", c[2], c[3]);
    const char *comps[3];
    int nc = 0;
    if (strcmp(c[0], "registry.ollama.ai"))
        comps[nc++] = c[0];
    if (nc || strcmp(c[1], "library"))
        comps[nc++] = c[1];
    comps[nc++] = tagged;
    size_t at = l->n;
    ollama_layer(l, m, path, blobs, "application/vnd.ollama.image.model", "model", key, nc, comps);
    if (l->n > at && !l->v[at].error)
        ollama_sides(l, &l->v[at], m, blobs);
    snprintf(ptagged, sizeof ptagged, "%s.projector", tagged);
    comps[nc - 1] = ptagged;
    char pkey[8400];
    snprintf(pkey, sizeof pkey, "%s#projector", key);
    ollama_layer(l, m, path, blobs, "application/vnd.ollama.image.projector", "projector", pkey, nc, comps);
    cJSON_Delete(m);
}

static void ollama_walk(list *l, const char *dir, const char *mroot, const char *rel, int depth)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s%s%s", dir, mroot, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        char sub[4096], full[8800];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        snprintf(full, sizeof full, "%s/%s", path, de->d_name);
        struct stat st;
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth < 3 && (!l->skip || st.st_dev != l->skip))
            ollama_walk(l, dir, mroot, sub, depth + 1);
        else if (S_ISREG(st.st_mode) && depth == 3)
            ollama_manifest(l, dir, mroot, sub);
    }
    closedir(d);
}

/* ---- Hugging Face hub cache ---- */

static void hf_repo(list *l, const char *dir, const char *repo_dir)
{
    /* models--ORG--NAME, or models--NAME */
    const char *id = repo_dir + 8;
    const char *sep = strstr(id, "--");
    char org[1024] = "", name[1024];
    if (sep) {
        snprintf(org, sizeof org, "%.*s", (int)(sep - id), id);
        snprintf(name, sizeof name, "%s", sep + 2);
    } else {
        snprintf(name, sizeof name, "%s", id);
    }
    char path[8192], main_rev[128] = "";
    snprintf(path, sizeof path, "%s/%s/refs/main", dir, repo_dir);
    char *ref = read_small(path, 127);
    if (ref) {
        ref[strcspn(ref, " \r\n")] = 0;
        snprintf(main_rev, sizeof main_rev, "%s", ref);
        free(ref);
    }
    snprintf(path, sizeof path, "%s/%s/snapshots", dir, repo_dir);
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        char snap[8800], named[2200];
        snprintf(snap, sizeof snap, "%s/%s", path, de->d_name);
        int is_main = main_rev[0] && !strcmp(de->d_name, main_rev);
        snprintf(named, sizeof named, "%s%s%s", name, is_main ? "" : "@", is_main ? "" : de->d_name);
        const char *prefix[2];
        int np = 0;
        if (org[0])
            prefix[np++] = org;
        prefix[np++] = named;
        size_t before = l->n;
        walk(l, snap, "", prefix, np, 0, NULL);
        /* Keys: unique across repos and revisions. */
        for (size_t i = before; i < l->n && !l->oom; i++) {
            char *k = NULL;
            if (asprintf(&k, "%s/%s/%s", repo_dir, de->d_name, l->v[i].key) < 0) {
                l->oom = 1;
                break;
            }
            free(l->v[i].key);
            l->v[i].key = k;
        }
    }
    closedir(d);
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const gg_found *)a)->key, ((const gg_found *)b)->key);
}

gg_store gg_store_detect(const char *dir)
{
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/manifests", dir);
    int manifests = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
    snprintf(p, sizeof p, "%s/manifests-v2", dir);
    manifests |= stat(p, &st) == 0 && S_ISDIR(st.st_mode);
    snprintf(p, sizeof p, "%s/blobs", dir);
    if (manifests && stat(p, &st) == 0 && S_ISDIR(st.st_mode))
        return GG_STORE_OLLAMA;
    DIR *d = opendir(dir);
    gg_store k = GG_STORE_PLAIN;
    for (struct dirent *de; d && (de = readdir(d));)
        if (!strncmp(de->d_name, "models--", 8))
            k = GG_STORE_HF;
    if (d)
        closedir(d);
    return k;
}

int gg_store_scan(const char *dir, gg_store kind, dev_t skip, gg_found **found, size_t *n, gg_err *e)
{
    list l = {0};
    l.skip = skip;
    DIR *d = opendir(dir);
    if (!d)
        return gg_fail_errno(e, errno, "%s", dir);
    if (kind == GG_STORE_AUTO)
        kind = gg_store_detect(dir);
    if (kind == GG_STORE_OLLAMA) {
        ollama_walk(&l, dir, "manifests", "", 0);
        ollama_walk(&l, dir, "manifests-v2", "", 0);
    } else if (kind == GG_STORE_HF) {
        for (struct dirent *de; (de = readdir(d));)
            if (!strncmp(de->d_name, "models--", 8))
                hf_repo(&l, dir, de->d_name);
    } else {
        walk(&l, dir, "", NULL, 0, 0, NULL);
    }
    closedir(d);
    if (l.oom) {
        gg_found_free(l.v, l.n);
        return gg_fail(e, GG_E_NOMEM, "%s: out of memory scanning it", dir);
    }
    /* In the order of their places, not the order readdir() gave: names
     * that meet (x.gguf and x/y.gguf) get their ~2 the same way on every
     * file system. */
    if (l.n > 1)
        qsort(l.v, l.n, sizeof *l.v, by_key);
    *found = l.v;
    *n = l.n;
    return 0;
}

/* ---- is a file being written? ---- */

static int lease_says(const char *path, int *why)
{
    /* O_NONBLOCK: where someone holds a write lease, the open fails rather
     * than wait for it to be broken (they have it open for writing). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *why = errno;
        return errno == EWOULDBLOCK ? 1 : -1;
    }
    int rc = 0;
    if (fcntl(fd, F_SETLEASE, F_RDLCK) == 0)
        fcntl(fd, F_SETLEASE, F_UNLCK);
    else if (errno == EAGAIN)
        rc = 1;
    else
        *why = errno, rc = -1;
    close(fd);
    return rc;
}

int gg_store_writing(const char *spec, int *why)
{
    *why = 0;
    int rc = lease_says(spec, why);
    size_t n = strlen(spec);
    int part = 0;
    long cut = gg_shard_suffix(spec, n, &part);
    if (cut < 0 || part != 1 || rc > 0)
        return rc;
    int count = atoi(spec + cut + 10); /* "-00001-of-00003.gguf" */
    for (int k = 2; k <= count && k <= 99999 && rc <= 0; k++) {
        char p[8192];
        struct stat st;
        snprintf(p, sizeof p, "%.*s-%05d-of-%.5s.gguf", (int)cut, spec, k, spec + cut + 10);
        if (stat(p, &st) != 0)
            continue;
        int w = 0, r = lease_says(p, &w);
        if (r != 0 && (r > 0 || rc == 0))
            rc = r, *why = w;
    }
    return rc;
}

char *gg_store_default_dir(gg_store kind, int lmstudio, gg_err *e)
{
    const char *home = getenv("HOME");
    char *out = NULL;
    struct stat st;
    if (kind == GG_STORE_OLLAMA) {
        const char *env = getenv("OLLAMA_MODELS");
        if (env && *env)
            out = strdup(env);
        else if (home && asprintf(&out, "%s/.ollama/models", home) >= 0 && stat(out, &st) != 0) {
            free(out);
            out = strdup("/usr/share/ollama/.ollama/models"); /* the Linux service's home */
        }
    } else if (kind == GG_STORE_HF) {
        const char *c = getenv("HF_HUB_CACHE"), *h = getenv("HF_HOME");
        if (c && *c)
            out = strdup(c);
        else if (h && *h) {
            if (asprintf(&out, "%s/hub", h) < 0)
                out = NULL;
        } else if (home) {
            if (asprintf(&out, "%s/.cache/huggingface/hub", home) < 0)
                out = NULL;
        }
    } else if (lmstudio && home) {
        /* Newer versions keep models in ~/.lmstudio/models, older ones in
         * ~/.cache/lm-studio/models. */
        if (asprintf(&out, "%s/.lmstudio/models", home) >= 0 && stat(out, &st) != 0) {
            free(out);
            if (asprintf(&out, "%s/.cache/lm-studio/models", home) < 0)
                out = NULL;
        }
    }
    if (!out)
        gg_fail(e, GG_E_NOTFOUND, "no default folder for that store ($HOME is not set?)");
    return out;
}
