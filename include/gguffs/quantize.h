/* quantize.h - float32 to Q8_0 blocks, for the as/q8_0.gguf view.
 *
 * A Q8_0 block holds 32 values as a float16 scale d and 32 signed bytes q,
 * each value being d * q (ggml's block_q8_0, 34 bytes):
 *
 *     byte  0      2                                  34
 *           | d f16 | q[0] q[1] ...             q[31] |
 *
 * The blocks are bit for bit those of ggml's reference quantizer
 * (quantize_row_q8_0_ref, which ggml_quantize_chunk runs), including its
 * odd answers to odd input, because a program comparing our file with one
 * llama-quantize made must find the same bytes:
 *   - amax is a running `amax = amax > |x| ? amax : |x|`, so a NaN takes
 *     its place and the next value replaces the NaN (a NaN last in a block
 *     leaves amax NaN);
 *   - d = amax / 127, id = d ? 1 / d : 0, q = roundf(x * id) (half away
 *     from zero), stored as an int8 the way x86 converts: through int32, so
 *     NaN and anything outside int32 give 0, and other values keep their
 *     low byte (values past 127 occur after a NaN restarted amax);
 *   - d is rounded to float16 to nearest even; a NaN d becomes 0x7e00 with
 *     its sign (ggml's conversion, not the payload-keeping one of
 *     halfconv.h).
 * The AVX2 path (also used for -o simd=avx512) gives the scalar path's
 * bytes: blocks holding a NaN take the scalar path. */
#ifndef GGUFFS_QUANTIZE_H
#define GGUFFS_QUANTIZE_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/decode.h"

#define GG_Q8_0_ELEMS 32
#define GG_Q8_0_BYTES 34

/* nblocks blocks of 32 floats at x (any alignment) into nblocks * 34 bytes at y. */
void gg_quantize_q8_0(const float *x, uint8_t *y, size_t nblocks);
/* The same on a given path, for tests and benchmarks (the CPU must have it). */
void gg_quantize_q8_0_isa(const float *x, uint8_t *y, size_t nblocks, gg_isa isa);

#endif
