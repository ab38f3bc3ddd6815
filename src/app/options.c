/* options.c - the command line (see options.h). */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gguffs/decode.h"
#include "gguffs/export.h"
#include "gguffs/recipe.h"

int gg_parse_size(const char *s, unsigned long long *out)
{
    /* Digits, an optional fraction, an optional K/M/G/T (+ optional "i"),
     * an optional "B". A fraction needs a unit (bytes are whole). */
    const char *p = s;
    unsigned long long whole = 0;
    int nd = 0;
    for (; *p >= '0' && *p <= '9'; p++, nd++) {
        if (whole > (ULLONG_MAX - 9) / 10)
            return -1;
        whole = whole * 10 + (unsigned)(*p - '0');
    }
    double frac = 0, scale = 0.1;
    int nf = 0;
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, nf++, scale /= 10)
            frac += (*p - '0') * scale;
        if (!nf)
            return -1;
    }
    if (!nd && !nf)
        return -1;
    unsigned shift = 0;
    switch (*p) {
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    case 't': case 'T': shift = 40; p++; break;
    default: break;
    }
    if (shift && *p == 'i')
        p++;
    if (*p == 'B' || *p == 'b')
        p++;
    if (*p || (nf && !shift) || (shift && whole > (ULLONG_MAX >> shift) - 1))
        return -1;
    *out = (whole << shift) + (unsigned long long)(frac * (double)(1ull << shift));
    return 0;
}

static int parse_count(const char *s, long long *out)
{
    char *end;
    errno = 0;
    if (!(*s >= '0' && *s <= '9'))
        return -1;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* A size for messages: exact with a unit where it divides, else to 0.1. */
static void show_size(char *out, size_t n, unsigned long long v)
{
    static const char u[] = "KMGT";
    int k = -1;
    double x = (double)v;
    while (x >= 1024 && k < 3) {
        x /= 1024;
        k++;
    }
    if (k < 0)
        snprintf(out, n, "%llu", v);
    else if (v % (1ull << (10 * (k + 1))) == 0)
        snprintf(out, n, "%.0f%c", x, u[k]);
    else
        snprintf(out, n, "%.1f%c", (double)(long long)(x * 10) / 10, u[k]);
}

static unsigned long long physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    return pages > 0 && psz > 0 ? (unsigned long long)pages * (unsigned long long)psz : 1ull << 40;
}

static int cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* A size option: bytes within [lo, hi]. */
static int size_opt(const char *name, const char *val, unsigned long long lo, unsigned long long hi,
                    unsigned long long *out)
{
    if (gg_parse_size(val, out) == 0 && *out >= lo && *out <= hi)
        return 0;
    char a[32], b[32];
    show_size(a, sizeof a, lo);
    show_size(b, sizeof b, hi);
    fprintf(stderr, "gguffs: -o %s=%s: expected a size from %s to %s (a number with K, M, G or T; "
                    "fractions like 1.5G are fine)\n", name, val, a, b);
    return -1;
}

/* A whole-number option within [lo, hi]. */
static int int_opt(const char *name, const char *val, long long lo, long long hi, int *out)
{
    long long v;
    if (parse_count(val, &v) == 0 && v >= lo && v <= hi) {
        *out = (int)v;
        return 0;
    }
    fprintf(stderr, "gguffs: -o %s=%s: expected a whole number from %lld to %lld\n", name, val, lo, hi);
    return -1;
}

/* One of a NULL-terminated list of words: its index. */
static int choice_opt(const char *name, const char *val, const char *const *choices, int *out)
{
    int n = 0;
    for (; choices[n]; n++)
        if (!strcmp(val, choices[n])) {
            *out = n;
            return 0;
        }
    fprintf(stderr, "gguffs: -o %s=%s: expected ", name, val);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", choices[i]);
    fprintf(stderr, "\n");
    return -1;
}

static int simd_opt(gg_cli *c, const char *val)
{
    gg_isa isa;
    if (gg_isa_parse(val, &isa) != 0) {
        fprintf(stderr, "gguffs: -o simd=%s: expected scalar, avx2, avx512 or neon\n", val);
        return -1;
    }
    if (gg_isa_set(isa) != 0) {
        fprintf(stderr, "gguffs: -o simd=%s: this CPU (or this build) does not have it\n", val);
        return -1;
    }
    return 0;
}

static int types_opt(gg_cli *c, const char *val)
{
    gg_err e;
    if (!*val) {
        fprintf(stderr, "gguffs: -o types= needs ID:NAME[,ID:NAME...] (e.g. types=42:STQ1_0)\n");
        return -1;
    }
    if (gg_parse_forced_types(&c->open, val, &e) != 0) {
        fprintf(stderr, "gguffs: -o types=%s: %s\n", val, e.msg);
        return -1;
    }
    return 0;
}

/* -o as=LIST; more of the list: more_as */
static int as_opt(gg_cli *c, const char *val)
{
    gg_err e;
    uint64_t mask;
    if (gg_recipe_list(val, &mask, &e)) {
        fprintf(stderr, "gguffs: -o %s\n", e.msg);
        return -1;
    }
    free(c->as);
    if (!(c->as = strdup(val))) {
        fprintf(stderr, "gguffs: out of memory\n");
        return -1;
    }
    c->tree.as = c->as;
    return 0;
}

/* A recipe's name after an as= of the same -o list: one more of it. */
static int more_as(gg_cli *c, const char *item)
{
    size_t n = strlen(c->as);
    char *p = realloc(c->as, n + strlen(item) + 2);
    if (!p) {
        fprintf(stderr, "gguffs: out of memory\n");
        return -1;
    }
    sprintf(p + n, "%s%s", n ? "," : "", item);
    c->as = p;
    c->tree.as = p;
    return 0;
}

static int header_opt(gg_cli *c, const char *val)
{
    const char *colon = strchr(val, ':');
    if (!colon || colon == val || strpbrk(val, "\r\n")) {
        fprintf(stderr, "gguffs: -o header=%s: expected 'Name: value'\n", val);
        return -1;
    }
    if (c->net.n_headers >= GG_NET_MAX_HEADERS) {
        fprintf(stderr, "gguffs: -o header: at most %d of them\n", GG_NET_MAX_HEADERS);
        return -1;
    }
    if (!(c->headers[c->net.n_headers] = strdup(val))) {
        fprintf(stderr, "gguffs: out of memory\n");
        return -1;
    }
    c->net.headers[c->net.n_headers] = c->headers[c->net.n_headers];
    c->net.n_headers++;
    return 0;
}

static int push(char ***arr, int *n, const char *s)
{
    char **p = realloc(*arr, (size_t)(*n + 2) * sizeof *p);
    if (!p)
        return -1;
    *arr = p;
    p[*n] = strdup(s);
    if (!p[*n])
        return -1;
    p[++*n] = NULL;
    return 0;
}

/* Options for libfuse, joined into one -o argument. */
typedef struct fuse_o {
    char *s;
    size_t len;
} fuse_o;

static int fuse_o_add(fuse_o *f, const char *opt)
{
    size_t n = strlen(opt);
    char *p = realloc(f->s, f->len + n + 2);
    if (!p)
        return -1;
    f->s = p;
    if (f->len)
        p[f->len++] = ',';
    memcpy(p + f->len, opt, n + 1);
    f->len += n;
    return 0;
}

/* What an option's value is: how it is checked and what field it fills. */
typedef enum opt_kind {
    OPT_FLAG,   /* no value: the int field becomes 1 */
    OPT_INT,    /* a whole number in [lo, hi]: int */
    OPT_SIZE,   /* bytes in [lo, hi] (gg_parse_size): uint64_t */
    OPT_CHOICE, /* one of choices[]: its index, an int */
    OPT_FILE,   /* a file that exists, made absolute: char * */
    OPT_DIR,    /* a folder, made absolute; it may not exist yet: char * */
    OPT_PATH,   /* a path as given: char * */
    OPT_TEXT,   /* text as given, not empty: char * */
    OPT_CALL,   /* checked and stored by call() */
} opt_kind;

enum { OPT_MOUNT, OPT_REMOTE }; /* the --help section of a row */

/* Bounds known only at run time, as hi. */
#define OPT_RAM (-1)    /* the machine's memory */
#define OPT_4CORES (-2) /* 4 x the cores, at least 8 */

typedef struct option {
    const char *name, *value; /* --help shows -o name=VALUE; no value: a flag */
    opt_kind kind;
    size_t at;                /* the gg_cli field: INT(f), U64(f) or STR(f) */
    long long lo, hi;         /* INT and SIZE */
    const char *const *choices;              /* CHOICE, NULL-terminated */
    int (*call)(gg_cli *c, const char *val); /* CALL: 0, or -1 after a message */
    int group;
    const char *help;         /* the --help text; a \n goes on under it */
} option;

/* A field's offset; a field of another type than the kind fills does not compile. */
#define INT(f) _Generic(((gg_cli *)0)->f, int: offsetof(gg_cli, f))
#define U64(f) _Generic(((gg_cli *)0)->f, uint64_t: offsetof(gg_cli, f))
#define STR(f) _Generic(((gg_cli *)0)->f, char *: offsetof(gg_cli, f))

_Static_assert(GG_VIEW_F32 == 0 && GG_VIEW_F16 == 1 && GG_VIEW_BF16 == 2,
               "safetensors_dtype's choices are in gg_view_kind order");

/* Every gguffs -o option, in --help order (and the man page's: 60_toolbox checks). */
static const option options[] = {
    {.name = "cache_size", .value = "SIZE", .kind = OPT_SIZE, .at = U64(reader.cache_bytes),
     .lo = 64 << 10, .hi = OPT_RAM, .help = "decoded-page cache budget (default 256M; K, M, G, T; 1.5G)"},
    {.name = "page_size", .value = "SIZE", .kind = OPT_SIZE, .at = U64(reader.page_bytes),
     .lo = 4096, .hi = 64 << 20, .help = "decoded page size (default 256K; 4K to 64M)"},
    {.name = "threads", .value = "N", .kind = OPT_INT, .at = INT(reader.threads),
     .lo = 1, .hi = OPT_4CORES, .help = "decode threads (default: number of cores)"},
    {.name = "readahead", .value = "N", .kind = OPT_INT, .at = INT(reader.readahead_pages),
     .lo = 0, .hi = 1024, .help = "pages decoded ahead of sequential readers (default 16, 0 off)"},
    {.name = "read_ahead_kb", .value = "N", .kind = OPT_INT, .at = INT(fuse.read_ahead_kb),
     .lo = 0, .hi = 65536, .help = "kernel read-ahead of the mount, as root (default 1024, 0: kernel's)"},
    {.name = "simd", .value = "ISA", .kind = OPT_CALL, .call = simd_opt,
     .help = "force scalar, avx2, avx512 or neon decoding (also $GGUFFS_SIMD)"},
    {.name = "types", .value = "ID:NAME[,ID:NAME...]", .kind = OPT_CALL, .call = types_opt,
     .help = "force the meaning of type ids,\ne.g. types=42:STQ1_0,43:STQ1_0"},
    {.name = "stq1_0_order", .value = "ORDER", .kind = OPT_CHOICE, .at = INT(open.stq1_0_consecutive),
     .choices = (const char *const[]){"stride16", "consecutive", NULL},
     .help = "stride16 (default) or consecutive"},
    {.name = "direct_io", .kind = OPT_FLAG, .at = INT(fuse.direct_io),
     .help = "tensor files bypass the kernel page cache"},
    {.name = "max_threads", .value = "N", .kind = OPT_INT, .at = INT(fuse.max_threads),
     .lo = 1, .hi = 256, .help = "FUSE worker threads (default 16)"},
    {.name = "clone_fd", .kind = OPT_FLAG, .at = INT(fuse.clone_fd),
     .help = "one /dev/fuse descriptor per FUSE thread"},
    {.name = "logfile", .value = "PATH", .kind = OPT_PATH, .at = STR(logfile),
     .help = "append the daemon's messages to PATH"},
    {.name = "safetensors_dtype", .value = "T", .kind = OPT_CHOICE, .at = INT(tree.safetensors_dtype),
     .choices = (const char *const[]){"f32", "f16", "bf16", NULL},
     .help = "f32 (default), f16 or bf16 for model.safetensors"},
    {.name = "model_memory", .value = "SIZE", .kind = OPT_SIZE, .at = U64(models_bytes),
     .lo = 1 << 20, .hi = OPT_RAM, .help = "opened models of a folder kept within SIZE (default 256M)"},
    {.name = "imatrix", .value = "FILE", .kind = OPT_FILE, .at = STR(imatrix),
     .help = "an imatrix GGUF: comparisons gain w_rel_rmse\n(vs/*/tensors.tsv, --compare)"},
    {.name = "novs", .kind = OPT_FLAG, .at = INT(tree.novs),
     .help = "no vs/ folders in a mount of several models (ls -R or find\nover N models walks N*(N-1) of them)"},
    {.name = "as", .value = "LIST", .kind = OPT_CALL, .call = as_opt,
     .help = "the recipes as/ lists (default f32,f16,bf16,q8_0,q4_k_m,\nq5_k_m,q6_k,q3_k_m,q2_k,iq4_xs; any is served by name)"},
    {.name = "edits", .value = "FILE|DIR", .kind = OPT_DIR, .at = STR(edits),
     .help = "metadata/ is writable; the edits are kept in FILE\n(a folder of models: DIR/PATH.edits.json); --cat, --dump"},

    {.name = "timeout", .value = "SECONDS", .kind = OPT_INT, .at = INT(net.timeout_s), .group = OPT_REMOTE,
     .lo = 1, .hi = 3600, .help = "the longest a remote read waits, retries included (default 30)"},
    {.name = "retries", .value = "N", .kind = OPT_INT, .at = INT(net.retries), .group = OPT_REMOTE,
     .lo = 0, .hi = 20, .help = "tries after the first for transient failures (default 5)"},
    {.name = "cafile", .value = "PATH", .kind = OPT_FILE, .at = STR(cafile), .group = OPT_REMOTE,
     .help = "CA certificates to trust (also $CURL_CA_BUNDLE)"},
    {.name = "header", .value = "'NAME: VALUE'", .kind = OPT_CALL, .call = header_opt, .group = OPT_REMOTE,
     .help = "an HTTP header for the models' own host (repeatable)"},
    {.name = "net_cache", .value = "SIZE", .kind = OPT_SIZE, .at = U64(net.mem_cache_bytes), .group = OPT_REMOTE,
     .lo = 4 << 20, .hi = OPT_RAM, .help = "downloaded blocks kept in memory (default 256M)"},
    {.name = "cache_dir", .value = "DIR", .kind = OPT_DIR, .at = STR(cache_dir), .group = OPT_REMOTE,
     .help = "keep downloaded blocks on disk (default: off; made with its parents)"},
    {.name = "cache_dir_size", .value = "SIZE", .kind = OPT_SIZE, .at = U64(net.cache_dir_bytes),
     .group = OPT_REMOTE, .lo = 16 << 20, .hi = 1ll << 50, .help = "bound of cache_dir (default 10G)"},
    {.name = "unvalidated", .kind = OPT_FLAG, .at = INT(net.unvalidated), .group = OPT_REMOTE,
     .help = "mount URLs whose server sends no ETag and no Last-Modified"},
    {.name = "s3_region", .value = "REGION", .kind = OPT_TEXT, .at = STR(s3_region), .group = OPT_REMOTE,
     .help = "the region of s3:// names (else $AWS_REGION, the profile's,\nus-east-1)"},
    {.name = "s3_endpoint", .value = "URL", .kind = OPT_TEXT, .at = STR(s3_endpoint), .group = OPT_REMOTE,
     .help = "an S3 store's endpoint, path-style (MinIO, R2;\nelse $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, AWS)"},
    {.name = "ollama_registry", .value = "URL", .kind = OPT_TEXT, .at = STR(ollama_registry), .group = OPT_REMOTE,
     .help = "the registry of ollama:// names (default\nhttps://registry.ollama.ai; http on loopback only)"},
};
#define N_OPTIONS (sizeof options / sizeof *options)

static long long option_hi(const option *o)
{
    if (o->hi == OPT_RAM)
        return (long long)physical_memory();
    if (o->hi == OPT_4CORES)
        return 4 * cores() < 8 ? 8 : 4 * cores();
    return o->hi;
}

/* The rows of one --help section: "  -o name=VALUE" in 23 columns, then the text. */
static void usage_rows(FILE *out, int group)
{
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const option *o = &options[i];
        if (o->group != group)
            continue;
        char head[64];
        snprintf(head, sizeof head, "-o %s%s%s", o->name, o->value ? "=" : "", o->value ? o->value : "");
        fprintf(out, "  %-23s%s", head, strlen(head) > 23 ? "  " : " ");
        for (const char *p = o->help; *p; p++)
            if (*p == '\n')
                fprintf(out, "\n%26s", "");
            else
                fputc(*p, out);
        fputc('\n', out);
    }
}

void gg_cli_usage(FILE *out)
{
    fputs("usage: gguffs [options] MODEL.gguf|URL|hf://ORG/REPO[@REV][/FILE]|FOLDER ... MOUNTPOINT\n"
          "       gguffs [options] --ollama|--hf-cache|--lmstudio [...] MOUNTPOINT\n"
          "       gguffs --dump [--json] [--full] [-o OPTS] MODEL.gguf\n"
          "       gguffs --verify [--tensor GLOB ...] [-o OPTS] MODEL.gguf\n"
          "       gguffs --cat [-o OPTS] MODEL PATH   (a file of MODEL's tree to stdout, no FUSE)\n"
          "       gguffs --compare [--json] [-o OPTS] MODEL.gguf REF.gguf\n"
          "       gguffs --set KEY[:TYPE]=VALUE|--remove KEY ... -o edits=FILE MODEL.gguf\n"
          "       gguffs --help | --version\n"
          "\n"
          "Mounts GGUF models as a read-only tree (but metadata/ with -o edits=):\n"
          "metadata/<key>, metadata.json, summary,\n"
          "tensors/<name>/{raw,f32,f32.npy,f16,bf16,info.json,stats}, tensors.tsv,\n"
          "model.safetensors, model.gguf, as/<recipe>.gguf (f32, q4_k_m, ...), blocks/<N>/.\n"
          "A folder or a model store gives one folder per model, kept current, with\n"
          "models.tsv and .errors, and each model a vs/<other>/ folder comparing it\n"
          "with every other one.\n"
          "Unmount with: fusermount3 -u MOUNTPOINT\n"
          "\n"
          "options:\n"
          "  -f                      stay in the foreground\n"
          "  -d                      debug output (implies -f)\n"
          "  -s                      single-threaded (slower)\n", out);
    usage_rows(out, OPT_MOUNT);
    fputs("model stores (each also recognised when given as FOLDER):\n"
          "  --ollama                Ollama's models ($OLLAMA_MODELS, ~/.ollama/models)\n"
          "  --hf-cache              the Hugging Face hub cache ($HF_HUB_CACHE, $HF_HOME/hub)\n"
          "  --lmstudio              LM Studio's models (~/.lmstudio/models)\n"
          "remote models (https://..., hf://ORG/REPO[@REV][/FILE.gguf], s3://BUCKET/KEY,\n"
          "ollama://[HOST/][NS/]MODEL[:TAG]):\n", out);
    usage_rows(out, OPT_REMOTE);
    fputs("  -o OPT                  any other option is passed to libfuse (e.g. allow_other)\n"
          "\n"
          "exit status: 0 ok, 1 internal error, 2 usage, 3 cannot open model, 4 model is not\n"
          "a regular file, 5 malformed model, 6 mount point missing or not a directory,\n"
          "7 mount point busy or stale, 8 mount failed, 9 --verify found problems,\n"
          "10 unmounting failed, 11 --cat: no such file in the tree.\n"
          "See gguffs(1).\n", out);
}

/* A FILE, DIR or PATH value into its field (which owns it). */
static int path_opt(const option *o, const char *val, char **out)
{
    if (!*val) {
        fprintf(stderr, "gguffs: -o %s= needs a %s\n", o->name,
                o->kind == OPT_FILE ? "file" : o->kind == OPT_DIR ? "folder" : o->kind == OPT_TEXT ? "value" : "path");
        return -1;
    }
    char *s = NULL;
    if (o->kind == OPT_PATH || o->kind == OPT_TEXT) {
        s = strdup(val);
    } else if (!(s = realpath(val, NULL))) {
        /* Kept absolute: the daemon changes to / once in the background. */
        if (o->kind == OPT_FILE) {
            fprintf(stderr, "gguffs: -o %s=%s: %s\n", o->name, val, strerror(errno));
            return -1;
        }
        /* A folder that does not exist yet: made later, with its parents. */
        char cwd[4096];
        if (val[0] == '/' || !getcwd(cwd, sizeof cwd) || asprintf(&s, "%s/%s", cwd, val) < 0)
            s = strdup(val);
    }
    if (!s) {
        fprintf(stderr, "gguffs: out of memory\n");
        return -1;
    }
    free(*out);
    *out = s;
    return 0;
}

/* One -o option (name or name=value, separators already removed). Returns
 * 0, 1 to hand it to libfuse, or -1 after a message. */
static int one_option(gg_cli *c, const char *item)
{
    const char *eq = strchr(item, '=');
    size_t nl = eq ? (size_t)(eq - item) : strlen(item);
    const char *val = eq ? eq + 1 : NULL;
    const option *o = options;
    while (o < options + N_OPTIONS && !(strlen(o->name) == nl && !memcmp(o->name, item, nl)))
        o++;
    if (o == options + N_OPTIONS)
        return 1;
    if (o->kind == OPT_FLAG ? val != NULL : val == NULL) {
        fprintf(stderr, val ? "gguffs: -o %s takes no value\n" : "gguffs: -o %s needs a value (%s=...)\n", item, item);
        return -1;
    }
    char *field = (char *)c + o->at;
    unsigned long long v;
    switch (o->kind) {
    case OPT_FLAG:
        *(int *)field = 1;
        return 0;
    case OPT_INT:
        return int_opt(o->name, val, o->lo, option_hi(o), (int *)field);
    case OPT_SIZE:
        if (size_opt(o->name, val, (unsigned long long)o->lo, (unsigned long long)option_hi(o), &v))
            return -1;
        *(uint64_t *)field = v;
        return 0;
    case OPT_CHOICE:
        return choice_opt(o->name, val, o->choices, (int *)field);
    case OPT_FILE: case OPT_DIR: case OPT_PATH: case OPT_TEXT:
        return path_opt(o, val, (char **)field);
    case OPT_CALL:
        return o->call(c, val);
    }
    return -1;
}

/* Split "a,b\,c" at unescaped commas and handle each. An item that
 * starts with a digit, after a types= of the same list, is one more ID:NAME
 * of it ("types=42:STQ1_0,43:Q2_0", also as mount.fuse3 passes an fstab
 * line): no other option starts with a digit. So is a recipe's name after
 * an as= ("as=f32,q4_k_m"): no option of ours or libfuse's is named so. */
static int options_arg(gg_cli *c, const char *arg, fuse_o *fo)
{
    size_t n = strlen(arg);
    char *one = malloc(n + 7);
    if (!one)
        return -1;
    int rc = 0, types = 0, as = 0;
    for (size_t i = 0; i <= n && rc == 0;) {
        size_t k = 0;
        if (types && arg[i] >= '0' && arg[i] <= '9')
            k = (size_t)sprintf(one, "types=");
        for (; i < n && arg[i] != ','; i++) {
            if (arg[i] == '\\' && i + 1 < n)
                i++;
            one[k++] = arg[i];
        }
        one[k] = 0;
        i++;
        if (!k)
            continue;
        types |= !strncmp(one, "types=", 6);
        if (as && !strchr(one, '=') && gg_recipe_by_name(one, k)) {
            rc = more_as(c, one);
            continue;
        }
        as |= !strncmp(one, "as=", 3);
        if (one[0] >= '0' && one[0] <= '9') {
            fprintf(stderr, "gguffs: -o %s: type ids are given as types=ID:NAME[,ID:NAME...]\n", one);
            rc = -1;
            break;
        }
        int r = one_option(c, one);
        if (r < 0)
            rc = -1;
        else if (r > 0)
            rc = fuse_o_add(fo, one);
    }
    free(one);
    return rc;
}

/* A flag of its own: a mode, a model store, --json, --full, -f, -d, -s
 * (0: not one of them). */
static int lone_flag(gg_cli *c, const char *a, int *debug)
{
    if (!strcmp(a, "--help") || !strcmp(a, "-h"))
        c->mode = GG_MODE_HELP;
    else if (!strcmp(a, "--version") || !strcmp(a, "-V"))
        c->mode = GG_MODE_VERSION;
    else if (!strcmp(a, "--dump"))
        c->mode = GG_MODE_DUMP;
    else if (!strcmp(a, "--verify"))
        c->mode = GG_MODE_VERIFY;
    else if (!strcmp(a, "--cat"))
        c->mode = GG_MODE_CAT;
    else if (!strcmp(a, "--compare"))
        c->mode = GG_MODE_COMPARE;
    else if (!strcmp(a, "--ollama"))
        c->stores |= 1;
    else if (!strcmp(a, "--hf-cache"))
        c->stores |= 2;
    else if (!strcmp(a, "--lmstudio"))
        c->stores |= 4;
    else if (!strcmp(a, "--json"))
        c->json = 1;
    else if (!strcmp(a, "--full"))
        c->full = 1;
    else if (!strcmp(a, "-f"))
        c->fuse.foreground = 1;
    else if (!strcmp(a, "-d"))
        *debug = c->fuse.foreground = 1;
    else if (!strcmp(a, "-s"))
        c->fuse.single_thread = 1;
    else
        return 0;
    return 1;
}

static int wrong(const char *msg)
{
    fprintf(stderr, "gguffs: %s\n", msg);
    return 2;
}

/* argv[*i], and its value when that is the next argument (*i moves on to
 * it): 0, 1 out of memory, 2 a wrong argument (said on stderr). */
static int one_arg(gg_cli *c, int argc, char **argv, int *i, fuse_o *fo, int *debug, int *dashdash)
{
    const char *a = argv[*i];
    if (*dashdash || a[0] != '-' || !a[1])
        return push(&c->pos, &c->npos, a) ? 1 : 0;
    if (!strcmp(a, "--")) {
        *dashdash = 1;
        return 0;
    }
    if (lone_flag(c, a, debug))
        return 0;
    if (!strcmp(a, "--set") || !strcmp(a, "--remove")) {
        const char *kv = *i + 1 < argc ? argv[++*i] : NULL;
        if (!kv || (a[2] == 's' && !strchr(kv, '=')))
            return wrong(a[2] == 's' ? "--set needs KEY=VALUE (or KEY:TYPE=VALUE for a new key)" : "--remove needs a KEY");
        char *one = gg_xprintf("%c%s", a[2] == 's' ? '=' : '-', kv);
        if (!one)
            return 1;
        int rc = push(&c->sets, &c->nsets, one);
        free(one);
        c->mode = GG_MODE_SET;
        return rc ? 1 : 0;
    }
    if (!strcmp(a, "--tensor") || !strncmp(a, "--tensor=", 9)) {
        const char *g = a[8] == '=' ? a + 9 : *i + 1 < argc ? argv[++*i] : NULL;
        if (!g)
            return wrong("--tensor needs a name or a glob pattern");
        return push(&c->only, &c->n_only, g) ? 1 : 0;
    }
    if (!strncmp(a, "-o", 2)) {
        const char *o = a[2] ? a + 2 : *i + 1 < argc ? argv[++*i] : NULL;
        if (!o)
            return wrong("-o needs options");
        return options_arg(c, o, fo) ? 2 : 0;
    }
    fprintf(stderr, "gguffs: unknown option %s (see gguffs --help)\n", a);
    return 2;
}

/* The tools (--dump, --verify, --cat, --compare): their number of models
 * (and paths), no -o for libfuse. */
static int tool_args(const gg_cli *c, const fuse_o *fo)
{
    const char *cmd = c->mode == GG_MODE_DUMP     ? "--dump"
                      : c->mode == GG_MODE_VERIFY ? "--verify"
                      : c->mode == GG_MODE_CAT    ? "--cat"
                      : c->mode == GG_MODE_SET    ? "--set"
                                                  : "--compare";
    int want = c->mode == GG_MODE_CAT || c->mode == GG_MODE_COMPARE ? 2 : 1;
    if (c->npos != want) {
        if (c->mode == GG_MODE_CAT)
            fprintf(stderr, "gguffs --cat: %s (gguffs --cat MODEL PATH, e.g. gguffs --cat m.gguf as/q4_k_m.gguf)\n",
                    c->npos < 2 ? "which model and which file of its tree?" : "one model and one file");
        else if (c->mode == GG_MODE_COMPARE)
            fprintf(stderr, "gguffs --compare: two models: MODEL and the REFerence it is compared with\n");
        else
            fprintf(stderr, "gguffs %s: %s\n", cmd, c->npos ? "one model at a time" : "which model?");
        return 2;
    }
    if (fo->len) {
        fprintf(stderr, "gguffs %s: -o %s only applies to mounting\n", cmd, fo->s);
        return 2;
    }
    return 0;
}

/* Options that belong to another mode, and the mode's arguments: 0, or 2
 * (said on stderr). */
static int check_mode(const gg_cli *c, const fuse_o *fo)
{
    int dump_or_help = c->mode == GG_MODE_DUMP || c->mode == GG_MODE_HELP || c->mode == GG_MODE_VERSION;
    if ((c->full && !dump_or_help) || (c->json && !dump_or_help && c->mode != GG_MODE_COMPARE))
        return wrong("--json and --full belong to --dump (gguffs --dump --json MODEL.gguf); "
                     "--json also to --compare");
    if (c->mode == GG_MODE_MOUNT) {
        if (c->npos < (c->stores ? 1 : 2)) {
            gg_cli_usage(stderr);
            return 2;
        }
    } else if (c->mode != GG_MODE_HELP && c->mode != GG_MODE_VERSION && tool_args(c, fo)) {
        return 2;
    }
    if (c->stores && c->mode != GG_MODE_MOUNT)
        return wrong("--ollama, --hf-cache and --lmstudio are for mounting");
    if (c->n_only && c->mode != GG_MODE_VERIFY)
        return wrong("--tensor belongs to --verify");
    if (c->mode == GG_MODE_SET && !c->edits)
        return wrong("--set and --remove keep the edits in a file: give it with -o edits=FILE");
    if (c->edits && (c->mode == GG_MODE_VERIFY || c->mode == GG_MODE_COMPARE))
        return wrong("-o edits= belongs to a mount, --cat, --dump and --set");
    return 0;
}

/* libfuse's own arguments: debug, our fixed options, the user's. */
static int fuse_args(gg_cli *c, fuse_o *fo, const char *argv0, int debug)
{
    /* (with edits, metadata/ is writable: the tree says what is read-only) */
    if ((!c->edits && fuse_o_add(fo, "ro")) || fuse_o_add(fo, "default_permissions") || fuse_o_add(fo, "subtype=gguffs") ||
        push(&c->fuse_argv, &c->fuse_argc, argv0) || (debug && push(&c->fuse_argv, &c->fuse_argc, "-d")) ||
        push(&c->fuse_argv, &c->fuse_argc, "-o") || push(&c->fuse_argv, &c->fuse_argc, fo->s)) {
        fprintf(stderr, "gguffs: out of memory\n");
        return 1;
    }
    return 0;
}

int gg_cli_parse(gg_cli *c, int argc, char **argv)
{
    memset(c, 0, sizeof *c);
    gg_reader_default_opts(&c->reader);
    gg_net_default_opts(&c->net);
    c->fuse.read_ahead_kb = 1024;
    c->models_bytes = 256ull << 20;
    fuse_o fo = {0};
    int debug = 0, rc = 0, dashdash = 0;
    for (int i = 1; i < argc && !rc; i++)
        rc = one_arg(c, argc, argv, &i, &fo, &debug, &dashdash);
    if (rc == 1)
        fprintf(stderr, "gguffs: out of memory\n");
    if (!rc)
        rc = check_mode(c, &fo);
    if (!rc && c->mode == GG_MODE_MOUNT)
        rc = fuse_args(c, &fo, argv[0], debug);
    c->net.cafile = c->cafile;
    c->net.cache_dir = c->cache_dir;
    c->net.s3_region = c->s3_region;
    c->net.s3_endpoint = c->s3_endpoint;
    c->net.ollama_registry = c->ollama_registry;
    free(fo.s);
    gg_err e;
    if (!rc && gg_net_check_opts(&c->net, &e)) {
        /* (before anything is opened, whatever is named: a value is wrong
         * whether or not a name of its scheme comes) */
        fprintf(stderr, "gguffs: %s\n", e.msg);
        rc = 2;
    }
    return rc;
}

void gg_cli_free(gg_cli *c)
{
    for (int i = 0; i < c->npos; i++)
        free(c->pos[i]);
    for (int i = 0; i < c->n_only; i++)
        free(c->only[i]);
    for (int i = 0; i < c->fuse_argc; i++)
        free(c->fuse_argv[i]);
    free(c->pos);
    free(c->only);
    free(c->fuse_argv);
    free(c->logfile);
    free(c->cafile);
    free(c->cache_dir);
    free(c->s3_region);
    free(c->s3_endpoint);
    free(c->ollama_registry);
    free(c->imatrix);
    free(c->as);
    free(c->edits);
    for (int i = 0; i < c->nsets; i++)
        free(c->sets[i]);
    free(c->sets);
    for (int i = 0; i < GG_NET_MAX_HEADERS; i++)
        free(c->headers[i]);
    memset(c, 0, sizeof *c);
}
