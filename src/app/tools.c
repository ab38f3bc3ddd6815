/* tools.c - the commands that need no FUSE: --dump, --verify, --cat and
 * --compare. */
#include "tools.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <fnmatch.h>
#include <sys/uio.h>
#include <omp.h>
#include <stdatomic.h>

#include "gguffs/compare.h"
#include "gguffs/editfile.h"
#include "gguffs/kvget.h"
#include "gguffs/kvparse.h"
#include "gguffs/scope.h"
#include "gguffs/model.h"
#include "gguffs/render.h"
#include "gguffs/modeltext.h"
#include "gguffs/tree.h"
#include "gguffs/view.h"
#include "mountset.h"

static int open_model(gg_model *m, const char *path, const gg_open_opts *o)
{
    gg_err e;
    if (gg_model_open(m, path, o, &e) == 0)
        return GG_EXIT_OK;
    fprintf(stderr, "gguffs: %s\n", e.msg);
    gg_model_close(m);
    return gg_exit_for(e.code);
}

#define SHORT_ARRAY 8 /* elements shown of a long array unless --full */

/* Value of KV i on one line, arrays shortened to their first elements
 * unless full (only those are rendered); strings escaped as TSV fields
 * (render.h), so a hostile file's control bytes never reach the terminal. */
static void kv_value_text(const gg_file *f, const gg_kv *kv, int full, gg_buf *out)
{
    gg_buf txt = {0};
    uint64_t max = full ? UINT64_MAX : SHORT_ARRAY;
    gg_render_kv_text_n(f, kv, max, &txt);
    if (kv->type != GG_VT_ARR) {
        gg_buf_put(out, txt.p, txt.len ? txt.len - 1 : 0); /* (without its "\n") */
    } else {
        gg_buf_printf(out, "[%" PRIu64 " x %s]", kv->arr_n, gg_vtype_name(kv->arr_type));
        size_t line = 0;
        uint64_t shown = 0;
        for (size_t i = 0; i < txt.len; i++) {
            if (txt.p[i] != '\n')
                continue;
            gg_buf_puts(out, shown ? ", " : " ");
            gg_buf_put(out, txt.p + line, i - line);
            line = i + 1;
            shown++;
        }
        if (shown < kv->arr_n)
            gg_buf_printf(out, ", ... (%" PRIu64 " more)", kv->arr_n - shown);
    }
    gg_buf_free(&txt);
}

/* Text from the file, escaped (gg_tsv_field), to stdout. */
static void put_field(const char *s, size_t n)
{
    gg_buf b = {0};
    gg_tsv_field(&b, s, n);
    if (b.p)
        fwrite(b.p, 1, b.len, stdout);
    gg_buf_free(&b);
}

static void dims(const gg_tinfo *ti, int numpy, gg_buf *out)
{
    for (uint32_t d = 0; d < ti->n_dims; d++)
        gg_buf_printf(out, "%s%" PRIu64, d == 0 ? "" : numpy ? ", " : " x ",
                      ti->ne[numpy ? ti->n_dims - 1 - d : d]);
}

/* The files of a model: one line for a plain file, one per shard of a split set. */
static void dump_files(const gg_model *m)
{
    for (uint32_t i = 0; i < m->nshards; i++) {
        const gg_shard *sh = &m->shards[i];
        if (m->nshards > 1)
            printf("shard %" PRIu32 " of %" PRIu32 ": ", i + 1, m->nshards);
        put_field(sh->src->name, strlen(sh->src->name));
        printf(": GGUF version %" PRIu32 ", %" PRIu64 " key/value pairs, %" PRIu64
               " tensors, alignment %" PRIu32 ", data at %" PRIu64 ", %" PRIu64 " bytes\n",
               sh->f.version, sh->f.n_kv, sh->f.n_tensors, sh->f.alignment, sh->f.data_offset,
               sh->src->size);
    }
    if (m->nshards > 1)
        printf("split model: %" PRIu64 " tensors, %" PRIu64 " bytes in %" PRIu32
               " files; metadata below is shard 1's\n", m->nt, m->size, m->nshards);
}

static void dump_text(const gg_model *m, int full)
{
    const gg_file *f = m->f;
    dump_files(m);
    printf("\n# metadata\n");
    for (uint64_t i = 0; i < f->n_kv; i++) {
        const gg_kv *kv = &f->kv[i];
        gg_buf line = {0};
        gg_buf_printf(&line, "%5" PRIu64 " %-5s ", i, gg_vtype_name(kv->type));
        gg_tsv_field(&line, gg_str_ptr(f, kv->key), kv->key.len);
        gg_buf_puts(&line, " = ");
        kv_value_text(f, kv, full, &line);
        if (line.p)
            fwrite(line.p, 1, line.len, stdout);
        putchar('\n');
        gg_buf_free(&line);
    }
    int split = m->nshards > 1;
    printf("\n# tensors%s\n%5s %-10s %-22s %s%14s %12s %7s  %s\n",
           split ? " (file: the shard holding the tensor; offset: in that file)" : "", "#", "type",
           "shape (numpy)", split ? " file " : "", "offset", "bytes", "bpw", "name");
    uint64_t total = 0;
    for (uint64_t i = 0; i < m->nt; i++) {
        const gg_tensor *t = &m->t[i];
        gg_buf sh = {0};
        gg_buf_puts(&sh, "(");
        dims(t->info, 1, &sh);
        gg_buf_puts(&sh, ")");
        char bpw[16] = "-", file[16] = "";
        if (t->info->nelems)
            snprintf(bpw, sizeof bpw, "%.3f", t->nbytes * 8.0 / (double)t->info->nelems);
        if (split)
            snprintf(file, sizeof file, "%5" PRIu32 " ", t->shard + 1);
        char ty[32];
        if (t->type)
            snprintf(ty, sizeof ty, "%s", t->type->name);
        else
            snprintf(ty, sizeof ty, "?%" PRIu32, t->info->type_id);
        printf("%5" PRIu64 " %-10s %-22s %s%14" PRIu64 " %12" PRIu64 " %7s  ", i, ty, sh.p ? sh.p : "", file,
               t->abs_offset, t->nbytes, bpw);
        put_field(t->name, t->name_len);
        if (t->err) {
            fputs("  # ", stdout);
            put_field(t->err->msg, strlen(t->err->msg));
        }
        putchar('\n');
        total += t->nbytes;
        gg_buf_free(&sh);
    }
    printf("\n%" PRIu64 " tensors, %" PRIu64 " bytes of tensor data\n", m->nt, total);
}

/* As JSON: the header, every key as metadata.json has it (arrays cut to
 * their first elements unless full: "value" holds those, "n" says how many
 * there are), the files, and every tensor's info.json. */
static void dump_json(const gg_model *m, int full)
{
    const gg_file *f = m->f;
    gg_buf out = {0};
    gg_buf_printf(&out, "{\n  \"file\": ");
    gg_json_string(&out, m->path, strlen(m->path));
    /* (the file's version and data offset; the keys', edited or not) */
    gg_buf_printf(&out, ",\n  \"version\": %" PRIu32 ",\n  \"alignment\": %" PRIu32
                  ",\n  \"data_offset\": %" PRIu64 ",\n  \"n_kv\": %" PRIu64 ",\n  \"n_tensors\": %" PRIu64,
                  m->shards[0].f.version, f->alignment, m->shards[0].f.data_offset, f->n_kv, m->nt);
    if (m->nshards > 1) {
        gg_buf_puts(&out, ",\n  \"shards\": [");
        for (uint32_t i = 0; i < m->nshards; i++) {
            gg_buf_puts(&out, i ? ", " : "");
            gg_json_string(&out, m->shards[i].src->name, strlen(m->shards[i].src->name));
        }
        gg_buf_puts(&out, "]");
    }
    gg_buf_puts(&out, ",\n  \"metadata\": {");
    int oom;
    char **keys = gg_metadata_json_keys(f, &oom);
    for (uint64_t i = 0; i < f->n_kv; i++) {
        const gg_kv *kv = &f->kv[i];
        gg_buf_puts(&out, i ? ",\n    " : "\n    ");
        if (keys && keys[i])
            gg_buf_printf(&out, "\"%s\"", keys[i]);
        else
            gg_json_string(&out, gg_str_ptr(f, kv->key), kv->key.len);
        gg_buf_printf(&out, ": {\"type\": \"%s\", ", gg_vtype_name(kv->type));
        if (keys && keys[i]) {
            gg_buf_puts(&out, "\"key_hex\": \"");
            gg_hex(&out, gg_str_ptr(f, kv->key), kv->key.len);
            gg_buf_puts(&out, "\", ");
        }
        if (kv->type == GG_VT_ARR)
            gg_buf_printf(&out, "\"arr_type\": \"%s\", \"n\": %" PRIu64 ", ", gg_vtype_name(kv->arr_type),
                          kv->arr_n);
        gg_buf_puts(&out, "\"value\": ");
        gg_render_value_json(f, kv, full ? UINT64_MAX : SHORT_ARRAY, &out);
        gg_buf_puts(&out, "}");
    }
    gg_metadata_json_keys_free(f, keys);
    gg_buf_puts(&out, "\n  },\n  \"tensors\": [");
    for (uint64_t i = 0; i < m->nt; i++) {
        gg_buf_puts(&out, i ? ",\n" : "\n");
        gg_tensor_info_json(m, &m->t[i], &out);
    }
    gg_buf_puts(&out, "]\n}\n");
    if (out.p)
        fwrite(out.p, 1, out.len, stdout);
    gg_buf_free(&out);
}

/* A model with the edits of -o edits=FILE (editfile.h): the model, what
 * names it in the file, the edits, and the keys they make (f). */
typedef struct edited {
    gg_model m;
    gg_model_ident id;
    gg_edits ed;
    gg_file f;
    int have_f;
} edited;

static void close_edited(edited *x)
{
    if (x->have_f)
        gg_file_free(&x->f);
    gg_edits_free(&x->ed);
    gg_model_ident_free(&x->id);
    gg_model_close(&x->m);
}

/* 0, or an exit status after a message (x closed). */
static int open_edited(const char *path, const gg_tool_opts *o, edited *x)
{
    memset(x, 0, sizeof *x);
    int rc = open_model(&x->m, path, o->open);
    if (rc != GG_EXIT_OK)
        return rc;
    gg_err e;
    if (gg_editfile_load(o->edits, &x->m, &x->id, &x->ed, &e)) {
        fprintf(stderr, "gguffs: %s\n", e.msg);
        rc = gg_exit_for(e.code);
    } else if (gg_edits_apply(x->m.f, &x->ed, x->m.path, &x->f, &e)) {
        fprintf(stderr, "gguffs: edits file %s: %s\n", o->edits, e.msg);
        rc = gg_exit_for(e.code);
    } else {
        x->have_f = 1;
    }
    if (rc)
        close_edited(x);
    return rc;
}

int gg_tool_dump(const char *path, const gg_tool_opts *o)
{
    edited x;
    int rc = o->edits ? open_edited(path, o, &x) : open_model(&x.m, path, o->open);
    if (rc != GG_EXIT_OK)
        return rc;
    gg_model *m = &x.m;
    if (o->edits && x.ed.n) /* the model as a mount with these edits shows it */
        m->f = &x.f;
    if (o->json)
        dump_json(m, o->full);
    else
        dump_text(m, o->full);
    m->f = &m->shards[0].f;
    if (o->edits)
        close_edited(&x);
    else
        gg_model_close(m);
    return rc;
}

/* One --set or --remove of o->sets on ed (whose keys are *f, made again). */
static int set_one(const gg_model *m, const char *op, gg_edits *ed, gg_file *f, gg_err *e)
{
    const char *kv = op + 1, *eq = op[0] == '=' ? strchr(kv, '=') : NULL;
    size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
    gg_vdesc type, *fresh = NULL;
    /* KEY:TYPE=VALUE names the type of a new key */
    const char *colon = eq ? memrchr(kv, ':', klen) : NULL;
    char tname[64];
    if (colon && (size_t)(eq - colon - 1) < sizeof tname) {
        memcpy(tname, colon + 1, (size_t)(eq - colon - 1));
        tname[eq - colon - 1] = 0;
        if (gg_vdesc_parse(tname, &type) == 0) {
            fresh = &type;
            klen = (size_t)(colon - kv);
        }
    }
    const gg_kv *have = gg_kv_named(f, kv, klen);
    if (!klen)
        return gg_fail(e, GG_E_INVAL, "%s: no key", op + 1);
    if (op[0] == '-') {
        if (!have)
            return gg_fail(e, GG_E_INVAL, "--remove %s: no such key", kv);
        if (gg_edits_remove(ed, m->f, kv, klen))
            return gg_fail(e, GG_E_NOMEM, "out of memory");
    } else {
        if (have && fresh) {
            gg_vdesc d;
            gg_vdesc_of(f, have, &d);
            if (memcmp(&d, fresh, sizeof d))
                return gg_fail(e, GG_E_INVAL, "%.*s is a key of type %s already: a key keeps its type", (int)klen,
                               kv, (gg_vdesc_name(&d, tname, sizeof tname), tname));
        }
        int changed;
        if (gg_edits_set_text(ed, f, kv, klen, fresh, eq + 1, strlen(eq + 1), &changed, e)) {
            gg_err_prefix(e, "%.*s", (int)(klen < 200 ? klen : 200), kv);
            return -1;
        }
    }
    gg_file g;
    if (gg_edits_apply(m->f, ed, m->path, &g, e))
        return -1;
    gg_file_free(f);
    *f = g;
    return 0;
}

int gg_tool_set(const char *path, const gg_tool_opts *o)
{
    edited x;
    gg_err e;
    int rc = open_edited(path, o, &x);
    if (rc != GG_EXIT_OK)
        return rc;
    for (int i = 0; !rc && i < o->nsets; i++) {
        if (set_one(&x.m, o->sets[i], &x.ed, &x.f, &e)) {
            fprintf(stderr, "gguffs --set: %s (%s not changed)\n", e.msg, o->edits);
            rc = e.code == GG_E_NOMEM ? GG_EXIT_INTERNAL : GG_EXIT_USAGE;
        }
    }
    if (!rc && gg_editfile_save(o->edits, &x.m, &x.id, &x.f, &x.ed, &e)) {
        fprintf(stderr, "gguffs --set: %s\n", e.msg);
        rc = GG_EXIT_INTERNAL;
    }
    if (!rc)
        fprintf(stderr, "gguffs --set: %d change%s saved in %s\n", o->nsets, o->nsets == 1 ? "" : "s", o->edits);
    close_edited(&x);
    return rc;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The bar on stderr: done of total units of `unit` bytes each. */
static void progress(uint64_t done, uint64_t total, double t0, double unit)
{
    double dt = now() - t0;
    int width = 40, fill = total ? (int)(width * (double)done / (double)total) : width;
    fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %.0f MB/s ", fill, "########################################",
            width - fill, "", total ? 100.0 * (double)done / (double)total : 100.0,
            dt > 0 ? (double)done * unit / dt / 1e6 : 0.0);
}

static int selected(const gg_tensor *t, const gg_tool_opts *o)
{
    if (!o->n_only)
        return 1;
    char *name = strndup(t->name, t->name_len);
    int hit = 0;
    for (int i = 0; name && i < o->n_only && !hit; i++)
        hit = fnmatch(o->only[i], name, 0) == 0;
    free(name);
    return hit;
}

/* Decode one tensor in chunks on every decode thread; counts NaN and Inf.
 * Returns NULL or what went wrong. */
static const char *verify_tensor(gg_reader *r, const gg_model *m, const gg_tensor *t, int nthreads,
                                 uint64_t *nan_out, uint64_t *inf_out, _Atomic uint64_t *done,
                                 uint64_t total, double t0, int tty)
{
    if (t->err || !t->type)
        return t->err ? t->err->msg : "type unknown";
    const uint64_t chunk_elems = 1u << 20;
    uint64_t g = gg_layout_granule(&t->layout), n = t->layout.nelems;
    uint64_t step = chunk_elems / g * g;
    if (step == 0)
        step = g;
    uint64_t nchunks = (n + step - 1) / step, nan = 0, inf = 0;
    int failed = 0, oom = 0;
#pragma omp parallel num_threads(nthreads) reduction(+ : nan, inf) reduction(|| : failed, oom)
    {
        float *b = malloc(step * sizeof(float));
        if (!b)
            oom = 1;
#pragma omp for schedule(dynamic, 1)
        for (uint64_t k = 0; k < nchunks; k++) {
            if (!b || failed)
                continue;
            uint64_t e = k * step, e1 = e + step < n ? e + step : n;
            if (gg_decode_elems(r, m, t, e, e1, b, NULL) != 0) {
                failed = 1;
                continue;
            }
            for (uint64_t i = 0; i < e1 - e; i++) {
                nan += isnan(b[i]) != 0;
                inf += isinf(b[i]) != 0;
            }
            uint64_t d = atomic_fetch_add(done, e1 - e) + (e1 - e);
            if (tty && omp_get_thread_num() == 0)
                progress(d, total, t0, 4.0);
        }
        free(b);
    }
    *nan_out = nan;
    *inf_out = inf;
    return oom ? "out of memory" : failed ? "read error" : NULL;
}

int gg_tool_verify(const char *path, const gg_tool_opts *o)
{
    gg_model m;
    int rc = open_model(&m, path, o->open);
    if (rc != GG_EXIT_OK)
        return rc;
    gg_reader *r = gg_reader_new(o->reader);
    if (!r) {
        gg_model_close(&m);
        return GG_EXIT_INTERNAL;
    }
    int nthreads = o->reader->threads > 0 ? o->reader->threads : omp_get_num_procs();
    int tty = isatty(2);
    uint64_t total = 0, nsel = 0, bad_tensors = 0;
    _Atomic uint64_t done = 0;
    for (uint64_t i = 0; i < m.nt; i++) {
        if (selected(&m.t[i], o)) {
            total += m.t[i].info->nelems;
            nsel++;
        }
    }
    double t0 = now();
    printf("tensor\ttype\tstatus\tnan\tinf\n");
    for (uint64_t i = 0; i < m.nt; i++) {
        const gg_tensor *t = &m.t[i];
        if (!selected(t, o))
            continue;
        uint64_t nan = 0, inf = 0;
        const char *err = verify_tensor(r, &m, t, nthreads, &nan, &inf, &done, total, t0, tty);
        int ok = !err && !nan && !inf;
        bad_tensors += !ok;
        if (tty)
            fprintf(stderr, "\r%*s\r", 70, "");
        put_field(t->name, t->name_len);
        printf("\t%s\t", t->type ? t->type->name : "unknown");
        if (err)
            put_field(err, strlen(err));
        else
            fputs(ok ? "ok" : "non-finite", stdout);
        printf("\t%" PRIu64 "\t%" PRIu64 "\n", nan, inf);
        fflush(stdout);
    }
    if (tty)
        fprintf(stderr, "\r%*s\r", 70, "");
    if (o->n_only && !nsel)
        fprintf(stderr, "gguffs --verify: no tensor matches --tensor\n");
    fprintf(stderr, "gguffs --verify: %" PRIu64 " tensors, %" PRIu64 " with problems (%.1f s, %d threads)\n",
            nsel, bad_tensors, now() - t0, nthreads);
    gg_reader_free(r);
    gg_model_close(&m);
    return bad_tensors || (o->n_only && !nsel) ? GG_EXIT_VERIFY : GG_EXIT_OK;
}

/* ---- -o imatrix= ---- */

int gg_tool_imatrix(const char *path, const gg_open_opts *o, gg_imatrix **out)
{
    gg_err e;
    *out = NULL;
    if (!path || (*out = gg_imatrix_load(path, o, &e)))
        return GG_EXIT_OK;
    fprintf(stderr, "gguffs: -o imatrix=%s: %s\n", path, e.msg);
    return gg_exit_for(e.code);
}

/* ---- --cat ---- */

/* Up to 16 names of a folder, for a message. */
typedef struct names16 {
    gg_buf b;
    int n;
} names16;

static int collect_name(void *arg, const char *name, gg_ino ino, gg_kind kind)
{
    names16 *l = arg;
    if (l->n++ == 16) {
        gg_buf_puts(&l->b, " ...");
        return 1;
    }
    gg_buf_puts(&l->b, " ");
    gg_tsv_field(&l->b, name, strlen(name));
    if (kind == GG_K_DIR)
        gg_buf_puts(&l->b, "/");
    return 0;
}

static void say_holds(gg_tree *t, gg_ino dir, const char *shown)
{
    names16 l = {{0}, 0};
    gg_err e;
    gg_tree_readdir(t, dir, 0, collect_name, &l, &e);
    fprintf(stderr, "gguffs --cat: %s holds:%s\n", shown, l.b.len ? l.b.p : " nothing");
    gg_buf_free(&l.b);
}

/* The file at path (names separated by '/', as ls shows them; "." and
 * ".." as usual; symbolic links followed), or an exit status after a
 * message. */
static int walk_path(gg_tree *t, int single, const char *model, const char *path, gg_ino *out)
{
    gg_ino at = GG_ROOT;
    char *todo = strdup(path); /* what is left to walk */
    const char *p = todo;
    int links = 0, rc = todo ? GG_EXIT_OK : GG_EXIT_INTERNAL, at_dir = 1;
    gg_buf done = {0}; /* what was walked, for messages */
    gg_buf_puts(&done, model);
    while (!rc) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, "/");
        char *name = strndup(p, n);
        p += n;
        if (!name) {
            rc = GG_EXIT_INTERNAL;
            break;
        }
        gg_err e;
        gg_ino next;
        gg_attr a;
        if (!at_dir) {
            fprintf(stderr, "gguffs --cat: %s: %s is a file, not a folder\n", path, done.p);
            rc = GG_EXIT_NO_PATH;
        } else if (!strcmp(name, ".") || !strcmp(name, "..")) {
            if (name[1])
                at = gg_tree_parent(t, at);
            gg_buf_printf(&done, "/%s", name);
        } else if (gg_tree_lookup(t, at, name, &next, &e)) {
            if (e.code == GG_E_NOENT) {
                fprintf(stderr, "gguffs --cat: %s: no \"%s\" in %s/\n", path, name, done.p);
                say_holds(t, at, done.p);
                /* (one model has no vs/: --cat opens what MODEL names) */
                if (single && at == GG_ROOT && !strcmp(name, "vs"))
                    fprintf(stderr, "gguffs --cat: vs/ is in each model of a mount of several: name a folder "
                                    "that holds them (gguffs --cat FOLDER MODEL/vs/REF/tensors.tsv), or run "
                                    "gguffs --compare MODEL REF\n");
            } else {
                fprintf(stderr, "gguffs --cat: %s: %s\n", path, e.msg);
            }
            rc = e.code == GG_E_NOENT ? GG_EXIT_NO_PATH : gg_exit_for(e.code);
        } else if (gg_tree_getattr(t, next, &a, &e)) {
            fprintf(stderr, "gguffs --cat: %s: %s\n", path, e.msg);
            rc = gg_exit_for(e.code);
        } else if (a.kind == GG_K_LINK) {
            /* blocks/N/x -> ../../tensors/blk.N.x: the target, then the
             * rest, from the link's folder */
            char target[4096], *more = NULL;
            if (++links > 8 || gg_tree_readlink(t, next, target, sizeof target, &e) < 0) {
                fprintf(stderr, "gguffs --cat: %s: cannot follow the link %s/%s\n", path, done.p, name);
                rc = GG_EXIT_NO_PATH;
            } else if (asprintf(&more, "%s/%s", target, p) < 0) {
                rc = GG_EXIT_INTERNAL;
            } else {
                free(todo);
                p = todo = more;
            }
        } else {
            gg_buf_printf(&done, "/%s", name);
            at = next;
            at_dir = a.kind == GG_K_DIR;
        }
        free(name);
    }
    free(todo);
    gg_attr a;
    gg_err e;
    if (!rc && gg_tree_getattr(t, at, &a, &e)) {
        fprintf(stderr, "gguffs --cat: %s: %s\n", path, e.msg);
        rc = gg_exit_for(e.code);
    } else if (!rc && a.kind == GG_K_DIR) {
        fprintf(stderr, "gguffs --cat: %s: is a folder, not a file\n", path);
        say_holds(t, at, done.p);
        rc = GG_EXIT_NO_PATH;
    }
    gg_buf_free(&done);
    *out = at;
    return rc;
}

static int write_iov(struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(1, iov, n > IOV_MAX ? IOV_MAX : n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (; n > 0 && (size_t)w >= iov->iov_len; iov++, n--)
            w -= (ssize_t)iov->iov_len;
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

#define CAT_CHUNK (1u << 20)

/* Stream the file to stdout, straight from the cached pages. */
static int cat_file(gg_tree *t, gg_ino ino, const char *path)
{
    gg_err e;
    gg_attr a;
    gg_open_file *of;
    if (gg_tree_getattr(t, ino, &a, &e) || gg_tree_open(t, ino, &of, &e)) {
        fprintf(stderr, "gguffs --cat: %s: %s\n", path, e.msg);
        return gg_exit_for(e.code);
    }
    char *buf = malloc(CAT_CHUNK);
    int tty = isatty(2) && !isatty(1), rc = buf ? GG_EXIT_OK : GG_EXIT_INTERNAL;
    double t0 = now(), shown = 0;
    uint64_t off = 0;
    while (!rc) {
        gg_ref ref;
        ssize_t got = gg_tree_read_ref(t, ino, of, buf, CAT_CHUNK, off, &ref, &e);
        if (got < 0) {
            if (tty)
                fprintf(stderr, "\n");
            fprintf(stderr, "gguffs --cat: %s: at byte %" PRIu64 ": %s\n", path, off, e.msg);
            rc = gg_exit_for(e.code);
            break;
        }
        if (got == 0)
            break;
        int w = write_iov(ref.iov, ref.niov);
        gg_tree_read_done(t, &ref);
        if (w) {
            if (errno != EPIPE)
                fprintf(stderr, "gguffs --cat: writing %s: %s\n", path, strerror(errno));
            rc = GG_EXIT_INTERNAL;
            break;
        }
        off += (uint64_t)got;
        if (tty && now() - shown > 0.1) {
            progress(off, a.size, t0, 1.0);
            shown = now();
        }
    }
    if (tty && !rc)
        fprintf(stderr, "\r%*s\r", 70, "");
    if (!rc && off != a.size && !a.live) {
        fprintf(stderr, "gguffs --cat: %s: %" PRIu64 " bytes read, its size is %" PRIu64 "\n", path, off, a.size);
        rc = GG_EXIT_INTERNAL;
    }
    free(buf);
    gg_tree_close(t, of);
    return rc;
}

int gg_tool_cat(gg_cli *c)
{
    gg_net *net = NULL;
    gg_shelf *shelf = NULL;
    gg_reader *reader = NULL;
    gg_tree *tree = NULL;
    gg_imatrix *im = NULL;
    int single = 0;
    int rc = gg_tool_imatrix(c->imatrix, &c->open, &im);
    c->tree.imatrix = im;
    if (!rc)
        rc = gg_mountset(c, 1, &net, &shelf, &single);
    if (!rc)
        rc = gg_mountset_edits(c, single, 0);
    if (!rc) {
        gg_err e;
        if (!(reader = gg_reader_new(&c->reader))) {
            fprintf(stderr, "gguffs: out of memory\n");
            rc = GG_EXIT_INTERNAL;
        } else if (!(tree = gg_tree_new_shelf(shelf, single, reader, &c->tree, &e))) {
            fprintf(stderr, "gguffs: %s\n", e.msg);
            rc = gg_exit_for(e.code);
        }
    }
    gg_ino ino;
    if (!rc)
        rc = walk_path(tree, single, c->pos[0], c->pos[1], &ino);
    if (!rc)
        rc = cat_file(tree, ino, c->pos[1]);
    /* as a mount ends: the tree, the shelf, then what they read through */
    gg_tree_free(tree);
    gg_shelf_free(shelf);
    gg_imatrix_free(im);
    gg_reader_free(reader);
    gg_net_free(net);
    return rc;
}

/* ---- --compare ---- */

/* --compare's progress bar: the elements folded of all pairs. */
typedef struct cmp_progress {
    uint64_t total;
    double t0;
} cmp_progress;

static void cmp_tick(void *arg, uint64_t done)
{
    cmp_progress *p = arg;
    progress(done, p->total, p->t0, 4.0); /* (f32 bytes of this model) */
}

/* Ctrl-C (SIGINT), SIGTERM or SIGHUP during --compare: the figures stop
 * being computed (scope.h), what was opened is closed, and gguffs then dies
 * of the signal, as its caller expects. */
static volatile sig_atomic_t compare_signal;

static void on_compare_signal(int sig)
{
    compare_signal = sig;
    gg_scope_stop_all();
}

int gg_tool_compare(const char *model, const char *ref, const gg_tool_opts *o)
{
    gg_catch_stop_signals(on_compare_signal);
    gg_model a, b;
    int rc = open_model(&a, model, o->open);
    if (rc != GG_EXIT_OK)
        return rc;
    if ((rc = open_model(&b, ref, o->open)) != GG_EXIT_OK) {
        gg_model_close(&a);
        return rc;
    }
    gg_err e = {0}; /* (a message not said yet) */
    gg_imatrix *im = NULL;
    gg_reader *r = NULL;
    gg_cmp *c = NULL;
    gg_cmp_stats st = {0};
    cmp_progress pr = {0, now()};
    rc = gg_tool_imatrix(o->imatrix, o->open, &im);
    if (!rc && !(r = gg_reader_new(o->reader)))
        rc = GG_EXIT_INTERNAL + 0 * gg_fail(&e, GG_E_NOMEM, "out of memory");
    else if (!rc && !(c = gg_cmp_new(&a, &b, im, &st, &e)))
        rc = GG_EXIT_INTERNAL;
    int tty = isatty(2);
    if (!rc && tty) {
        for (size_t k = 0; k < gg_cmp_pairs(c); k++)
            pr.total += a.t[gg_cmp_tensor(c, k)].info->nelems;
        st.tick = cmp_tick;
        st.tick_arg = &pr;
    }
    /* The cache ids of the two models' tensors, apart (as the tree gives them). */
    gg_cmp_side sa = {r, &a, 0, NULL}, sb = {r, &b, (uint32_t)a.nt + 1, NULL};
    if (!rc && gg_cmp_compute_all(c, &sa, &sb, &e))
        rc = gg_exit_for(e.code);
    if (tty)
        fprintf(stderr, "\r%*s\r", 70, "");
    if (compare_signal) {
        fprintf(stderr, "gguffs --compare: interrupted (%" PRIu64 " of %zu tensors compared)\n",
                atomic_load(&st.tensors), c ? gg_cmp_pairs(c) : (size_t)0);
        e.msg[0] = 0;
        rc = rc ? rc : GG_EXIT_INTERNAL;
    }
    gg_cmp_table t;
    if (!rc && gg_cmp_table_make(c, &a, &b, 1, &t, &e))
        rc = GG_EXIT_INTERNAL;
    if (!rc) {
        gg_buf out = {0};
        if (o->json)
            gg_compare_summary_json(&t, &out);
        else
            gg_compare_tsv(&t, &out);
        if (out.oom)
            rc = GG_EXIT_INTERNAL + 0 * gg_fail(&e, GG_E_NOMEM, "out of memory");
        else if (out.len)
            fwrite(out.p, 1, out.len, stdout);
        gg_buf_free(&out);
        gg_cmp_table_free(&t);
    }
    if (rc && e.msg[0])
        fprintf(stderr, "gguffs --compare: %s\n", e.msg);
    gg_cmp_free(c);
    gg_reader_free(r);
    gg_imatrix_free(im);
    gg_model_close(&b);
    gg_model_close(&a);
    if (compare_signal) {
        signal(compare_signal, SIG_DFL);
        raise(compare_signal);
    }
    return rc;
}
