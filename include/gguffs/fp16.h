/* fp16.h - exact conversions of the small float formats GGUF stores.
 *
 * IEEE half precision and bfloat16 to float32 are exact (every value fits);
 * subnormal halves become normal floats. A half NaN becomes a quiet float NaN,
 * as the F16C instruction does, so scalar and SIMD paths agree bit for bit. */
#ifndef GGUFFS_FP16_H
#define GGUFFS_FP16_H

#include <stdint.h>
#include <string.h>

static inline float gg_bits_to_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t gg_f32_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float gg_fp16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f) /* inf or NaN; NaN gets the quiet bit like vcvtph2ps */
        return gg_bits_to_f32(sign | 0x7f800000u | (mant << 13) | (mant ? 0x00400000u : 0));
    if (exp == 0) { /* zero or subnormal: mant * 2^-24, exact */
        float f = (float)mant * 0x1p-24f;
        return gg_bits_to_f32(gg_f32_to_bits(f) | sign);
    }
    return gg_bits_to_f32(sign | ((exp + 112u) << 23) | (mant << 13));
}

static inline float gg_bf16_to_f32(uint16_t h)
{
    return gg_bits_to_f32((uint32_t)h << 16);
}

/* Little-endian loads from unaligned storage. */
static inline uint16_t gg_rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t gg_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t gg_rd64(const uint8_t *p) { return (uint64_t)gg_rd32(p) | ((uint64_t)gg_rd32(p + 4) << 32); }
static inline float gg_rdf16(const uint8_t *p) { return gg_fp16_to_f32(gg_rd16(p)); }
static inline float gg_rdf32(const uint8_t *p) { return gg_bits_to_f32(gg_rd32(p)); }

#endif
