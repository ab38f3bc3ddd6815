/* floatfmt.h - numbers as the text users read, exact and fast.
 *
 * Floats: the shortest decimal that reads back (round to nearest, ties to
 * even) to the same value, f32 at f32 precision and f64 at f64 precision.
 * Among equally short decimals the one closest to the exact value wins, and
 * an exact halfway case goes to the even last digit. For f64 this is exactly
 * Python's repr(); for f32 it is numpy's/Ryu's shortest form.
 *
 * Layout is Python's: plain notation for decimal exponents -4..15 and
 * scientific otherwise, with a sign and at least two exponent digits
 * (1e-05, 1e+16, 1.5e+300); always visibly a float (10000.0, 0.0, -0.0);
 * inf, -inf, nan (the sign of a NaN is not shown).
 *
 * Integers: plain decimal, '-' for negatives.
 *
 * Every function writes the text and a terminating NUL into out, which must
 * have room for GG_FMT_BUF bytes (bytes after the NUL are scratch), returns
 * the text's length, allocates nothing, calls no libc formatting, and is
 * safe from any thread. */
#ifndef GGUFFS_FLOATFMT_H
#define GGUFFS_FLOATFMT_H

#include <stdint.h>

#define GG_FMT_BUF 32
/* Longest texts (NUL not counted): "-1.2345678e-38", "-1000000000000000.0"
 * (19) for f32; "-1.2345678901234567e-308" (24) for f64; integers 20. */
#define GG_FMT_F32_LEN 19
#define GG_FMT_F64_LEN 24
#define GG_FMT_INT_LEN 20

int gg_fmt_f32(char *out, float v);
int gg_fmt_f64(char *out, double v);
int gg_fmt_u64(char *out, uint64_t v);
int gg_fmt_i64(char *out, int64_t v);

#endif
