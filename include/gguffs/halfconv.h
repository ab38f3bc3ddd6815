/* halfconv.h - float32 to float16 and bfloat16, as the export views need.
 *
 * f16: IEEE binary16 with round-to-nearest-even; overflow gives +-inf,
 * subnormals are kept, and a NaN stays a NaN with the top bits of its
 * payload (numpy's rule: the payload shifted down, made non-zero if it
 * shifted out), so the result equals numpy.float32(x).astype(numpy.float16)
 * bit for bit.
 * bf16: the top 16 bits of the float32, rounded to nearest even; a NaN
 * keeps its sign and top payload bits and is made quiet.
 * The x86 path (F16C) gives the same bytes as the portable one. */
#ifndef GGUFFS_HALFCONV_H
#define GGUFFS_HALFCONV_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/decode.h"

uint16_t gg_f32_to_f16_bits(uint32_t f);
uint16_t gg_f32_to_bf16_bits(uint32_t f);

/* n floats at src (any alignment) to n 16-bit values at dst (little-endian). */
void gg_f32_to_f16(const float *src, uint16_t *dst, size_t n);
void gg_f32_to_bf16(const float *src, uint16_t *dst, size_t n);

/* The same on a given path (GG_ISA_AVX2 and AVX512 use AVX2 + F16C), for
 * tests and benchmarks; the CPU must have it (gg_isa_detect()). The ones
 * above use gg_isa_active(). */
void gg_f32_to_f16_isa(const float *src, uint16_t *dst, size_t n, gg_isa isa);
void gg_f32_to_bf16_isa(const float *src, uint16_t *dst, size_t n, gg_isa isa);

#endif
