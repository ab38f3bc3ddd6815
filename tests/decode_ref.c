/* decode_ref - decode every tensor of a reference set with our kernels and
 * compare bit for bit with the expected float32 files.
 *
 *   decode_ref [--isa scalar|avx2|avx512|neon] [--strict] [--only NAME] [--map TYPE=OURS]
 *              DATA_OFFSET FILE.gguf MANIFEST.tsv
 *
 * MANIFEST.tsv is one of tests/data/{mainline,ik,forks}/manifest.tsv; its
 * f32_file paths are relative to the manifest's folder. For the forks
 * manifest (which covers several files) only rows whose `file` column names
 * FILE.gguf's base name are checked. Besides whole tensors it decodes
 * pseudo-random sub-ranges, so partial blocks, rows and row groups are
 * exercised too. Exit status 0 only if everything matched (with --strict, a
 * tensor whose type has no decoder counts as a failure).
 *
 * This works on the raw bytes at DATA_OFFSET + offset and does not use the
 * GGUF parser, so decoders can be checked on their own. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/layout.h"
#include "refset.h"
#include "rng.h"

#define MAXMAP 16
static const char *map_from[MAXMAP], *map_to[MAXMAP];
static int nmap;

static const gg_type *find_type(const char *name)
{
    for (int i = 0; i < nmap; i++)
        if (strcasecmp(map_from[i], name) == 0)
            return gg_type_by_name(map_to[i]);
    return rs_type(name);
}

/* Decode [e0, e1) of the tensor through the layout API; 0 if it matches. */
static int check_range(const gg_layout *l, gg_isa isa, const uint8_t *data, const float *want,
                       uint64_t e0, uint64_t e1, const char *name)
{
    uint64_t lo, hi, tail;
    gg_layout_bytes(l, e0, e1, &lo, &hi, &tail);
    if (hi > l->nbytes || lo > hi) {
        fprintf(stderr, "%s: byte range [%" PRIu64 ", %" PRIu64 ") outside tensor (%" PRIu64 ")\n",
                name, lo, hi, l->nbytes);
        return 1;
    }
    /* Copy the bytes to their own buffer so reads outside [lo, hi) are caught
     * by ASan / valgrind. */
    uint8_t *buf = malloc(hi - lo ? hi - lo : 1);
    memcpy(buf, data + lo, hi - lo);
    uint8_t tailbuf[4];
    if (tail != UINT64_MAX)
        memcpy(tailbuf, data + tail, 4);
    float *out = malloc((e1 - e0) * sizeof(float));
    int rc = gg_layout_decode(l, isa, buf, lo, tail != UINT64_MAX ? tailbuf : NULL, e0, e1, out);
    int bad = 0;
    if (rc != 0) {
        fprintf(stderr, "%s: no decoder for %s\n", name, l->type->name);
        bad = 1;
    } else if (memcmp(out, want + e0, (e1 - e0) * sizeof(float)) != 0) {
        for (uint64_t i = 0; i < e1 - e0; i++) {
            if (memcmp(&out[i], &want[e0 + i], 4) != 0) {
                uint32_t a, b;
                memcpy(&a, &out[i], 4);
                memcpy(&b, &want[e0 + i], 4);
                fprintf(stderr,
                        "%s (%s, %s): range [%" PRIu64 ", %" PRIu64 "): element %" PRIu64
                        " is %.9g (0x%08x), expected %.9g (0x%08x)\n",
                        name, l->type->name, gg_isa_name(isa), e0, e1, e0 + i, out[i], a,
                        want[e0 + i], b);
                break;
            }
        }
        bad = 1;
    }
    free(out);
    free(buf);
    return bad;
}

int main(int argc, char **argv)
{
    gg_isa isa = GG_ISA_SCALAR;
    const char *only = NULL;
    int strict = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--isa") == 0 && i + 1 < argc) {
            if (gg_isa_parse(argv[++i], &isa) != 0) {
                fprintf(stderr, "unknown isa %s\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--strict") == 0) {
            strict = 1;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--map") == 0 && i + 1 < argc && nmap < MAXMAP) {
            char *eq = strchr(argv[++i], '=');
            if (!eq)
                return 2;
            *eq = 0;
            map_from[nmap] = argv[i];
            map_to[nmap++] = eq + 1;
        } else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (argc - i != 3) {
        fprintf(stderr, "usage: decode_ref [--isa ISA] [--only NAME] [--map TYPE=OURS] "
                        "DATA_OFFSET FILE.gguf MANIFEST.tsv\n");
        return 2;
    }
    if (!gg_isa_supported(isa)) {
        printf("decode_ref: this CPU has no %s; skipped\n", gg_isa_name(isa));
        return 0;
    }
    uint64_t data_off = strtoull(argv[i], NULL, 0);
    const char *gguf_path = argv[i + 1], *manifest = argv[i + 2];
    size_t flen;
    uint8_t *file = rs_slurp(gguf_path, &flen);
    if (!file) {
        fprintf(stderr, "%s: %s\n", gguf_path, strerror(errno));
        return 2;
    }
    const char *gguf_base = strrchr(gguf_path, '/') ? strrchr(gguf_path, '/') + 1 : gguf_path;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", manifest);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        strcpy(dir, ".");

    rs_manifest mf;
    if (rs_open(&mf, manifest) != 0) {
        fprintf(stderr, "%s: %s\n", manifest, strerror(errno));
        return 2;
    }
    int ntested = 0, nfail = 0, nskip = 0;
    while (rs_next(&mf)) {
        const char *file_col = rs_get(&mf, "file");
        if (file_col && strcmp(file_col, gguf_base) != 0)
            continue;
        const char *name = rs_get(&mf, "name"), *type_name = rs_get(&mf, "type_name");
        if (only && strcmp(only, name) != 0 && strcasecmp(only, type_name) != 0)
            continue;
        const gg_type *t = find_type(type_name);
        if (!t) {
            fprintf(stderr, "%s: type %s not in our table\n", name, type_name);
            nfail++;
            continue;
        }
        uint64_t ne0, nrows;
        rs_dims(rs_get(&mf, "dims"), &ne0, &nrows);
        gg_layout l;
        gg_err why;
        if (gg_layout_init(&l, t, ne0, nrows, &why) != 0) {
            fprintf(stderr, "%s: %s\n", name, why.msg);
            nfail++;
            continue;
        }
        uint64_t off = data_off + strtoull(rs_get(&mf, "offset"), NULL, 10);
        uint64_t nbytes = strtoull(rs_get(&mf, "n_bytes"), NULL, 10);
        if (nbytes != l.nbytes || off + nbytes > flen) {
            fprintf(stderr, "%s: size %" PRIu64 " by our table, %" PRIu64 " in manifest\n", name,
                    l.nbytes, nbytes);
            nfail++;
            continue;
        }
        if (!gg_type_kernel(t, GG_ISA_SCALAR)) {
            nskip++;
            if (strict) {
                fprintf(stderr, "%s: no decoder for %s\n", name, t->name);
                nfail++;
            }
            continue;
        }
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, rs_get(&mf, "f32_file"));
        size_t wlen;
        float *want = (float *)rs_slurp(path, &wlen);
        if (!want || wlen != l.nelems * 4) {
            fprintf(stderr, "%s: cannot read %s\n", name, path);
            nfail++;
            continue;
        }
        int bad = check_range(&l, isa, file + off, want, 0, l.nelems, name);
        /* Sub-ranges: single elements, odd spans, spans crossing rows. */
        rng_seed(l.nelems);
        for (int k = 0; k < 200 && !bad; k++) {
            uint64_t a = rng_next() % l.nelems;
            uint64_t span = k < 50 ? 1 + rng_next() % 7 : k < 150 ? 1 + rng_next() % 700 : 1 + rng_next() % (3 * ne0);
            uint64_t b = a + span > l.nelems ? l.nelems : a + span;
            bad |= check_range(&l, isa, file + off, want, a, b, name);
        }
        ntested++;
        nfail += bad;
        free(want);
    }
    rs_close(&mf);
    free(file);
    printf("decode_ref %s [%s]: %d tensors checked, %d failed, %d without decoder\n", gguf_base,
           gg_isa_name(isa), ntested, nfail, nskip);
    return nfail ? 1 : 0;
}
