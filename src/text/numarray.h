/* numarray.h - arrays of numbers and bools as text, fast (internal to the
 * core; used by render.c).
 *
 * Elements read as the file stores them (little-endian) and written by the
 * rules of floatfmt.h (floats shortest, integers decimal, bools true/false),
 * straight into the buffer: room is made once per block of elements, with
 * no printf and no per-value copy, as a vocabulary holds 150 000 scores. */
#ifndef GGUFFS_NUMARRAY_H
#define GGUFFS_NUMARRAY_H

#include <stdint.h>

#include "gguffs/buf.h"

/* Whether elements of value type t are numbers or bools (not str, arr). */
int gg_numarray_type(uint32_t t);

/* The n elements of type t at p appended to out: each followed by a newline
 * (json 0: metadata/<key>), or separated by ", " with nan and infinities
 * as JSON strings (json 1: the inside of a JSON array). Returns the bytes
 * of p read. */
uint64_t gg_numarray_text(gg_buf *out, const uint8_t *p, uint32_t t, uint64_t n, int json);

#endif
