/* fuzz_decode - every decoder and the layout code on random bytes, shapes
 * and element ranges, through include/gguffs/layout.h.
 *
 * Input: u16 type index, u8 row length (in blocks), u8 row count (in row
 * groups), u8 instruction-set choice, 4 x (u16 e0, u16 e1) element ranges,
 * then the tensor's bytes (repeated to fill it, zeros if none).
 *
 * Properties: the byte range gg_layout_bytes() gives lies inside the
 * tensor; decoding a range from exactly those bytes (copied into their own
 * allocation, so ASan sees any read outside them) gives the same floats as
 * the same range of the whole tensor decoded by the scalar kernel; every
 * SIMD kernel this CPU has decodes the whole tensor like the scalar one
 * (two NaNs count as equal). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "gguffs/layout.h"

#define HDR 21

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* Decode [e0, e1) on isa from a buffer holding exactly the bytes the
 * layout asks for; returns the floats (malloc'd). */
static float *decode_range(const gg_layout *l, gg_isa isa, const uint8_t *tensor, uint64_t e0, uint64_t e1)
{
    uint64_t lo, hi, tail;
    gg_layout_bytes(l, e0, e1, &lo, &hi, &tail);
    FUZZ_ASSERT(lo <= hi && hi <= l->nbytes, "%s [%" PRIu64 ", %" PRIu64 "): bytes [%" PRIu64 ", %" PRIu64
                ") outside the tensor (%" PRIu64 " bytes)", l->type->name, e0, e1, lo, hi, l->nbytes);
    int trailing = (l->type->flags & GG_TYPE_TRAILING_SCALE) != 0;
    FUZZ_ASSERT(trailing ? tail != UINT64_MAX && tail + 4 <= l->nbytes : tail == UINT64_MAX,
                "%s: tail %" PRIu64, l->type->name, tail);
    uint8_t *buf = malloc(hi - lo ? hi - lo : 1);
    memcpy(buf, tensor + lo, hi - lo);
    uint8_t *tb = NULL;
    if (trailing) {
        tb = malloc(4);
        memcpy(tb, tensor + tail, 4);
    }
    float *out = malloc((e1 - e0) * sizeof(float) + 1);
    int rc = gg_layout_decode(l, isa, buf, lo, tb, e0, e1, out);
    FUZZ_ASSERT(rc == 0, "%s: decode failed", l->type->name);
    free(buf);
    free(tb);
    return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t ntypes = gg_type_count();
    const gg_type *t = gg_type_at((size_t)fuzz_take(data, size, 0, 2) % ntypes);
    if (!gg_type_kernel(t, GG_ISA_SCALAR))
        return 0;
    uint64_t R = t->rows_interleaved, be = t->block_elems;
    uint64_t ne0 = be * (1 + fuzz_take(data, size, 2, 1) % (be == 1 ? 64 : 6));
    uint64_t nrows = R * (1 + fuzz_take(data, size, 3, 1) % (R > 4 ? 2 : 5));
    gg_isa top = gg_isa_detect();
    gg_isa isa = (gg_isa)(fuzz_take(data, size, 4, 1) % (top + 1));
    gg_layout l;
    gg_err why = {GG_OK, ""};
    FUZZ_ASSERT(gg_layout_init(&l, t, ne0, nrows, &why) == 0, "%s %" PRIu64 "x%" PRIu64 ": %s", t->name, ne0,
                nrows, why.msg);
    FUZZ_ASSERT(l.nelems == ne0 * nrows && l.nbytes > 0, "%s: layout", t->name);

    uint8_t *tensor = malloc(l.nbytes);
    const uint8_t *src = data + (size > HDR ? HDR : size);
    size_t nsrc = size > HDR ? size - HDR : 0;
    for (uint64_t i = 0; i < l.nbytes; i++)
        tensor[i] = nsrc ? src[i % nsrc] : 0;

    /* Reference: the whole tensor on the scalar path. */
    float *ref = decode_range(&l, GG_ISA_SCALAR, tensor, 0, l.nelems);
    for (int k = GG_ISA_SCALAR + 1; k <= (int)top; k++) {
        if (gg_type_kernel_isa(t, (gg_isa)k) == GG_ISA_SCALAR)
            continue;
        float *simd = decode_range(&l, (gg_isa)k, tensor, 0, l.nelems);
        for (uint64_t e = 0; e < l.nelems; e++)
            FUZZ_ASSERT(fuzz_same_float(ref[e], simd[e]), "%s on %s: element %" PRIu64 " is %a, scalar %a",
                        t->name, gg_isa_name((gg_isa)k), e, (double)simd[e], (double)ref[e]);
        free(simd);
    }
    /* Ranges, on the chosen path. */
    for (int k = 0; k < 4; k++) {
        uint64_t a = fuzz_take(data, size, 5 + 4 * (size_t)k, 2) % l.nelems;
        uint64_t b = fuzz_take(data, size, 7 + 4 * (size_t)k, 2) % l.nelems;
        uint64_t e0 = a < b ? a : b, e1 = (a < b ? b : a) + 1;
        float *part = decode_range(&l, isa, tensor, e0, e1);
        for (uint64_t e = e0; e < e1; e++)
            FUZZ_ASSERT(fuzz_same_float(ref[e], part[e - e0]),
                        "%s on %s: range [%" PRIu64 ", %" PRIu64 ") element %" PRIu64 " is %a, whole %a", t->name,
                        gg_isa_name(isa), e0, e1, e, (double)part[e - e0], (double)ref[e]);
        free(part);
    }
    free(ref);
    free(tensor);
    return 0;
}
