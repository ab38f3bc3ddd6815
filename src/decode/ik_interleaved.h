/* ik_interleaved.h - small helpers shared by the scalar and SIMD kernels of
 * the row-interleaved (_R4/_R8/_R16) types of ik_llama.cpp. Private to the
 * ik_interleaved family. */
#ifndef GGUFFS_DECODE_IK_INTERLEAVED_H
#define GGUFFS_DECODE_IK_INTERLEAVED_H

#include <stdint.h>

/* Many interleaved types pack small fields "plane by plane": an array of
 * `len` bytes holds 8/bits planes of `len` fields each; field n sits in byte
 * n % len at bit position bits * (n / len). */
static inline unsigned ggi_field(const uint8_t *p, unsigned n, unsigned len, unsigned bits)
{
    return (p[n % len] >> (bits * (n / len))) & ((1u << bits) - 1u);
}

/* Byte j (0..7) of a 64-bit grid entry / (0..3) of a 32-bit one, as the
 * signed or unsigned 8-bit value it stands for (entries are stored as
 * little-endian byte vectors). */
static inline int ggi_s8(uint64_t e, int j) { return (int8_t)(uint8_t)(e >> (8 * j)); }
static inline int ggi_u8(uint64_t e, int j) { return (uint8_t)(e >> (8 * j)); }

/* The common 4-bit layout of one 32-value block of row k in a column:
 * 64 bytes hold 4 quads q = 0..3 of 16 bytes; byte 16q + 4k + i (i = 0..3)
 * has, in its low nibble, value ggi_quad_pos(q) + i of row k and, in its
 * high nibble, value ggi_quad_pos(q) + i + 8. Quads 0 and 2 cover the first
 * 16 values of the block, quads 1 and 3 the last 16. */
static inline int ggi_quad_pos(int q) { return 16 * (q & 1) + 4 * (q >> 1); }

#endif
