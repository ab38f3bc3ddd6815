/* quantize.h - float32 to quantized blocks, for the as/<recipe>.gguf views.
 *
 * gg_quantize_rows makes the blocks of every type a llama-quantize recipe
 * without an importance matrix produces, bit for bit as ggml's reference
 * quantizers (quantize_row_*_ref, the path ggml_quantize_chunk takes when its
 * importance matrix is NULL). Every block is made from its own values only,
 * so rows may be cut anywhere between blocks and quantized in any order or
 * thread. The kernels know nothing of tensors, files or recipes.
 *
 * Q8_0 is told here as the example of the rules every type follows:
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

/* 1 if gg_quantize_rows can make type t. */
int gg_quantize_has(gg_tid t);

/* nrows rows of n_per_row floats at x (n_per_row a multiple of t's block
 * size; any alignment) into t's blocks at y, bit for bit as
 * ggml_quantize_chunk(t, x, y, 0, nrows, n_per_row, NULL) does. Returns the
 * bytes written (0: t unsupported, or n_per_row not a multiple of its
 * block). Thread-safe; the tables some types need are made once, on first
 * use, and only read after. */
size_t gg_quantize_rows(gg_tid t, const float *x, uint8_t *y, int64_t nrows, int64_t n_per_row);
/* The same on a given path (the CPU must have it), for tests and benchmarks;
 * gg_quantize_rows takes gg_isa_active()'s. Every path gives the same bytes. */
size_t gg_quantize_rows_isa(gg_tid t, const float *x, uint8_t *y, int64_t nrows, int64_t n_per_row, gg_isa isa);
/* The path gg_quantize_rows_isa(t, ..., isa) runs: isa, one it falls back
 * to, or GG_ISA_SCALAR. */
gg_isa gg_quantize_path(gg_tid t, gg_isa isa);

#define GG_Q8_0_ELEMS 32
#define GG_Q8_0_BYTES 34

#endif
