/* test_tree - the tree of a model (tree.h) over a memory source (memsrc.h),
 * no FUSE: the paths of every file kind lead to nodes, listings come in the
 * documented order, getattr sizes equal the bytes a whole read gives, the
 * sizes of tensor files and the headers of the composite files cost no
 * tensor bytes, errors reach the caller as the right errno (EIO that leaves
 * nothing cached, ESTALE for every tensor file once the model changed).
 * Pins today's behaviour (issue 19). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "tree/files.h" /* the table of file kinds (internal to the tree) */
#include "gguffs/scope.h"
#include "gguffs/tree.h"
#include "gguffs/view.h"
#include "mem_model.h"
#include "testlib.h"

static gg_tree *tree;
static mem_model mm;

/* The node at a path ("" is the root), or 0. */
static gg_ino walk(const char *path)
{
    gg_ino ino = GG_ROOT;
    char part[512];
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        snprintf(part, sizeof part, "%.*s", (int)n, p);
        gg_err e;
        if (gg_tree_lookup(tree, ino, part, &ino, &e))
            return 0;
        p += n + (p[n] == '/');
    }
    return ino;
}

typedef struct listing {
    char names[64][64];
    gg_kind kind[64];
    int n;
} listing;

static int add_name(void *arg, const char *name, gg_ino ino, gg_kind kind)
{
    listing *l = arg;
    if (l->n < 64) {
        snprintf(l->names[l->n], sizeof l->names[0], "%s", name);
        l->kind[l->n++] = kind;
    }
    return 0;
}

/* The names of a folder, space-separated. */
static char *ls(const char *path)
{
    static char out[4096];
    listing l = {.n = 0};
    gg_err e;
    out[0] = 0;
    if (gg_tree_readdir(tree, walk(path), 0, add_name, &l, &e))
        return strcpy(out, "(error)");
    for (int i = 0; i < l.n; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? " " : "", l.names[i]);
    return out;
}

/* Read a whole file; its length in *len, or -1 with *e. */
static char *read_whole(const char *path, ssize_t *len, gg_err *e)
{
    gg_ino ino = walk(path);
    gg_open_file *of;
    *len = -1;
    if (!ino || gg_tree_open(tree, ino, &of, e))
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *p = malloc(cap);
    for (;;) {
        if (n + 4096 > cap)
            p = realloc(p, cap *= 2);
        ssize_t k = gg_tree_read(tree, ino, of, p + n, 4096, n, e);
        if (k < 0) {
            gg_tree_close(tree, of);
            free(p);
            return NULL;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    gg_tree_close(tree, of);
    *len = (ssize_t)n;
    return p;
}

static const char *const tensor_files[] = {"raw", "f32", "f32.npy", "f16", "f16.npy", "bf16", "info.json", "stats"};

static void listings(void)
{
    const char *root = ls("");
    EXPECT(!strcmp(root, ".stats metadata metadata.json tensors tensors.tsv types.tsv summary summary.json "
                         "model.safetensors model.gguf blocks as"),
           "root: %s", root);
    EXPECT(!strcmp(ls("as"), "why hf"), "as/ of a model with an undecodable tensor: %s", ls("as"));
    EXPECT(!strcmp(ls("as/hf"), "why"), "as/hf/ of a model without figures or vocabulary: %s", ls("as/hf"));
    EXPECT(!strcmp(ls("metadata"), "general.architecture general.name"), "metadata/: %s", ls("metadata"));
    EXPECT(!strcmp(ls("tensors"), "blk.0.a blk.0.h q x"), "tensors/: %s", ls("tensors"));
    EXPECT(!strcmp(ls("tensors/q"), "raw f32 f32.npy f16 f16.npy bf16 info.json stats"), "tensors/q: %s",
           ls("tensors/q"));
    EXPECT(!strcmp(ls("tensors/x"), "raw info.json"), "an undecodable tensor: %s", ls("tensors/x"));
    EXPECT(!strcmp(ls("blocks"), "0"), "blocks/: %s", ls("blocks"));
    EXPECT(!strcmp(ls("blocks/0"), "a h"), "blocks/0: %s", ls("blocks/0"));
    char target[256];
    gg_err e;
    int k = gg_tree_readlink(tree, walk("blocks/0/h"), target, sizeof target, &e);
    EXPECT(k > 0 && !strcmp(target, "../../tensors/blk.0.h"), "blocks/0/h -> %s", k > 0 ? target : e.msg);
    gg_attr a;
    EXPECT(gg_tree_getattr(tree, walk("blocks/0/h"), &a, &e) == 0 && a.kind == GG_K_LINK && a.size == 21,
           "link attributes");
    EXPECT(walk("tensors/x/f32") == 0 && walk("tensors/q/nothing") == 0, "names that are not there");
    gg_ino ino;
    EXPECT(gg_tree_lookup(tree, walk("tensors.tsv"), "x", &ino, &e) == -1 && e.code == GG_E_NOTDIR,
           "lookup in a file: %d", e.code);
    char c;
    EXPECT(gg_tree_read(tree, walk("tensors"), NULL, &c, 1, 0, &e) == -1 && e.code == GG_E_ISDIR, "read of a folder");
}

/* Sizes: the tensor files' from the header alone (no tensor bytes read),
 * and every file's size is what a whole read gives. */
static void sizes(void)
{
    static const char *const roots[] = {"metadata.json", "tensors.tsv", "types.tsv", "summary", "summary.json",
                                        "model.safetensors", "metadata/general.name", ".stats"};
    static const char *const tensors[] = {"blk.0.a", "blk.0.h", "q", "x"};
    gg_err e;
    gg_attr a;
    for (int i = 0; i < MM_NT; i++) {
        for (size_t f = 0; f < sizeof tensor_files / sizeof *tensor_files; f++) {
            char path[128];
            snprintf(path, sizeof path, "tensors/%s/%s", tensors[i], tensor_files[f]);
            gg_ino ino = walk(path);
            if (i == MM_X && f != 0 && f != 6)
                continue;
            uint64_t reads = atomic_load(&mm.src.reads);
            EXPECT(ino && gg_tree_getattr(tree, ino, &a, &e) == 0, "%s: getattr", path);
            uint64_t es = !strcmp(tensor_files[f], "f32") ? 4 : strstr(tensor_files[f], "16") ? 2 : 0;
            int data = f <= 5;
            if (data)
                EXPECT(atomic_load(&mm.src.reads) == reads, "%s: getattr read tensor bytes", path);
            if (es && f != 2 && f != 4)
                EXPECT(a.size == mm.nelems[i] * es, "%s: size %" PRIu64, path, a.size);
            EXPECT(a.tensor_data == data && a.kind == GG_K_FILE && a.nlink == 1, "%s: tensor_data %d", path,
                   a.tensor_data);
            EXPECT(a.blocks == (f == 0 ? (a.size + 511) / 512 : 0), "%s: blocks %" PRIu64, path, a.blocks);
            ssize_t len;
            char *p = read_whole(path, &len, &e);
            EXPECT(p && len == (ssize_t)a.size, "%s: read %zd, size %" PRIu64, path, len, a.size);
            if (p && f == 0)
                EXPECT(!memcmp(p, mm.file.p + mm.data_at[i], (size_t)len), "%s: not the stored bytes", path);
            if (p && (f == 1 || f == 3 || f == 5)) {
                char *want = mm_view(&mm, i, f != 1, f == 5);
                EXPECT(!memcmp(p, want, (size_t)len), "%s: not the values", path);
                free(want);
            }
            if (p && (f == 2 || f == 4)) {
                uint64_t n = mm.nelems[i] * (f == 2 ? 4 : 2);
                char *want = mm_view(&mm, i, f == 4, 0);
                EXPECT(len > (ssize_t)n && (len - (ssize_t)n) % 64 == 0 && !memcmp(p, "\x93NUMPY", 6) &&
                           !memcmp(p + len - n, want, n),
                       "%s: not a .npy of the values", path);
                free(want);
            }
            free(p);
        }
    }
    for (size_t f = 0; f < sizeof roots / sizeof *roots; f++) {
        gg_ino ino = walk(roots[f]);
        uint64_t reads = atomic_load(&mm.src.reads);
        EXPECT(ino && gg_tree_getattr(tree, ino, &a, &e) == 0, "%s: getattr", roots[f]);
        if (f == 5) {
            EXPECT(atomic_load(&mm.src.reads) == reads && a.tensor_data, "model.safetensors: getattr read data");
            uint64_t n = 0;
            for (int i = 0; i < MM_X; i++)
                n += mm.nelems[i] * 4;
            EXPECT(a.size > n, "model.safetensors: %" PRIu64, a.size);
        } else {
            EXPECT(!a.tensor_data && a.blocks == 0, "%s: tensor_data", roots[f]);
        }
        ssize_t len;
        char *p = read_whole(roots[f], &len, &e);
        EXPECT(p && len == (ssize_t)a.size, "%s: read %zd, size %" PRIu64, roots[f], len, a.size);
        if (f == 6)
            EXPECT(p && len == 13 && !memcmp(p, "memory model\n", 13), "metadata/general.name");
        free(p);
    }
}

/* model.gguf of one file is its bytes, sized without reading them; as/why
 * names the tensor that keeps the GGUF views out of as/. */
static void gguf_files(void)
{
    gg_err e;
    gg_attr a;
    uint64_t reads = atomic_load(&mm.src.reads);
    EXPECT(gg_tree_getattr(tree, walk("model.gguf"), &a, &e) == 0 && a.size == mm.file.n && a.tensor_data &&
               a.blocks == 0,
           "model.gguf: size %" PRIu64 " of %zu", a.size, mm.file.n);
    EXPECT(atomic_load(&mm.src.reads) == reads, "model.gguf: getattr read the file");
    ssize_t len;
    char *p = read_whole("model.gguf", &len, &e);
    EXPECT(p && len == (ssize_t)mm.file.n && !memcmp(p, mm.file.p, mm.file.n), "model.gguf: not the file's bytes");
    free(p);
    /* One read of all of model.safetensors: its header and the cached pages
     * of every tensor in one reply, as they lie. */
    gg_ino st = walk("model.safetensors");
    EXPECT(gg_tree_getattr(tree, st, &a, &e) == 0, "model.safetensors: getattr");
    char *all = malloc(a.size + 16);
    p = read_whole("model.safetensors", &len, &e);
    gg_ref ref;
    ssize_t got = all ? gg_tree_read_ref(tree, st, NULL, all, a.size + 16, 0, &ref, &e) : -1;
    EXPECT(got == (ssize_t)a.size && ref.niov > 4 && ref.npages > 4,
           "model.safetensors in one read: %zd bytes, %d pieces, %d pages", got, got > 0 ? ref.niov : 0,
           got > 0 ? ref.npages : 0);
    if (got > 0) {
        gg_ref_gather(&ref, all);
        gg_tree_read_done(tree, &ref);
        EXPECT(p && len == got && !memcmp(p, all, (size_t)got), "model.safetensors: one read differs from pieces");
    }
    free(all);
    free(p);
    p = read_whole("as/why", &len, &e);
    EXPECT(p && !strncmp(p, "# no as/*.gguf: 1 tensor cannot be decoded\n", 43) &&
               strstr(p, "\nx\tid 9999\tunsupported type 9999\n"),
           "as/why: %s", p ? p : e.msg);
    free(p);
}

/* as/hf/why says what keeps the weights and the tokenizer files out. */
static void hf_why(void)
{
    gg_err e;
    ssize_t len;
    char *p = read_whole("as/hf/why", &len, &e);
    EXPECT(p && strstr(p, "no config.json or model.safetensors:\nllama.block_count is missing\n") &&
               strstr(p, "no tokenizer files:\nthe file has no vocabulary (tokenizer.ggml.model)\n"),
           "as/hf/why: %s", p ? p : e.msg);
    free(p);
}

/* An I/O error while stats are made: EIO, nothing kept; then it works. */
static void stats_eio(void)
{
    gg_err e;
    ssize_t len;
    memsrc_fault(&mm.src, mm.data_at[MM_H] + 100, MS_EIO, 1);
    char *p = read_whole("tensors/blk.0.h/stats", &len, &e);
    EXPECT(!p && e.code == GG_E_IO && gg_code_errno(e.code) == EIO, "stats under EIO: %zd %d", len, e.code);
    p = read_whole("tensors/blk.0.h/stats", &len, &e);
    EXPECT(p && len > 0, "stats after the fault: %zd (%s)", len, p ? "" : e.msg);
    free(p);
    memsrc_fault(&mm.src, mm.data_at[MM_A] + 8, MS_EIO, 1);
    p = read_whole("tensors/blk.0.a/raw", &len, &e);
    EXPECT(!p && e.code == GG_E_IO, "raw under EIO: %d", e.code);
    p = read_whole("tensors/blk.0.a/raw", &len, &e);
    EXPECT(p && len == (ssize_t)mm.nbytes[MM_A], "raw after the fault");
    free(p);
    memsrc_clear(&mm.src);
}

/* Read a whole file for a reader who gave up (scope.h): its stop flag set. */
static char *read_given_up(const char *path, ssize_t *len, gg_err *e)
{
    _Atomic int stop = 1;
    gg_scope s;
    gg_scope_init(&s, 0, &stop, NULL, NULL);
    gg_scope_set(&s);
    char *p = read_whole(path, len, e);
    gg_scope_set(NULL);
    return p;
}

/* Long work stops when its reader gave up, and leaves nothing behind: stats,
 * a comparison (vs_tree), a text of many MiB (each asks once per block). */
static void stops(gg_reader *r)
{
    gg_err e;
    ssize_t len;
    char *p = read_given_up("tensors/q/stats", &len, &e);
    EXPECT(!p && e.code == GG_E_IO && strstr(e.msg, "stopped"), "stats for a reader who gave up: %zd %s", len,
           p ? "made" : e.msg);
    free(p);
    p = read_whole("tensors/q/stats", &len, &e);
    EXPECT(p && len > 0, "stats for the next reader: %s", p ? "made" : e.msg);
    free(p);
    /* a model with an 8 MiB string: metadata.json is made in MiB steps */
    static mem_model big;
    memset(&big, 0, sizeof big);
    head(&big.file, 3, 0, 2);
    key(&big.file, "general.architecture", 8), str(&big.file, "llama");
    size_t n = 8u << 20;
    char *x = malloc(n + 1);
    memset(x, 'x', n);
    x[n] = 0;
    key(&big.file, "big", 8), str(&big.file, x);
    free(x);
    memsrc_init(&big.src, "big.gguf", big.file.p, big.file.n);
    big.table[0] = &big.src;
    gg_model *m = calloc(1, sizeof *m);
    gg_tree_opts to = {0};
    gg_tree *one = tree;
    tree = mm_open(&big, m, &e) == 0 ? gg_tree_new(&m, 1, r, &to, &e) : NULL;
    EXPECT(tree, "the tree of a model with an 8 MiB string: %s", e.msg);
    if (tree) {
        p = read_given_up("metadata.json", &len, &e);
        EXPECT(!p && e.code == GG_E_IO && strstr(e.msg, "stopped"), "metadata.json for a reader who gave up: %zd %s",
               len, p ? "made" : e.msg);
        free(p);
        p = read_whole("metadata.json", &len, &e);
        EXPECT(p && len > (ssize_t)n, "metadata.json for the next reader: %zd %s", len, p ? "" : e.msg);
        free(p);
        gg_tree_free(tree);
    }
    mm_free(&big);
    tree = one;
}

/* The model changed: every file of its tensors fails with ESTALE, stats
 * (made before) too; the texts of its header are still served. */
static void stale(void)
{
    gg_err e;
    ssize_t len;
    char *p = read_whole("tensors/q/f32", &len, &e); /* pages cached */
    EXPECT(p && len == MM_Q_N * 4, "f32 before the change");
    free(p);
    p = read_whole("tensors/q/stats", &len, &e);
    EXPECT(p, "stats before the change");
    free(p);
    memsrc_change(&mm.src);
    static const char *const stale_files[] = {"tensors/q/f32", "tensors/q/raw", "tensors/blk.0.a/f16",
                                              "tensors/blk.0.h/bf16", "tensors/q/f32.npy", "tensors/q/stats",
                                              "tensors/x/raw", "model.safetensors"};
    for (size_t i = 0; i < sizeof stale_files / sizeof *stale_files; i++) {
        p = read_whole(stale_files[i], &len, &e);
        EXPECT(!p && e.code == GG_E_STALE && gg_code_errno(e.code) == ESTALE, "%s after a change: %zd %d",
               stale_files[i], len, e.code);
        free(p);
    }
    gg_open_file *of;
    EXPECT(gg_tree_open(tree, walk("tensors/q/f16"), &of, &e) == 0 && gg_tree_open_stale(of),
           "a tensor file opened after the change is marked stale");
    gg_tree_close(tree, of);
    EXPECT(gg_tree_open(tree, walk("metadata.json"), &of, &e) == 0 && !gg_tree_open_stale(of),
           "metadata.json opened after the change is not");
    gg_tree_close(tree, of);
    p = read_whole("metadata.json", &len, &e);
    EXPECT(p && len > 0, "metadata.json after the change");
    free(p);
}

/* The table of file kinds (files.h): every row is one thing, names are
 * unique in their scope, and the tree lists the rows in table order. */
static void table(void)
{
    char want_root[1024] = ".stats", want_tensor[1024] = "";
    for (size_t i = 0; i < gg_n_files; i++) {
        const gg_file_kind *k = &gg_files[i];
        int makers = !!k->text + !!k->render + !!k->segments + !!k->build;
        EXPECT(k->shape == GG_FS_VIEW ? makers == 0 : makers == 1, "row %zu (%s): %d ways to make it", i,
               k->name ? k->name : "(kv)", makers);
        EXPECT((k->shape == GG_FS_TEXT) == (k->text || k->render) && (k->shape == GG_FS_DIR) == !!k->build &&
                   (k->shape == GG_FS_COMPOSITE) == !!k->segments,
               "row %zu: its maker is not its shape's", i);
        EXPECT(k->shape != GG_FS_VIEW || k->scope == GG_FK_TENSOR || k->scope == GG_FK_VS_TENSOR,
               "row %zu: a view outside a tensor folder", i);
        EXPECT(!k->sized || k->shape == GG_FS_TEXT, "row %zu: a size function for a non-text", i);
        EXPECT(!k->fixed_size || k->shape == GG_FS_TEXT, "row %zu: a fixed size for a non-text", i);
        EXPECT((k->name == NULL) == (k->scope == GG_FK_KV || k->scope == GG_FK_NEWKEY || k->scope == GG_FK_SIDE ||
                                     k->scope == GG_FK_RECIPE),
               "row %zu: only metadata/<key>, side files and as/<recipe>.gguf are named by what they hold", i);
        EXPECT(!(k->flags & GG_FF_STORED) || (k->shape == GG_FS_VIEW && k->view == GG_VIEW_RAW),
               "row %zu: stored bytes that are not raw", i);
        for (size_t j = 0; j < i; j++)
            EXPECT(!k->name || !gg_files[j].name || gg_files[j].scope != k->scope || strcmp(k->name, gg_files[j].name),
                   "rows %zu and %zu: one name", j, i);
        /* (vs/ only in a mount of several models: see vs_tree()) */
        char *w = k->scope == GG_FK_MODEL && !(k->flags & GG_FF_VS) ? want_root
                  : k->scope == GG_FK_TENSOR                          ? want_tensor
                                                                      : NULL;
        if (w)
            snprintf(w + strlen(w), 1024 - strlen(w), "%s%s", *w ? " " : "", k->name);
    }
    EXPECT(gg_files_in_scope(GG_FK_KV) == 1, "one row for metadata/<key>");
    EXPECT(!strcmp(ls(""), want_root), "root: %s, the table says %s", ls(""), want_root);
    EXPECT(!strcmp(ls("tensors/blk.0.a"), want_tensor), "a tensor folder: %s, the table says %s", ls("tensors/blk.0.a"),
           want_tensor);
}

/* Two models in one tree: each model's vs/ holds the other, whose
 * comparison lists the rows of GG_FK_VS (and GG_FK_VS_TENSOR for the
 * tensors both can decode), sized without a byte of tensor data read; a
 * model against an identical one differs by zeros. */
static void vs_tree(gg_reader *r)
{
    static mem_model mm2;
    mm_build(&mm2, "tree2.gguf");
    gg_model *ms[2] = {calloc(1, sizeof(gg_model)), calloc(1, sizeof(gg_model))};
    gg_err e;
    EXPECT(mm_open(&mm, ms[0], &e) == 0 && mm_open(&mm2, ms[1], &e) == 0, "open two: %s", e.msg);
    gg_tree_opts to = {0};
    gg_tree *one = tree;
    tree = gg_tree_new(ms, 2, r, &to, &e);
    EXPECT(tree, "a tree of two: %s", e.msg);
    if (!tree) {
        tree = one;
        return;
    }
    char want_vs[1024] = "", want_t[1024] = "", want_model[1024] = "";
    for (size_t i = 0; i < gg_n_files; i++) {
        const gg_file_kind *k = &gg_files[i];
        char *w = k->scope == GG_FK_VS          ? want_vs
                  : k->scope == GG_FK_VS_TENSOR ? want_t
                  : k->scope == GG_FK_MODEL     ? want_model
                                                : NULL;
        if (w)
            snprintf(w + strlen(w), 1024 - strlen(w), "%s%s", *w ? " " : "", k->name);
    }
    EXPECT(!strcmp(ls(""), "models.tsv .errors .stats tree tree2"), "root: %s", ls(""));
    EXPECT(!strcmp(ls("tree"), want_model), "a model's folder, vs/ with the rest: %s, the table says %s",
           ls("tree"), want_model);
    EXPECT(strstr(ls("tree"), " as vs") != NULL, "vs/ after as/: %s", ls("tree"));
    EXPECT(!strcmp(ls("tree/vs"), "tree2") && !strcmp(ls("tree2/vs"), "tree"), "vs/: %s", ls("tree/vs"));
    EXPECT(!strcmp(ls("tree/vs/tree2"), want_vs), "vs/tree2: %s, the table says %s", ls("tree/vs/tree2"), want_vs);
    EXPECT(!strcmp(ls("tree/vs/tree2/tensors"), "blk.0.a blk.0.h q"), "vs/tree2/tensors: %s",
           ls("tree/vs/tree2/tensors"));
    EXPECT(!strcmp(ls("tree/vs/tree2/tensors/q"), want_t), "a tensor: %s, the table says %s",
           ls("tree/vs/tree2/tensors/q"), want_t);
    EXPECT(walk("tree/vs/tree") == 0, "vs/ does not hold the model itself");
    static const char *const files[] = {"tensors.tsv", "summary", "summary.json", "tensors/q/diff",
                                        "tensors/blk.0.h/diff.npy", "tensors/blk.0.a/diff"};
    gg_attr a[6];
    uint64_t r0 = atomic_load(&mm.src.reads), r1 = atomic_load(&mm2.src.reads);
    for (int f = 0; f < 6; f++) {
        char path[128];
        snprintf(path, sizeof path, "tree/vs/tree2/%s", files[f]);
        EXPECT(gg_tree_getattr(tree, walk(path), &a[f], &e) == 0, "%s: getattr: %s", path, e.msg);
    }
    EXPECT(atomic_load(&mm.src.reads) == r0 && atomic_load(&mm2.src.reads) == r1,
           "the sizes of vs/ read tensor data (%" PRIu64 ", %" PRIu64 " reads)", atomic_load(&mm.src.reads) - r0,
           atomic_load(&mm2.src.reads) - r1);
    EXPECT(a[3].size == MM_Q_N * 4 && a[5].size == MM_A_N * 4 && a[3].tensor_data && !a[0].tensor_data,
           "diff sizes");
    /* a reader who gave up: nothing computed (the check below counts three) */
    ssize_t glen;
    char *gp = read_given_up("tree/vs/tree2/tensors.tsv", &glen, &e);
    EXPECT(!gp && e.code == GG_E_IO && strstr(e.msg, "stopped"), "vs/ for a reader who gave up: %zd %s", glen,
           gp ? "made" : e.msg);
    free(gp);
    for (int f = 0; f < 6; f++) {
        char path[128];
        snprintf(path, sizeof path, "tree/vs/tree2/%s", files[f]);
        ssize_t len;
        char *p = read_whole(path, &len, &e);
        EXPECT(p && len == (ssize_t)a[f].size, "%s: read %zd, size %" PRIu64 " (%s)", path, len, a[f].size,
               p ? "" : e.msg);
        if (p && f == 3) {
            size_t z = 0;
            while (z < (size_t)len && !p[z])
                z++;
            EXPECT(z == (size_t)len, "%s: against the same values, zeros", path);
        }
        free(p);
    }
    ssize_t len;
    char *st = read_whole(".stats", &len, &e);
    EXPECT(st && strstr(st, "compare_tensors") && strstr(strstr(st, "compare_tensors"), " 3\n"),
           ".stats: three pairs computed");
    free(st);
    gg_tree_free(tree);
    mm_free(&mm2);
    tree = one;
}

/* The tree of mm with writable metadata/, its edits in a file of a new
 * folder (dir, path), made the tree the tests use until edits_tree_close:
 * 0, or -1 when it cannot be made. */
static gg_tree *plain_tree;

static int edits_tree_open(gg_reader *r, char *dir, char *path, size_t cap)
{
    if (!mkdtemp(dir)) {
        EXPECT(0, "mkdtemp");
        return -1;
    }
    snprintf(path, cap, "%s/m.edits.json", dir);
    gg_model *m = calloc(1, sizeof *m);
    gg_err e;
    gg_tree_opts to = {.edits = path, .edits_write = 1};
    gg_tree *t = mm_open(&mm, m, &e) == 0 ? gg_tree_new(&m, 1, r, &to, &e) : NULL;
    EXPECT(t, "a tree with edits: %s", e.msg);
    if (!t) {
        rmdir(dir);
        return -1;
    }
    plain_tree = tree;
    tree = t;
    return 0;
}

static void edits_tree_close(const char *dir, const char *path)
{
    gg_tree_free(tree);
    tree = plain_tree;
    unlink(path);
    rmdir(dir);
}

/* Writing metadata/ (tree.h), without FUSE: a key written and flushed
 * shows in its file and in metadata.json at once while a reader of the
 * version before keeps its bytes; sizes follow; a bad number is refused at
 * the write that ends its line; a key made, typed, renamed; one removed;
 * only metadata/ is writable; the edits file is saved. */
static void edits(gg_reader *r)
{
    char dir[] = "/tmp/test_tree.XXXXXX", path[64];
    gg_err e;
    if (edits_tree_open(r, dir, path, sizeof path))
        return;
    ssize_t n0, n1;
    char *before = read_whole("metadata.json", &n0, &e), *now = NULL, held[8192];
    gg_ino mj = walk("metadata.json"), k = walk("metadata/general.name");
    gg_open_file *rd, *rk, *w;
    char key_held[64];
    EXPECT(gg_tree_open(tree, mj, &rd, &e) == 0 && gg_tree_read(tree, mj, rd, held, 10, 0, &e) == 10 &&
               gg_tree_open(tree, k, &rk, &e) == 0, "readers");
    gg_attr a;
    EXPECT(gg_tree_getattr(tree, walk("metadata"), &a, &e) == 0 && a.writable && gg_tree_getattr(tree, k, &a, &e) == 0 &&
               a.writable && gg_tree_getattr(tree, mj, &a, &e) == 0 && !a.writable,
           "metadata/ and its keys writable, nothing else");
    EXPECT(gg_tree_open_write(tree, mj, 1, &w, &e) != 0 && e.code == GG_E_ROFS, "metadata.json opened for writing");
    EXPECT(gg_tree_open_write(tree, k, 1, &w, &e) == 0 && gg_tree_write(tree, w, "edit", 4, 0, &e) == 4 &&
               gg_tree_write(tree, w, "ed\n", 3, 4, &e) == 3 && gg_tree_flush(tree, w, 0, &e) == 0,
           "general.name written in two pieces: %s", e.msg);
    gg_tree_close(tree, w);
    char *name = read_whole("metadata/general.name", &n1, &e);
    EXPECT(name && n1 == 7 && !memcmp(name, "edited\n", 7), "general.name after the edit");
    free(name);
    now = read_whole("metadata.json", &n1, &e);
    EXPECT(now && strstr(now, "\"edited\"") && gg_tree_getattr(tree, walk("metadata.json"), &a, &e) == 0 &&
               a.size == (uint64_t)n1, "metadata.json follows, and its size");
    ssize_t got = gg_tree_read(tree, mj, rd, held + 10, sizeof held - 10, 10, &e);
    EXPECT(before && got + 10 == n0 && !memcmp(held, before, (size_t)n0), "a reader opened before keeps its bytes");
    gg_tree_close(tree, rd);
    got = gg_tree_read(tree, k, rk, key_held, sizeof key_held, 0, &e);
    EXPECT(got == 13 && !memcmp(key_held, "memory model\n", 13), "a reader of the key opened before keeps its value");
    gg_tree_close(tree, rk);
    /* a new key, typed; a bad number refused at the write; renamed; a key removed */
    gg_ino nk;
    EXPECT(gg_tree_create(tree, walk("metadata"), "my.count", &nk, &w, &e) == 0, "create: %s", e.msg);
    if (w) {
        EXPECT(gg_tree_setxattr(tree, nk, "user.gguf.type", "u32", 3, &e) == 0, "type it: %s", e.msg);
        gg_tree_close(tree, w);
        EXPECT(gg_tree_open_write(tree, nk, 1, &w, &e) == 0 && gg_tree_write(tree, w, "x\n", 2, 0, &e) < 0 &&
                   e.code == GG_E_INVAL && gg_tree_flush(tree, w, 0, &e) < 0,
               "a u32 written x: refused at the write, and at the close");
        gg_tree_close(tree, w);
        EXPECT(gg_tree_open_write(tree, nk, 1, &w, &e) == 0 && gg_tree_write(tree, w, "7", 1, 0, &e) == 1 &&
                   gg_tree_flush(tree, w, 0, &e) == 0, "a u32 written 7: %s", e.msg);
        gg_tree_close(tree, w);
        /* a text made longer than a number's line by a truncation, then a
         * line written at its start: refused at the close, never read past */
        EXPECT(gg_tree_open_write(tree, nk, 0, &w, &e) == 0 && gg_tree_truncate(tree, nk, w, 8192, &e) == 0,
               "a u32's text truncated to 8 KiB: %s", e.msg);
        if (w) {
            gg_tree_write(tree, w, "1\n", 2, 0, &e);
            EXPECT(gg_tree_flush(tree, w, 1, &e) < 0 && e.code == GG_E_INVAL, "8 KiB of a u32 taken at the close");
            gg_tree_close(tree, w);
        }
        char *seven = read_whole("metadata/my.count", &n1, &e);
        EXPECT(seven && n1 == 2 && !memcmp(seven, "7\n", 2), "my.count keeps 7");
        free(seven);
    }
    /* a value that parses but that the model's readers refuse: not taken */
    gg_ino al;
    EXPECT(gg_tree_create(tree, walk("metadata"), "general.alignment", &al, &w, &e) == 0 &&
               gg_tree_setxattr(tree, al, "user.gguf.type", "u32", 3, &e) == 0 &&
               gg_tree_write(tree, w, "3\n", 2, 0, &e) == 2 && gg_tree_flush(tree, w, 1, &e) < 0 &&
               strstr(e.msg, "not a power of two"), "general.alignment 3: %s", e.msg);
    if (w)
        gg_tree_close(tree, w);
    EXPECT(gg_tree_unlink(tree, walk("metadata"), "general.alignment", &e) == 0, "unlink: %s", e.msg);
    EXPECT(gg_tree_rename(tree, walk("metadata"), "my.count", walk("metadata"), "my.renamed", 0, &e) == 0 &&
               !walk("metadata/my.count"), "rename: %s", e.msg);
    EXPECT(gg_tree_unlink(tree, walk("metadata"), "general.architecture", &e) == 0, "unlink: %s", e.msg);
    EXPECT(!strcmp(ls("metadata"), "general.name my.renamed"), "metadata/ after: %s", ls("metadata"));
    char *text = read_whole("metadata/my.renamed", &n1, &e);
    EXPECT(text && n1 == 2 && !memcmp(text, "7\n", 2), "my.renamed holds 7");
    free(text);
    /* a tensor's info.json follows the prism.hadamard.* keys (mversion.h):
     * a new inode when one is renamed, its value unchanged */
    EXPECT(gg_tree_create(tree, walk("metadata"), "prism.hadamard.x", &nk, &w, &e) == 0, "create: %s", e.msg);
    if (w) {
        EXPECT(gg_tree_write(tree, w, "q\n", 2, 0, &e) == 2 && gg_tree_flush(tree, w, 1, &e) == 0, "write: %s", e.msg);
        gg_tree_close(tree, w);
    }
    gg_ino info = walk("tensors/q/info.json");
    EXPECT(gg_tree_rename(tree, walk("metadata"), "prism.hadamard.x", walk("metadata"), "prism.hadamard.weight_names",
                          0, &e) == 0, "rename: %s", e.msg);
    EXPECT(info && walk("tensors/q/info.json") != info, "tensors/q/info.json keeps its inode after a prism.hadamard.* "
                                                        "key was renamed");
    EXPECT(gg_tree_unlink(tree, walk("metadata"), "prism.hadamard.weight_names", &e) == 0, "unlink: %s", e.msg);
    gg_buf saved = {0};
    FILE *f = fopen(path, "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f))
        gg_buf_puts(&saved, line);
    EXPECT(saved.p && strstr(saved.p, "\"my.renamed\": {\"type\": \"u32\", \"value\": 7}") &&
               strstr(saved.p, "\"removed\": [\"general.architecture\"]"), "the edits file: %s", saved.p);
    if (f)
        fclose(f);
    gg_buf_free(&saved);
    free(before);
    free(now);
    edits_tree_close(dir, path);
}

/* Calls on a key while its model gets new versions, 2000 of them: each
 * call holds the newest version and may let it go just as a change retires
 * it (mversion.h), and the version is freed once, by one of them. */
typedef struct racer {
    gg_ino ino;
    _Atomic int *done;
    long calls;
} racer;

static void *race_getattr(void *arg)
{
    racer *rc = arg;
    while (!atomic_load(rc->done)) {
        gg_attr a;
        gg_err e;
        gg_tree_getattr(tree, rc->ino, &a, &e);
        rc->calls++;
    }
    return NULL;
}

static void edits_race(gg_reader *r)
{
    char dir[] = "/tmp/test_tree.XXXXXX", path[64];
    gg_err e;
    if (edits_tree_open(r, dir, path, sizeof path))
        return;
    enum { READERS = 3, EDITS = 2000 };
    _Atomic int done = 0;
    racer rs[READERS];
    pthread_t th[READERS];
    gg_ino k = walk("metadata/general.name");
    for (int i = 0; i < READERS; i++) {
        rs[i] = (racer){k, &done, 0};
        pthread_create(&th[i], NULL, race_getattr, &rs[i]);
    }
    /* each type set on a key made and not written is a new version (and
     * nothing written to the edits file: no fsync between them) */
    gg_ino nk;
    gg_open_file *w = NULL;
    int edited = 0;
    if (gg_tree_create(tree, walk("metadata"), "race.key", &nk, &w, &e) == 0) {
        gg_tree_close(tree, w);
        for (int i = 0; i < EDITS; i++)
            edited += gg_tree_setxattr(tree, nk, "user.gguf.type", i % 2 ? "str" : "u32", 3, &e) == 0;
    }
    atomic_store(&done, 1);
    long calls = 0;
    for (int i = 0; i < READERS; i++) {
        pthread_join(th[i], NULL);
        calls += rs[i].calls;
    }
    EXPECT(edited == EDITS, "%d of %d edits while %ld calls ran", edited, EDITS, calls);
    edits_tree_close(dir, path);
}

int main(void)
{
    mm_build(&mm, "tree.gguf");
    gg_model *m = calloc(1, sizeof *m);
    gg_err e;
    int rc = mm_open(&mm, m, &e);
    EXPECT(rc == 0, "open: %s", e.msg);
    gg_reader_opts ro;
    mm_reader_opts(&ro, 4096);
    gg_reader *r = gg_reader_new(&ro);
    gg_tree_opts to = {0};
    tree = rc ? NULL : gg_tree_new(&m, 1, r, &to, &e);
    EXPECT(tree, "tree: %s", e.msg);
    if (tree) {
        listings();
        table();
        stats_eio(); /* (before sizes() makes every stats) */
        stops(r);
        sizes();
        gguf_files();
        hf_why();
        vs_tree(r);
        edits(r);
        edits_race(r);
        stale();
        /* Left open, as when the kernel drops a RELEASE at unmount:
         * gg_tree_free closes it (LSan in 35_sanitizers finds it otherwise). */
        gg_open_file *left;
        EXPECT(gg_tree_open(tree, walk("tensors/q/f32"), &left, &e) == 0 && left, "open a file left open");
    }
    /* The tree first: closing each model cancels and waits for its
     * read-ahead jobs (gg_reader_cancel), which needs the reader alive. */
    gg_tree_free(tree);
    gg_reader_free(r);
    mm_free(&mm);
    if (fails) {
        fprintf(stderr, "test_tree: %d failed\n", fails);
        return 1;
    }
    printf("test_tree: all passed\n");
    return 0;
}
