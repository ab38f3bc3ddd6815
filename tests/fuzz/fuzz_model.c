/* fuzz_model - the GGUF parser, model opening (split models, type-id
 * resolution, tensor placement) and everything the tree serves, on any bytes.
 *
 * The input is written to a file in a fresh folder on tmpfs and opened with
 * gg_model_open(); if it holds the marker "\n~SHARD~\n" the pieces between
 * markers become the shards NAME-0000i-of-0000n.gguf of a split model. When
 * the model opens, the tree is built (the model twice, as two folders, for
 * some input sizes) and every node is visited: names, lookups, xattrs, the
 * whole text of every generated file, raw reads at several offsets (compared
 * with the input bytes), f32 reads at several offsets, as one big read and
 * as sequential page reads (all compared with each other), stats, and the
 * GGUF views (model.gguf, as/: their headers parsed back).
 *
 * Properties checked besides "no crash, no leak, no UB": an open failure has
 * a message; names escape to valid file names that unescape to the GGUF
 * name and are found by lookup; JSON files (as/hf/'s too) parse; an array's file has one
 * line per element; tensors.tsv one line per tensor; raw bytes are the file's
 * bytes; f32 reads of one range agree whatever path served them; f32 fails
 * with EIO exactly when info.json says it is not readable. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "gguffs/export.h"
#include "gguffs/halfconv.h"
#include "gguffs/model.h"
#include "gguffs/names.h"
#include "gguffs/recipe.h"
#include "gguffs/gguf_write.h"
#include "app/tools.h"
#include "tree/modeltree.h" /* the harness walks every node of a model's tree */

/* The command line's exit status for an open's outcome. */
static int gg_tool_exit_status(const gg_err *e) { return e ? gg_exit_for(e->code) : GG_EXIT_OK; }
#include "gguffs/tree.h"
#include "gguffs/view.h"

#define MARK "\n~SHARD~\n"
#define MARK_LEN 9
#define MAX_SHARDS 4
#define HEAVY_TENSORS 64          /* tensors read in full (when small) */
#define FULL_F32_ELEMS (1u << 15) /* read whole f32 / stats up to this many elements */

static const char *tmp_base;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    tmp_base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    /* --dump prints to stdout; libFuzzer reports on stderr. */
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, 1);
        close(null);
    }
    return 0;
}

typedef struct piece {
    const uint8_t *p;
    size_t n;
} piece;

static int write_file(const char *path, const uint8_t *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k <= 0) {
            close(fd);
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return close(fd);
}

/* The model tree's calls with -errno results, as the FUSE layer sees them. */
static ssize_t rd(gg_mtree *t, uint32_t i, char *buf, size_t n, uint64_t off, gg_open_file *of)
{
    gg_err e;
    gg_ref ref;
    ssize_t k = gg_mtree_read_ref(t, i, of, buf, n, off, &ref, &e);
    if (k < 0)
        return -gg_code_errno(e.code);
    size_t at = 0;
    for (int j = 0; j < ref.niov; j++) {
        if (ref.iov[j].iov_base != buf + at)
            memmove(buf + at, ref.iov[j].iov_base, ref.iov[j].iov_len);
        at += ref.iov[j].iov_len;
    }
    gg_ref_release(t->reader, &ref);
    return k;
}

static int64_t node_size(gg_mtree *t, uint32_t i)
{
    gg_err e;
    gg_attr a;
    return gg_mtree_getattr(t, i, &a, &e) ? -gg_code_errno(e.code) : (int64_t)a.size;
}

static uint32_t lookup(gg_mtree *t, uint32_t parent, const char *name) { return gg_mtree_find(t, parent, name); }

static int xattr_get(gg_mtree *t, uint32_t i, const char *name, char *val, size_t cap)
{
    gg_err e;
    int k = gg_mtree_getxattr(t, i, name, val, cap, &e);
    return k < 0 ? -gg_code_errno(e.code) : k;
}

/* Read a whole generated file through gg_tree_read, in uneven pieces. */
static char *read_all(gg_mtree *t, uint32_t node, int64_t size, size_t *len)
{
    size_t cap = (size_t)size + 64;
    char *buf = malloc(cap + 1);
    FUZZ_ASSERT(buf, "out of memory");
    size_t got = 0;
    size_t step = 1000;
    for (;;) {
        size_t want = cap - got < step ? cap - got : step;
        ssize_t k = rd(t, node, buf + got, want, got, NULL);
        FUZZ_ASSERT(k >= 0 || k == -EIO || k == -ENOMEM || k == -EFBIG, "text read of node %" PRIu32 " gave %zd",
                    node, k);
        if (k <= 0)
            break;
        got += (size_t)k;
        if (got == cap)
            break;
        step = step * 3 + 1;
    }
    buf[got] = 0;
    *len = got;
    return buf;
}

static size_t count_lines(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += s[i] == '\n';
    return c;
}

static void check_name(gg_mtree *t, uint32_t i, const char *want, uint64_t want_len)
{
    const gg_node *n = &t->nodes[i];
    size_t len = strlen(n->name);
    FUZZ_ASSERT(len > 0 && len <= 255, "node %" PRIu32 ": name length %zu", i, len);
    FUZZ_ASSERT(!strchr(n->name, '/') && strcmp(n->name, ".") && strcmp(n->name, ".."),
                "node %" PRIu32 ": bad file name \"%s\"", i, n->name);
    FUZZ_ASSERT(lookup(t, n->parent, n->name) == i, "node %" PRIu32 " \"%s\" not found by lookup",
                i, n->name);
    if (!want || strstr(n->name, "%~"))
        return;
    char *back = malloc(len + 1);
    long k = gg_name_unescape(n->name, back);
    FUZZ_ASSERT(k >= 0 && (uint64_t)k == want_len && memcmp(back, want, want_len) == 0,
                "node %" PRIu32 ": \"%s\" does not unescape to its GGUF name", i, n->name);
    free(back);
}

static void check_xattrs(gg_mtree *t, uint32_t i)
{
    char list[512], val[256];
    int n = gg_mtree_listxattr(t, i, list, sizeof list, NULL);
    FUZZ_ASSERT(n >= 0 && (size_t)n <= sizeof list, "xattr list %d", n);
    for (int at = 0; at < n; at += (int)strlen(list + at) + 1) {
        int k = xattr_get(t, i, list + at, val, sizeof val);
        FUZZ_ASSERT(k >= 0, "xattr %s of node %" PRIu32 ": %d", list + at, i, k);
        int small = xattr_get(t, i, list + at, val, 1);
        FUZZ_ASSERT(small == -ERANGE || (k == 0 && small == 0), "xattr %s with no room: %d", list + at, small);
    }
    FUZZ_ASSERT(xattr_get(t, i, "user.nope", val, sizeof val) == -ENODATA, "unknown xattr");
}

/* The bytes of shard `s` as given in the input. */
static const piece *shard_bytes(const piece *pieces, int npieces, const gg_model *m, const gg_tensor *ts)
{
    (void)m;
    return ts->shard < (uint32_t)npieces ? &pieces[ts->shard] : NULL;
}

static void check_raw(gg_mtree *t, uint32_t i, const gg_model *m, const gg_tensor *ts, const piece *src)
{
    uint64_t nb = ts->nbytes;
    uint64_t offs[4] = {0, nb / 2 > 3 ? nb / 2 - 3 : 0, nb > 7 ? nb - 7 : 0, nb + 5};
    char buf[80];
    for (int k = 0; k < 4; k++) {
        ssize_t got = rd(t, i, buf, 64, offs[k], NULL);
        uint64_t want = offs[k] >= nb ? 0 : nb - offs[k] < 64 ? nb - offs[k] : 64;
        FUZZ_ASSERT(got >= 0 && (uint64_t)got == want, "raw read at %" PRIu64 ": %zd, expected %" PRIu64,
                    offs[k], got, want);
        if (src && got > 0) {
            uint64_t at = ts->abs_offset + offs[k];
            FUZZ_ASSERT(at + (uint64_t)got <= src->n && memcmp(buf, src->p + at, (size_t)got) == 0,
                        "raw bytes at %" PRIu64 " differ from the file", at);
        }
    }
    (void)m;
}

static void check_f32(gg_mtree *t, uint32_t i, const gg_tensor *ts, int heavy)
{
    int readable = ts->type && !ts->err;
    uint64_t total = ts->info->nelems * 4;
    int64_t size = node_size(t, i);
    FUZZ_ASSERT(size >= 0 && (uint64_t)size == total, "f32 size %" PRId64 " vs %" PRIu64, size, total);
    char small[64];
    if (!readable) {
        if (total) {
            ssize_t k = rd(t, i, small, 16, 0, NULL);
            FUZZ_ASSERT(k == -EIO, "unreadable f32 read gave %zd", k);
        }
        return;
    }
    gg_open_file *of = NULL;
    FUZZ_ASSERT(gg_mtree_open(t, i, &of, NULL) == 0 && of, "open of f32");
    float *whole = NULL;
    if (heavy && ts->info->nelems <= FULL_F32_ELEMS) {
        whole = malloc(total + 16);
        ssize_t k = rd(t, i, (char *)whole, (size_t)total + 16, 0, NULL);
        FUZZ_ASSERT(k == (ssize_t)total, "whole f32 read gave %zd of %" PRIu64, k, total);
        /* The same bytes in sequential page-sized reads (read-ahead path). */
        char *seq = malloc(total + 1);
        for (uint64_t off = 0; off < total; off += 4096) {
            size_t want = total - off < 4096 ? (size_t)(total - off) : 4096;
            k = rd(t, i, seq + off, 4096, off, of);
            FUZZ_ASSERT(k == (ssize_t)want, "sequential f32 read at %" PRIu64 " gave %zd", off, k);
        }
        for (uint64_t e = 0; e < total / 4; e++) {
            float a, b;
            memcpy(&a, (char *)whole + e * 4, 4);
            memcpy(&b, seq + e * 4, 4);
            FUZZ_ASSERT(fuzz_same_float(a, b), "f32 element %" PRIu64 " differs between reads", e);
        }
        free(seq);
    }
    /* Small unaligned reads: compared with the whole read, or with a decode. */
    uint64_t offs[4] = {0, total / 2 > 3 ? total / 2 - 3 : 0, total > 9 ? total - 9 : 0, total + 1};
    for (int k = 0; k < 4; k++) {
        uint64_t want = offs[k] >= total ? 0 : total - offs[k] < 37 ? total - offs[k] : 37;
        ssize_t got = rd(t, i, small, 37, offs[k], NULL);
        FUZZ_ASSERT(got >= 0 && (uint64_t)got == want, "f32 read at %" PRIu64 ": %zd, expected %" PRIu64,
                    offs[k], got, want);
        if (whole && got > 0) {
            for (ssize_t b = 0; b < got; b++) {
                uint64_t at = offs[k] + (uint64_t)b;
                float x, y;
                memcpy(&x, (char *)whole + at / 4 * 4, 4);
                /* Compare whole elements only where both reads hold them. */
                if (at % 4 == 0 && b + 4 <= got) {
                    memcpy(&y, small + b, 4);
                    FUZZ_ASSERT(fuzz_same_float(x, y), "f32 at byte %" PRIu64 " differs", at);
                }
            }
        }
    }
    gg_readahead_destroy(&of->ra);
    free(of);
    free(whole);
}

/* f16, bf16, f32.npy, f16.npy: sized from the element count (.npy: after a
 * preamble, a multiple of 64 bytes); EIO past the preamble when f32 is not
 * readable; for small tensors, the values are f32's converted (halfconv.h). */
static void check_view(gg_mtree *t, uint32_t i, const gg_tensor *ts, int heavy)
{
    const gg_node *n = &t->nodes[i];
    const gg_file_kind *fk = gg_node_file(n);
    int npy = fk->shape == GG_FS_COMPOSITE, wide = fk->view == GG_VIEW_F32;
    uint64_t nel = ts->info->nelems, data = nel * (wide ? 4 : 2);
    int64_t size = node_size(t, i);
    if (size == -ENOMEM)
        return;
    FUZZ_ASSERT(size >= 0 && (uint64_t)size >= data, "%s: size %" PRId64 " for %" PRIu64 " bytes of values", n->name,
                size, data);
    uint64_t pre = (uint64_t)size - data;
    FUZZ_ASSERT(npy ? pre > 0 && pre % 64 == 0 : pre == 0, "%s: %" PRIu64 " bytes before the values", n->name, pre);
    char small[16];
    if (!(ts->type && !ts->err)) {
        if (data)
            FUZZ_ASSERT(rd(t, i, small, sizeof small, pre, NULL) == -EIO, "%s of an unreadable tensor", n->name);
        return;
    }
    if (!heavy || nel > FULL_F32_ELEMS)
        return;
    char *got = malloc((size_t)size + 16), *f32 = malloc(nel * 4 + 16);
    uint16_t *want = malloc(nel * 2 + 2);
    FUZZ_ASSERT(got && f32 && want, "out of memory");
    ssize_t k = rd(t, i, got, (size_t)size + 16, 0, NULL);
    FUZZ_ASSERT(k == size, "%s: whole read gave %zd of %" PRId64, n->name, k, size);
    k = rd(t, lookup(t, n->parent, "f32"), f32, nel * 4 + 16, 0, NULL);
    FUZZ_ASSERT(k == (ssize_t)(nel * 4), "f32 beside %s gave %zd", n->name, k);
    if (wide) {
        FUZZ_ASSERT(!memcmp(got + pre, f32, data), "%s: values are not f32's bytes", n->name);
    } else {
        if (fk->view == GG_VIEW_BF16)
            gg_f32_to_bf16((const float *)f32, want, nel);
        else
            gg_f32_to_f16((const float *)f32, want, nel);
        FUZZ_ASSERT(!memcmp(got + pre, want, data), "%s: values are not f32's converted", n->name);
    }
    free(got);
    free(f32);
    free(want);
}

/* model.safetensors: a u64 header length, JSON padded with spaces to a
 * multiple of 8; read whole when small. */
static void check_safetensors(gg_mtree *t, uint32_t i)
{
    int64_t size = node_size(t, i);
    if (size == -ENOMEM || size == -EFBIG)
        return;
    FUZZ_ASSERT(size >= 8, "model.safetensors size %" PRId64, size);
    unsigned char len8[8];
    FUZZ_ASSERT(rd(t, i, (char *)len8, 8, 0, NULL) == 8, "model.safetensors: 8-byte read");
    uint64_t n = 0;
    for (int b = 0; b < 8; b++)
        n |= (uint64_t)len8[b] << (8 * b);
    FUZZ_ASSERT(n % 8 == 0 && n < 100000000 && 8 + n <= (uint64_t)size, "model.safetensors: header length %" PRIu64, n);
    char *h = malloc(n + 1);
    FUZZ_ASSERT(h && rd(t, i, h, n, 8, NULL) == (ssize_t)n, "model.safetensors: header read");
    h[n] = 0;
    cJSON *j = cJSON_ParseWithLength(h, n);
    FUZZ_ASSERT(j && cJSON_IsObject(j), "model.safetensors: header is not a JSON object");
    cJSON_Delete(j);
    free(h);
    if ((uint64_t)size <= (16u << 20)) {
        size_t len;
        char *all = read_all(t, i, size, &len);
        FUZZ_ASSERT((int64_t)len == size, "model.safetensors: read %zu bytes, size says %" PRId64, len, size);
        free(all);
    }
}

/* model.gguf and as/<recipe>.gguf: a single file's model.gguf is its
 * bytes; the others are GGUF files whose header our parser reads back with
 * the model's tensors, in order (a quantized recipe's: llama-quantize's), in
 * the types the recipe gives them, their dimensions (ggml's count for a
 * quantized recipe), their data inside the file. Small ones are read whole. */
static void check_gguf(gg_mtree *t, uint32_t i, const piece *pieces, int npieces)
{
    const gg_model *m = t->m;
    const gg_file_kind *fk = gg_node_file(&t->nodes[i]);
    int64_t size = node_size(t, i);
    if (size == -ENOMEM || size == -EFBIG)
        return;
    FUZZ_ASSERT(size > 0, "%s: size %" PRId64, t->nodes[i].name, size);
    size_t len = (uint64_t)size < (16u << 20) ? (size_t)size : 16u << 20;
    char *b = malloc(len + 1);
    FUZZ_ASSERT(b, "out of memory");
    ssize_t k = rd(t, i, b, len, 0, NULL);
    FUZZ_ASSERT(k == (ssize_t)len || k == -EIO, "%s: read of %zu gave %zd", t->nodes[i].name, len, k);
    if (fk->view == GG_VIEW_RAW && m->nshards == 1) {
        FUZZ_ASSERT(npieces >= 1 && (uint64_t)size == pieces[0].n && (k < 0 || !memcmp(b, pieces[0].p, len)),
                    "model.gguf is not the file's bytes");
        free(b);
        return;
    }
    gg_file f;
    gg_err e;
    uint64_t want = 0;
    if (k < 0 || gg_parse("view", (const uint8_t *)b, len, (uint64_t)size, &f, &want, &e)) {
        FUZZ_ASSERT(k < 0 || e.code == GG_E_AGAIN, "%s does not parse: %s", t->nodes[i].name, e.msg);
        free(b);
        return;
    }
    const char *what = fk->name ? fk->name : t->nodes[i].name;
    FUZZ_ASSERT(f.version == 3 && f.n_tensors == m->nt && gg_find_key(&f, "split.count") < 0,
                "%s: version %u, %" PRIu64 " tensors", what, f.version, f.n_tensors);
    const gg_recipe *r = fk->scope == GG_FK_RECIPE ? gg_recipe_at(t->nodes[i].arg) : NULL;
    int quantized = r && !(r->flags & GG_RECIPE_SOURCE);
    gg_recipe_facts *facts = r ? gg_recipe_facts_new(m) : NULL;
    gg_tid *types = malloc((m->nt ? m->nt : 1) * sizeof *types);
    FUZZ_ASSERT(types && (!r || facts), "out of memory");
    FUZZ_ASSERT(!r || gg_recipe_types(facts, r, types, &e) == 0, "%s is there, and the recipe fails: %s", what, e.msg);
    for (uint64_t j = 0; j < m->nt; j++) {
        uint64_t ti = quantized ? gg_recipe_order(facts)[j] : j;
        const gg_tinfo *a = &f.tensors[j], *o = m->t[ti].info;
        gg_view_kind v = r ? gg_view_of(types[ti]) : GG_VIEW_RAW;
        uint32_t tid = v == GG_VIEW_RAW ? o->type_id : gg_view_qtype(v) ? gg_type_mainline(gg_view_qtype(v))->id
                                                     : v == GG_VIEW_F32 ? 0 : v == GG_VIEW_F16 ? 1 : 30;
        uint32_t nd = quantized ? gg_tinfo_ndims(o) : o->n_dims;
        FUZZ_ASSERT(a->type_id == tid && a->n_dims == nd && !memcmp(a->ne, o->ne, sizeof a->ne) &&
                        a->name.len == o->name.len && !memcmp(f.hdr + a->name.off, m->t[ti].name, a->name.len),
                    "%s: tensor %" PRIu64 " is not the model's", what, j);
        FUZZ_ASSERT(f.data_offset + a->offset + gg_view_size(&m->t[ti], v) <= (uint64_t)size,
                    "%s: tensor %" PRIu64 " runs past the end", what, j);
    }
    gg_recipe_facts_free(facts);
    free(types);
    gg_file_free(&f);
    free(b);
}

static void visit(gg_mtree *t, const piece *pieces, int npieces)
{
    for (uint32_t i = 0; i < t->n; i++) {
        const gg_node *n = &t->nodes[i];
        const gg_model *m = t->m;
        if (i > 0) {
            const char *want = NULL;
            uint64_t want_len = 0;
            if (gg_node_is_kv(n)) {
                want = gg_str_ptr(m->f, m->f->kv[n->arg].key);
                want_len = m->f->kv[n->arg].key.len;
            } else if (n->content == GG_C_TENSOR_DIR) {
                want = m->t[n->arg].name;
                want_len = m->t[n->arg].name_len;
            }
            check_name(t, i, want, want_len);
        }
        check_xattrs(t, i);
        if (gg_node_is_dir(n)) {
            char c;
            FUZZ_ASSERT(rd(t, i, &c, 1, 0, NULL) == -EISDIR, "read of a folder");
            continue;
        }
        if (n->content == GG_C_LINK) {
            char target[600];
            int k = gg_mtree_readlink(t, i, target, sizeof target, NULL);
            FUZZ_ASSERT(k > 0 && !strncmp(target, "../../tensors/", 14) &&
                            lookup(t, t->tensors_dir, target + 14) != UINT32_MAX,
                        "link %s goes nowhere", n->name);
            continue;
        }
        const gg_tensor *ts = gg_mtree_tensor(t, i);
        int heavy = ts && n->arg < HEAVY_TENSORS;
        /* Each file by its row (files.h): what it is made of, not its name. */
        const gg_file_kind *fk = gg_node_file(n);
        int stats = fk->flags & GG_FF_CHECK;
        if (fk->shape == GG_FS_VIEW && fk->view == GG_VIEW_RAW) {
            check_raw(t, i, m, ts, shard_bytes(pieces, npieces, m, ts));
            continue;
        }
        if (fk->shape == GG_FS_VIEW && fk->view == GG_VIEW_F32) {
            check_f32(t, i, ts, heavy);
            continue;
        }
        if ((fk->shape == GG_FS_VIEW || fk->shape == GG_FS_COMPOSITE) && fk->scope == GG_FK_TENSOR) {
            check_view(t, i, ts, heavy);
            continue;
        }
        if (fk->shape == GG_FS_COMPOSITE && fk->name && !strcmp(fk->name, "model.safetensors")) { /* the root's, as/hf/'s */
            check_safetensors(t, i);
            continue;
        }
        if (fk->shape == GG_FS_COMPOSITE) {
            check_gguf(t, i, pieces, npieces);
            continue;
        }
        if (stats && (!heavy || ts->info->nelems > FULL_F32_ELEMS))
            continue;
        int64_t size = node_size(t, i);
        FUZZ_ASSERT(size >= 0 || size == -EIO || size == -ENOMEM || size == -EFBIG, "size of node %" PRIu32 ": %" PRId64,
                    i, size);
        if (size < 0)
            continue;
        size_t len;
        char *txt = read_all(t, i, size, &len);
        if (stats) {
            FUZZ_ASSERT(len > 0 || !(ts->type && !ts->err), "stats of a readable tensor are empty");
        } else {
            FUZZ_ASSERT((int64_t)len == size, "node %" PRIu32 " (%s): read %zu bytes, size says %" PRId64, i, n->name, len, size);
        }
        const char *kind = fk->name ? fk->name : ""; /* the row's name (a KV's node may be named anything) */
        if (fk->scope == GG_FK_HF && strcmp(kind, "why")) { /* as/hf/'s JSON files */
            cJSON *j = cJSON_ParseWithLength(txt, len);
            FUZZ_ASSERT(j && cJSON_IsObject(j), "as/hf/%s is not a JSON object", kind);
            cJSON_Delete(j);
        } else if (!strcmp(kind, "metadata.json") || !strcmp(kind, "info.json")) {
            cJSON *j = cJSON_ParseWithLength(txt, len);
            FUZZ_ASSERT(j, "node %" PRIu32 " (%s) is not valid JSON", i, n->name);
            if (!strcmp(kind, "info.json")) {
                cJSON *ok = cJSON_GetObjectItemCaseSensitive(j, "f32_readable");
                FUZZ_ASSERT(cJSON_IsBool(ok) && cJSON_IsTrue(ok) == (ts->type && !ts->err),
                            "info.json f32_readable disagrees");
            }
            cJSON_Delete(j);
        } else if (gg_node_is_kv(n)) {
            const gg_kv *kv = &m->f->kv[n->arg];
            if (kv->type == GG_VT_ARR)
                FUZZ_ASSERT(count_lines(txt, len) == kv->arr_n, "array of %" PRIu64 " has %zu lines",
                            kv->arr_n, count_lines(txt, len));
            else
                FUZZ_ASSERT(len > 0 && txt[len - 1] == '\n', "value text does not end in a newline");
        } else if (!strcmp(kind, "tensors.tsv")) {
            FUZZ_ASSERT(count_lines(txt, len) == m->nt + 1, "tensors.tsv has %zu lines for %" PRIu64 " tensors",
                        count_lines(txt, len), m->nt);
        }
        free(txt);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    piece pieces[MAX_SHARDS];
    int np = 0;
    size_t start = 0;
    for (;;) {
        const uint8_t *hit = np + 1 < MAX_SHARDS ? memmem(data + start, size - start, MARK, MARK_LEN) : NULL;
        if (!hit) {
            pieces[np++] = (piece){data + start, size - start};
            break;
        }
        pieces[np++] = (piece){data + start, (size_t)(hit - (data + start))};
        start = (size_t)(hit - data) + MARK_LEN;
    }
    if (!tmp_base)
        LLVMFuzzerInitialize(NULL, NULL);
    char dir[64], paths[MAX_SHARDS][96];
    snprintf(dir, sizeof dir, "%s/gguffs-fuzz.XXXXXX", tmp_base);
    FUZZ_ASSERT(mkdtemp(dir), "mkdtemp %s", dir);
    for (int i = 0; i < np; i++) {
        if (np == 1)
            snprintf(paths[i], sizeof paths[i], "%s/model.gguf", dir);
        else
            snprintf(paths[i], sizeof paths[i], "%s/m-%05d-of-%05d.gguf", dir, i + 1, np);
        FUZZ_ASSERT(write_file(paths[i], pieces[i].p, pieces[i].n) == 0, "write %s", paths[i]);
    }

    gg_open_opts oo = {0};
    if (size % 7 == 3)
        oo.stq1_0_consecutive = 1;
    gg_err e;
    const char *err = e.msg;
    if (size % 5 == 2)
        FUZZ_ASSERT(gg_parse_forced_types(&oo, "42:Q2_0,143:F16", &e) == 0, "%s", err);
    /* The command-line dump: the same open, then every value and tensor as
     * text and as JSON (long arrays shortened, then in full). Its status is
     * the open's. */
    gg_reader_opts dro;
    gg_reader_default_opts(&dro);
    int dump_rc[3];
    for (int k = 0; k < 3; k++) {
        gg_tool_opts to = {.json = k > 0, .full = k == 2, .open = &oo, .reader = &dro};
        dump_rc[k] = gg_tool_dump(paths[0], &to);
    }
    fflush(stdout);
    gg_model m;
    memset(&e, 0x55, sizeof e);
    int rc = gg_tool_exit_status(gg_model_open(&m, paths[0], &oo, &e) ? &e : NULL);
    for (int k = 0; k < 3; k++)
        FUZZ_ASSERT(dump_rc[k] == rc, "--dump gave %d, the open %d", dump_rc[k], rc);
    /* The model keeps its files open: remove the names now. */
    for (int i = 0; i < np; i++)
        unlink(paths[i]);
    rmdir(dir);
    if (rc != GG_EXIT_OK) {
        size_t elen = strnlen(err, sizeof e.msg);
        FUZZ_ASSERT(elen > 0 && elen < sizeof e.msg, "open failed (%d) without a message", rc);
        FUZZ_ASSERT(rc == GG_EXIT_MALFORMED || rc == GG_EXIT_CANNOT_OPEN, "open gave exit status %d: %s", rc, err);
        gg_model_close(&m);
        return 0;
    }
    gg_reader_opts ro;
    gg_reader_default_opts(&ro);
    ro.cache_bytes = 64u << 10;
    ro.page_bytes = 4096;
    ro.threads = 1;
    ro.readahead_pages = size % 3 == 0 ? 2 : 0;
    gg_reader *r = gg_reader_new(&ro);
    FUZZ_ASSERT(r, "reader");
    gg_tree_opts to = {.safetensors_dtype = (int)(size % 3)};
    gg_mtree *t = gg_mtree_new(&m, 0, r, &to, NULL, &e);
    if (t) {
        visit(t, pieces, np);
        gg_mtree_free(t);
    }
    gg_reader_free(r);
    gg_model_close(&m);
    return 0;
}
