/* main.c - command line: options, opening the models, checking the mount
 * point, then handing over to the FUSE layer. */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fuse_lowlevel.h>
#include <fuse_opt.h>
#include <limits.h>
#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuse_glue.h"
#include "gguffs/log.h"
#include "gguffs/tools.h"

#define GGUFFS_VERSION "0.1.0"

typedef struct options {
    char *cache_size, *page_size, *threads, *readahead, *simd, *types, *stq_order, *max_threads;
    char *read_ahead_kb;
    int direct_io, clone_fd;
    char **pos; /* models..., mountpoint */
    int npos;
} options;

#define OPT(t, f) {t, offsetof(options, f), 0}
static const struct fuse_opt opt_spec[] = {
    OPT("cache_size=%s", cache_size), OPT("page_size=%s", page_size), OPT("threads=%s", threads),
    OPT("readahead=%s", readahead),   OPT("simd=%s", simd),           OPT("types=%s", types),
    OPT("stq1_0_order=%s", stq_order), OPT("max_threads=%s", max_threads),
    OPT("read_ahead_kb=%s", read_ahead_kb),
    {"direct_io", offsetof(options, direct_io), 1},
    {"clone_fd", offsetof(options, clone_fd), 1},
    FUSE_OPT_END,
};

static int collect(void *data, const char *arg, int key, struct fuse_args *out)
{
    (void)out;
    options *o = data;
    if (key != FUSE_OPT_KEY_NONOPT)
        return 1; /* keep for libfuse */
    char **p = realloc(o->pos, (size_t)(o->npos + 1) * sizeof *p);
    if (!p)
        return -1;
    o->pos = p;
    o->pos[o->npos++] = strdup(arg);
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gguffs [options] MODEL.gguf [MODEL2.gguf ...] MOUNTPOINT\n"
            "       gguffs --dump [--json] [--full] MODEL.gguf\n"
            "       gguffs --verify MODEL.gguf\n"
            "       gguffs --help | --version\n"
            "\n"
            "Mounts GGUF model files as a read-only tree: metadata/<key>, metadata.json,\n"
            "tensors/<name>/{raw,f32,info.json,stats}, tensors.tsv, types.tsv.\n"
            "Unmount with: fusermount3 -u MOUNTPOINT\n"
            "\n"
            "options:\n"
            "  -f                      stay in the foreground\n"
            "  -d                      debug output (implies -f)\n"
            "  -s                      single-threaded (slower)\n"
            "  -o cache_size=SIZE      decoded-page cache budget (default 256M; K, M, G)\n"
            "  -o page_size=SIZE       decoded page size (default 256K)\n"
            "  -o threads=N            decode threads (default: number of cores)\n"
            "  -o readahead=N          pages decoded ahead of sequential readers (default 16, 0 off)\n"
            "  -o read_ahead_kb=N      kernel read-ahead of the mount, as root (default 1024, 0: kernel's)\n"
            "  -o simd=ISA             force scalar, avx2 or avx512 decoding (also $GGUFFS_SIMD)\n"
            "  -o types=ID:NAME[,...]  force the meaning of type ids, e.g. types=42:STQ1_0\n"
            "  -o stq1_0_order=ORDER   stride16 (default) or consecutive\n"
            "  -o direct_io            tensor files bypass the kernel page cache\n"
            "  -o max_threads=N        FUSE worker threads (default 16)\n"
            "  -o clone_fd             one /dev/fuse descriptor per FUSE thread\n"
            "  -o OPT                  any other option is passed to libfuse (e.g. allow_other)\n"
            "\n"
            "exit status: 0 ok, 1 internal error, 2 usage, 3 cannot open model, 4 model is not\n"
            "a regular file, 5 malformed model, 6 mount point missing or not a directory,\n"
            "7 mount point busy, 8 mount failed, 9 --verify found problems.\n"
            "See gguffs(1).\n");
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift && *end == 'i')
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* Is path a mount point already (per /proc/self/mountinfo)? */
static int is_mountpoint(const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return 0;
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f)
        return 0;
    char line[8192];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        /* Field 5 is the mount point, with octal escapes for space etc. */
        char *p = line;
        for (int i = 0; i < 4 && p; i++) {
            p = strchr(p, ' ');
            if (p)
                p++;
        }
        if (!p)
            continue;
        char mp[PATH_MAX];
        size_t n = 0;
        for (; *p && *p != ' ' && n < sizeof mp - 1; p++) {
            if (p[0] == '\\' && p[1] >= '0' && p[1] <= '7' && p[2] && p[3]) {
                mp[n++] = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                p += 3;
            } else {
                mp[n++] = *p;
            }
        }
        mp[n] = 0;
        found = strcmp(mp, real) == 0;
    }
    fclose(f);
    return found;
}

static int check_mountpoint(const char *mp)
{
    struct stat st;
    if (stat(mp, &st) != 0) {
        if (errno == ENOTCONN) {
            fprintf(stderr, "gguffs: %s: a stale FUSE mount (transport endpoint not connected); "
                            "unmount it with: fusermount3 -u %s\n", mp, mp);
            return GG_EXIT_MOUNT_BUSY;
        }
        fprintf(stderr, "gguffs: mount point %s: %s\n", mp, strerror(errno));
        return GG_EXIT_MOUNTPOINT;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "gguffs: mount point %s is not a directory\n", mp);
        return GG_EXIT_MOUNTPOINT;
    }
    if (is_mountpoint(mp)) {
        fprintf(stderr, "gguffs: %s is already a mount point; unmount it first (fusermount3 -u %s)\n", mp, mp);
        return GG_EXIT_MOUNT_BUSY;
    }
    return 0;
}

/* fsname=<path> with the option separators escaped. */
static char *fsname_opt(const char *path)
{
    size_t n = strlen(path);
    char *s = malloc(2 * n + 16);
    if (!s)
        return NULL;
    char *o = s + sprintf(s, "-ofsname=");
    for (const char *p = path; *p; p++) {
        if (*p == ',' || *p == '\\')
            *o++ = '\\';
        *o++ = *p;
    }
    *o = 0;
    return s;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return GG_EXIT_OK;
        }
        if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
            printf("gguffs %s (libfuse %d)\nsimd paths:", GGUFFS_VERSION, fuse_version());
            for (int k = 0; k <= (int)gg_isa_detect(); k++)
                printf(" %s", gg_isa_name((gg_isa)k));
            printf("\n");
            return GG_EXIT_OK;
        }
        if (!strcmp(argv[i], "--dump"))
            return gg_tool_dump(argc, argv);
        if (!strcmp(argv[i], "--verify"))
            return gg_tool_verify(argc, argv);
    }

    /* The daemon runs up to ~20 threads (FUSE, read-ahead, OpenMP); glibc's
     * default of 8 arenas per core would let freed memory strand in many of
     * them. Page buffers do not come from malloc (cache.c maps them). */
    mallopt(M_ARENA_MAX, 4);

    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    options o = {0};
    if (fuse_opt_parse(&args, &o, opt_spec, collect) != 0) {
        usage(stderr);
        return GG_EXIT_USAGE;
    }
    if (o.npos < 2) {
        usage(stderr);
        return GG_EXIT_USAGE;
    }
    const char *mountpoint = o.pos[o.npos - 1];
    int nmodels = o.npos - 1;

    gg_reader_opts ro;
    gg_reader_default_opts(&ro);
    gg_open_opts oo = {0};
    gg_fuse_opts fo = {0};
    char err[GG_ERR_LEN];
    fo.direct_io = o.direct_io;
    fo.clone_fd = o.clone_fd;
    fo.read_ahead_kb = 1024;
    if ((o.cache_size && parse_size(o.cache_size, &ro.cache_bytes)) ||
        (o.page_size && (parse_size(o.page_size, &ro.page_bytes) || ro.page_bytes > (1u << 30))) ||
        (o.threads && parse_int(o.threads, 1, 1024, &ro.threads)) ||
        (o.readahead && parse_int(o.readahead, 0, 1024, &ro.readahead_pages)) ||
        (o.max_threads && parse_int(o.max_threads, 1, 1024, &fo.max_threads)) ||
        (o.read_ahead_kb && parse_int(o.read_ahead_kb, 0, 1 << 20, &fo.read_ahead_kb))) {
        fprintf(stderr, "gguffs: bad value in -o cache_size/page_size/threads/readahead/max_threads/"
                        "read_ahead_kb\n");
        return GG_EXIT_USAGE;
    }
    if (o.simd) {
        gg_isa isa;
        if (gg_isa_parse(o.simd, &isa) != 0) {
            fprintf(stderr, "gguffs: simd=%s: expected scalar, avx2 or avx512\n", o.simd);
            return GG_EXIT_USAGE;
        }
        if (gg_isa_set(isa) != 0) {
            fprintf(stderr, "gguffs: simd=%s: this CPU does not support it\n", o.simd);
            return GG_EXIT_USAGE;
        }
    }
    if (o.types && gg_parse_forced_types(&oo, o.types, err, sizeof err) != 0) {
        fprintf(stderr, "gguffs: %s\n", err);
        return GG_EXIT_USAGE;
    }
    if (o.stq_order) {
        if (!strcmp(o.stq_order, "consecutive"))
            oo.stq1_0_consecutive = 1;
        else if (strcmp(o.stq_order, "stride16") != 0) {
            fprintf(stderr, "gguffs: stq1_0_order=%s: expected stride16 or consecutive\n", o.stq_order);
            return GG_EXIT_USAGE;
        }
    }

    /* Open every model before mounting anything: a bad file mounts nothing. */
    gg_model **models = calloc((size_t)nmodels, sizeof *models);
    for (int i = 0; i < nmodels; i++) {
        models[i] = calloc(1, sizeof **models);
        int rc = gg_model_open(models[i], o.pos[i], &oo, err);
        if (rc != GG_EXIT_OK) {
            fprintf(stderr, "gguffs: %s\n", err);
            return rc;
        }
    }
    int rc = check_mountpoint(mountpoint);
    if (rc)
        return rc;

    /* libfuse's own command line: -f, -d, -s, -o ... and the mount point. */
    fuse_opt_add_arg(&args, "-oro,default_permissions,subtype=gguffs");
    char *fsn = fsname_opt(o.pos[0]);
    if (fsn)
        fuse_opt_add_arg(&args, fsn);
    free(fsn);
    fuse_opt_add_arg(&args, mountpoint);
    struct fuse_cmdline_opts co;
    if (fuse_parse_cmdline(&args, &co) != 0) {
        usage(stderr);
        return GG_EXIT_USAGE;
    }
    fo.foreground = co.foreground;
    fo.single_thread = co.singlethread;
    if (co.max_threads && !o.max_threads)
        fo.max_threads = (int)co.max_threads;
    free(co.mountpoint);

    gg_reader *reader = gg_reader_new(&ro);
    gg_tree tree;
    if (!reader || gg_tree_build(&tree, models, nmodels, reader, err) != 0) {
        fprintf(stderr, "gguffs: %s\n", reader ? err : "out of memory");
        return GG_EXIT_INTERNAL;
    }
    rc = gg_fuse_run(&tree, args.argc, args.argv, mountpoint, &fo);

    gg_tree_free(&tree);
    gg_reader_free(reader);
    for (int i = 0; i < nmodels; i++) {
        gg_model_close(models[i]);
        free(models[i]);
    }
    free(models);
    for (int i = 0; i < o.npos; i++)
        free(o.pos[i]);
    free(o.pos);
    /* fuse_opt_parse allocated the "%s" option values. */
    char *vals[] = {o.cache_size, o.page_size, o.threads, o.readahead, o.simd,
                    o.types, o.stq_order, o.max_threads, o.read_ahead_kb};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        free(vals[i]);
    fuse_opt_free_args(&args);
    return rc;
}
