/* options.c - the command line (see options.h). */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gguffs/decode.h"
#include "gguffs/export.h"

void gg_cli_usage(FILE *out)
{
    fprintf(out,
            "usage: gguffs [options] MODEL.gguf|URL|hf://ORG/REPO[@REV][/FILE]|FOLDER ... MOUNTPOINT\n"
            "       gguffs [options] --ollama|--hf-cache|--lmstudio [...] MOUNTPOINT\n"
            "       gguffs --dump [--json] [--full] [-o OPTS] MODEL.gguf\n"
            "       gguffs --verify [--tensor GLOB ...] [-o OPTS] MODEL.gguf\n"
            "       gguffs --help | --version\n"
            "\n"
            "Mounts GGUF models as a read-only tree: metadata/<key>, metadata.json, summary,\n"
            "tensors/<name>/{raw,f32,f32.npy,f16,bf16,info.json,stats}, tensors.tsv,\n"
            "model.safetensors, blocks/<N>/. A folder or a model store gives one folder\n"
            "per model, kept current, with models.tsv and .errors.\n"
            "Unmount with: fusermount3 -u MOUNTPOINT\n"
            "\n"
            "options:\n"
            "  -f                      stay in the foreground\n"
            "  -d                      debug output (implies -f)\n"
            "  -s                      single-threaded (slower)\n"
            "  -o cache_size=SIZE      decoded-page cache budget (default 256M; K, M, G, T; 1.5G)\n"
            "  -o page_size=SIZE       decoded page size (default 256K; 4K to 64M)\n"
            "  -o threads=N            decode threads (default: number of cores)\n"
            "  -o readahead=N          pages decoded ahead of sequential readers (default 16, 0 off)\n"
            "  -o read_ahead_kb=N      kernel read-ahead of the mount, as root (default 1024, 0: kernel's)\n"
            "  -o simd=ISA             force scalar, avx2, avx512 or neon decoding (also $GGUFFS_SIMD)\n"
            "  -o types=ID:NAME[,ID:NAME...]  force the meaning of type ids,\n"
            "                          e.g. types=42:STQ1_0,43:STQ1_0\n"
            "  -o stq1_0_order=ORDER   stride16 (default) or consecutive\n"
            "  -o direct_io            tensor files bypass the kernel page cache\n"
            "  -o max_threads=N        FUSE worker threads (default 16)\n"
            "  -o clone_fd             one /dev/fuse descriptor per FUSE thread\n"
            "  -o logfile=PATH         append the daemon's messages to PATH\n"
            "  -o safetensors_dtype=T  f32 (default), f16 or bf16 for model.safetensors\n"
            "  -o model_memory=SIZE    opened models of a folder kept within SIZE (default 256M)\n"
            "model stores (each also recognised when given as FOLDER):\n"
            "  --ollama                Ollama's models ($OLLAMA_MODELS, ~/.ollama/models)\n"
            "  --hf-cache              the Hugging Face hub cache ($HF_HUB_CACHE, $HF_HOME/hub)\n"
            "  --lmstudio              LM Studio's models (~/.lmstudio/models)\n"
            "remote models (https://..., hf://ORG/REPO[@REV][/FILE.gguf]):\n"
            "  -o timeout=SECONDS      the longest a remote read waits, retries included (default 30)\n"
            "  -o retries=N            tries after the first for transient failures (default 5)\n"
            "  -o cafile=PATH          CA certificates to trust (also $CURL_CA_BUNDLE)\n"
            "  -o header='NAME: VALUE' an HTTP header for the models' own host (repeatable)\n"
            "  -o net_cache=SIZE       downloaded blocks kept in memory (default 256M)\n"
            "  -o cache_dir=DIR        keep downloaded blocks on disk (default: off)\n"
            "  -o cache_dir_size=SIZE  bound of cache_dir (default 10G)\n"
            "  -o unvalidated          mount URLs whose server sends no ETag and no Last-Modified\n"
            "  -o OPT                  any other option is passed to libfuse (e.g. allow_other)\n"
            "\n"
            "exit status: 0 ok, 1 internal error, 2 usage, 3 cannot open model, 4 model is not\n"
            "a regular file, 5 malformed model, 6 mount point missing or not a directory,\n"
            "7 mount point busy or stale, 8 mount failed, 9 --verify found problems,\n"
            "10 unmounting failed.\n"
            "See gguffs(1).\n");
}

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

/* One -o option (name or name=value, separators already removed). Returns
 * 0, 1 to hand it to libfuse, or -1 after a message. */
static int one_option(gg_cli *c, const char *opt)
{
    const char *eq = strchr(opt, '=');
    size_t nl = eq ? (size_t)(eq - opt) : strlen(opt);
    const char *val = eq ? eq + 1 : NULL;
#define IS(s) (nl == strlen(s) && memcmp(opt, s, nl) == 0)
    unsigned long long v;
    if (IS("direct_io") || IS("clone_fd") || IS("unvalidated")) {
        if (val) {
            fprintf(stderr, "gguffs: -o %s takes no value\n", opt);
            return -1;
        }
        if (IS("direct_io"))
            c->fuse.direct_io = 1;
        else if (IS("clone_fd"))
            c->fuse.clone_fd = 1;
        else
            c->net.unvalidated = 1;
        return 0;
    }
    if (!val) {
        if (IS("cache_size") || IS("page_size") || IS("threads") || IS("readahead") || IS("read_ahead_kb") ||
            IS("simd") || IS("types") || IS("stq1_0_order") || IS("max_threads") || IS("logfile") ||
            IS("timeout") || IS("retries") || IS("cafile") || IS("header") || IS("net_cache") ||
            IS("cache_dir") || IS("cache_dir_size") || IS("safetensors_dtype") || IS("model_memory")) {
            fprintf(stderr, "gguffs: -o %s needs a value (%s=...)\n", opt, opt);
            return -1;
        }
        return 1;
    }
    if (IS("cache_size")) {
        if (size_opt("cache_size", val, 64ull << 10, physical_memory(), &v))
            return -1;
        c->reader.cache_bytes = v;
    } else if (IS("page_size")) {
        if (size_opt("page_size", val, 4096, 64ull << 20, &v))
            return -1;
        c->reader.page_bytes = v;
    } else if (IS("threads")) {
        int hi = 4 * cores() < 8 ? 8 : 4 * cores();
        if (int_opt("threads", val, 1, hi, &c->reader.threads))
            return -1;
    } else if (IS("readahead")) {
        if (int_opt("readahead", val, 0, 1024, &c->reader.readahead_pages))
            return -1;
    } else if (IS("read_ahead_kb")) {
        if (int_opt("read_ahead_kb", val, 0, 65536, &c->fuse.read_ahead_kb))
            return -1;
    } else if (IS("max_threads")) {
        if (int_opt("max_threads", val, 1, 256, &c->fuse.max_threads))
            return -1;
    } else if (IS("simd")) {
        gg_isa isa;
        if (gg_isa_parse(val, &isa) != 0) {
            fprintf(stderr, "gguffs: -o simd=%s: expected scalar, avx2, avx512 or neon\n", val);
            return -1;
        }
        if (gg_isa_set(isa) != 0) {
            fprintf(stderr, "gguffs: -o simd=%s: this CPU (or this build) does not have it\n", val);
            return -1;
        }
    } else if (IS("types")) {
        gg_err e;
        if (!*val) {
            fprintf(stderr, "gguffs: -o types= needs ID:NAME[,ID:NAME...] (e.g. types=42:STQ1_0)\n");
            return -1;
        }
        if (gg_parse_forced_types(&c->open, val, &e) != 0) {
            fprintf(stderr, "gguffs: -o types=%s: %s\n", val, e.msg);
            return -1;
        }
    } else if (IS("stq1_0_order")) {
        if (!strcmp(val, "consecutive"))
            c->open.stq1_0_consecutive = 1;
        else if (!strcmp(val, "stride16"))
            c->open.stq1_0_consecutive = 0;
        else {
            fprintf(stderr, "gguffs: -o stq1_0_order=%s: expected stride16 or consecutive\n", val);
            return -1;
        }
    } else if (IS("timeout")) {
        if (int_opt("timeout", val, 1, 3600, &c->net.timeout_s))
            return -1;
    } else if (IS("retries")) {
        if (int_opt("retries", val, 0, 20, &c->net.retries))
            return -1;
    } else if (IS("model_memory")) {
        if (size_opt("model_memory", val, 1ull << 20, physical_memory(), &v))
            return -1;
        c->models_bytes = v;
    } else if (IS("net_cache")) {
        if (size_opt("net_cache", val, 4ull << 20, physical_memory(), &v))
            return -1;
        c->net.mem_cache_bytes = v;
    } else if (IS("cache_dir_size")) {
        if (size_opt("cache_dir_size", val, 16ull << 20, 1ull << 50, &v))
            return -1;
        c->net.cache_dir_bytes = v;
    } else if (IS("cafile") || IS("cache_dir")) {
        if (!*val) {
            fprintf(stderr, "gguffs: -o %.*s= needs a %s\n", (int)nl, opt, IS("cafile") ? "file" : "folder");
            return -1;
        }
        /* Kept absolute: the daemon changes to / once in the background. */
        char *abs = realpath(val, NULL);
        if (!abs && IS("cafile")) {
            fprintf(stderr, "gguffs: -o cafile=%s: %s\n", val, strerror(errno));
            return -1;
        }
        if (!abs) {
            /* A cache folder that does not exist yet: made later, under its parent. */
            char cwd[4096];
            if (val[0] == '/' || !getcwd(cwd, sizeof cwd) || asprintf(&abs, "%s/%s", cwd, val) < 0)
                abs = strdup(val);
        }
        int slot = IS("cafile") ? GG_NET_MAX_HEADERS : GG_NET_MAX_HEADERS + 1;
        free(c->net_strings[slot]);
        c->net_strings[slot] = abs;
        if (IS("cafile"))
            c->net.cafile = abs;
        else
            c->net.cache_dir = abs;
    } else if (IS("header")) {
        const char *colon = strchr(val, ':');
        if (!colon || colon == val || strpbrk(val, "\r\n")) {
            fprintf(stderr, "gguffs: -o header=%s: expected 'Name: value'\n", val);
            return -1;
        }
        if (c->net.n_headers >= GG_NET_MAX_HEADERS) {
            fprintf(stderr, "gguffs: -o header: at most %d of them\n", GG_NET_MAX_HEADERS);
            return -1;
        }
        c->net_strings[c->net.n_headers] = strdup(val);
        c->net.headers[c->net.n_headers] = c->net_strings[c->net.n_headers];
        c->net.n_headers++;
    } else if (IS("safetensors_dtype")) {
        if (!strcmp(val, "f32"))
            c->tree.safetensors_dtype = GG_VIEW_F32;
        else if (!strcmp(val, "f16"))
            c->tree.safetensors_dtype = GG_VIEW_F16;
        else if (!strcmp(val, "bf16"))
            c->tree.safetensors_dtype = GG_VIEW_BF16;
        else {
            fprintf(stderr, "gguffs: -o safetensors_dtype=%s: expected f32, f16 or bf16\n", val);
            return -1;
        }
    } else if (IS("logfile")) {
        if (!*val) {
            fprintf(stderr, "gguffs: -o logfile= needs a path\n");
            return -1;
        }
        free(c->logfile);
        c->logfile = strdup(val);
    } else {
        return 1;
    }
    return 0;
#undef IS
}

/* Split "a,b\,c" at unescaped commas and handle each. An item that
 * starts with a digit, after a types= of the same list, is one more ID:NAME
 * of it ("types=42:STQ1_0,43:Q2_0", also as mount.fuse3 passes an fstab
 * line): no other option starts with a digit. */
static int options_arg(gg_cli *c, const char *arg, fuse_o *fo)
{
    size_t n = strlen(arg);
    char *one = malloc(n + 7);
    if (!one)
        return -1;
    int rc = 0, types = 0;
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

int gg_cli_parse(gg_cli *c, int argc, char **argv)
{
    memset(c, 0, sizeof *c);
    gg_reader_default_opts(&c->reader);
    gg_net_default_opts(&c->net);
    c->fuse.read_ahead_kb = 1024;
    c->models_bytes = 256ull << 20;
    fuse_o fo = {0};
    int debug = 0, rc = 0, dashdash = 0;
    const char *bad = NULL;
    for (int i = 1; i < argc && !rc && !bad; i++) {
        const char *a = argv[i];
        if (dashdash || a[0] != '-' || !a[1]) {
            if (push(&c->pos, &c->npos, a))
                rc = 1;
        } else if (!strcmp(a, "--")) {
            dashdash = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            c->mode = GG_MODE_HELP;
        } else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
            c->mode = GG_MODE_VERSION;
        } else if (!strcmp(a, "--dump")) {
            c->mode = GG_MODE_DUMP;
        } else if (!strcmp(a, "--verify")) {
            c->mode = GG_MODE_VERIFY;
        } else if (!strcmp(a, "--ollama")) {
            c->stores |= 1;
        } else if (!strcmp(a, "--hf-cache")) {
            c->stores |= 2;
        } else if (!strcmp(a, "--lmstudio")) {
            c->stores |= 4;
        } else if (!strcmp(a, "--json")) {
            c->json = 1;
        } else if (!strcmp(a, "--full")) {
            c->full = 1;
        } else if (!strcmp(a, "--tensor") || !strncmp(a, "--tensor=", 9)) {
            const char *g = a[8] == '=' ? a + 9 : i + 1 < argc ? argv[++i] : NULL;
            if (!g)
                bad = "--tensor needs a name or a glob pattern";
            else if (push(&c->only, &c->n_only, g))
                rc = 1;
        } else if (!strcmp(a, "-f")) {
            c->fuse.foreground = 1;
        } else if (!strcmp(a, "-d")) {
            debug = c->fuse.foreground = 1;
        } else if (!strcmp(a, "-s")) {
            c->fuse.single_thread = 1;
        } else if (!strncmp(a, "-o", 2)) {
            const char *o = a[2] ? a + 2 : i + 1 < argc ? argv[++i] : NULL;
            if (!o)
                bad = "-o needs options";
            else if (options_arg(c, o, &fo))
                rc = 2;
        } else {
            fprintf(stderr, "gguffs: unknown option %s (see gguffs --help)\n", a);
            rc = 2;
        }
    }
    if (bad) {
        fprintf(stderr, "gguffs: %s\n", bad);
        rc = 2;
    }
    if (rc == 1)
        fprintf(stderr, "gguffs: out of memory\n");
    if (!rc && (c->json || c->full) && (c->mode == GG_MODE_MOUNT || c->mode == GG_MODE_VERIFY)) {
        fprintf(stderr, "gguffs: --json and --full belong to --dump (gguffs --dump --json MODEL.gguf)\n");
        rc = 2;
    }
    if (!rc && c->mode == GG_MODE_MOUNT) {
        if (c->npos < (c->stores ? 1 : 2)) {
            gg_cli_usage(stderr);
            rc = 2;
        }
    } else if (!rc && (c->mode == GG_MODE_DUMP || c->mode == GG_MODE_VERIFY)) {
        const char *cmd = c->mode == GG_MODE_DUMP ? "--dump" : "--verify";
        if (c->npos != 1) {
            fprintf(stderr, "gguffs %s: %s\n", cmd, c->npos ? "one model at a time" : "which model?");
            rc = 2;
        } else if (fo.len) {
            fprintf(stderr, "gguffs %s: -o %s only applies to mounting\n", cmd, fo.s);
            rc = 2;
        }
    }
    if (!rc && c->stores && c->mode != GG_MODE_MOUNT) {
        fprintf(stderr, "gguffs: --ollama, --hf-cache and --lmstudio are for mounting\n");
        rc = 2;
    }
    if (!rc && c->n_only && c->mode != GG_MODE_VERIFY) {
        fprintf(stderr, "gguffs: --tensor belongs to --verify\n");
        rc = 2;
    }
    if (!rc && c->mode == GG_MODE_MOUNT) {
        /* libfuse's own arguments: debug, our fixed options, the user's. */
        if (fuse_o_add(&fo, "ro") || fuse_o_add(&fo, "default_permissions") ||
            fuse_o_add(&fo, "subtype=gguffs") || push(&c->fuse_argv, &c->fuse_argc, argv[0]) ||
            (debug && push(&c->fuse_argv, &c->fuse_argc, "-d")) || push(&c->fuse_argv, &c->fuse_argc, "-o") ||
            push(&c->fuse_argv, &c->fuse_argc, fo.s)) {
            fprintf(stderr, "gguffs: out of memory\n");
            rc = 1;
        }
    }
    free(fo.s);
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
    for (int i = 0; i < GG_NET_MAX_HEADERS + 2; i++)
        free(c->net_strings[i]);
    memset(c, 0, sizeof *c);
}
