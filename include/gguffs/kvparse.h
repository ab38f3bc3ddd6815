/* kvparse.h - the inverse of render.h: a value's text back into the value,
 * for a type that is known (the key's own, or the one given to a new key).
 *
 * The text of metadata/<key>, as render.h writes it, parses to the value it
 * was made from, bit for bit (a NaN of any sign or payload is written
 * "nan" and parses to the quiet NaN 0x7fc00000 / 0x7ff8000000000000):
 *   str       the bytes, less one newline at the end if there is one
 *   integers  decimal, a '-' for the signed types, within the type's range
 *   floats    a decimal as strtod reads it (1e-05, 10000.0, 5), inf, -inf,
 *             nan; out of an f32's range is refused, not made infinite
 *   bool      true or false
 *   (numbers and bools may have blanks around them)
 *   arrays    an element per line (the last newline may be missing; no
 *             text is no element): numbers and bools as above, strings
 *             with \\ \n \r for backslash, newline and CR (no other escape),
 *             an array as one line of JSON, as below.
 * JSON, as metadata.json's "value" holds it (and an edits file): a string,
 * a number (nan and the infinities as the strings "nan", "inf", "-inf"),
 * true or false, an array of them.
 *
 * The value comes out as GGUF version 3 encodes it after the type field
 * (kvedit.h), appended to out. A text that does not parse fails with
 * GG_E_INVAL and a message saying where (line N) and what was wrong. */
#ifndef GGUFFS_KVPARSE_H
#define GGUFFS_KVPARSE_H

#include <stddef.h>

#include "gguffs/buf.h"
#include "gguffs/error.h"
#include "gguffs/jsonread.h"
#include "gguffs/kvedit.h"

/* Text s[0..n) as a message shows it: its first `max` bytes made printable
 * (gg_tsv_field: 4 characters a byte at most, \xNN), in quotes, "..." when
 * cut; into out (cap bytes; GG_SHOWN_CAP(max) hold it all), as many whole
 * bytes' escapes as fit. Returns out. */
#define GG_SHOWN_CAP(max) (4 * (max) + sizeof "\"...\"")
const char *gg_text_shown(const char *s, size_t n, size_t max, char *out, size_t cap);

int gg_kv_from_text(const gg_vdesc *d, const char *text, size_t n, gg_buf *out, gg_err *e);
int gg_kv_from_json(const gg_vdesc *d, const gg_jval *v, gg_buf *out, gg_err *e);

/* Editing by text, on edits ed whose result is `edited` (gg_edits_apply's):
 *
 * Key takes the value of text, in its own type (a key that is not there
 * yet: in type `fresh`, or a string when it is NULL). A text that reads
 * as the key's own (the same text, or the same bytes) changes nothing:
 * `cat k > x; cat x > k` keeps even a NaN's payload. *changed says whether
 * ed changed. 0, or -1 with *e (GG_E_INVAL: what was wrong; ed as it was). */
int gg_edits_set_text(gg_edits *ed, const gg_file *edited, const char *key, size_t key_len, const gg_vdesc *fresh,
                      const char *text, size_t n, int *changed, gg_err *e);
/* Key `from` of the edited file becomes `to` (f: the original file):
 * `to` takes from's value and type, bytes as they are; onto a key there of
 * another type, from's text is read in that key's type instead (an
 * editor's temporary file saved over the key keeps the key's type). `to`
 * the same as `from` changes nothing. 0, or -1 with *e (GG_E_NOENT: no
 * `from`; GG_E_INVAL: its text is no value of `to`'s type; GG_E_NOMEM).
 * (tree_edit.c, the one caller, finds `from` and a `to` of another name
 * first; the two checks here keep the function whole on its own.) */
int gg_edits_rename(gg_edits *ed, const gg_file *f, const gg_file *edited, const char *from, size_t from_len,
                    const char *to, size_t to_len, gg_err *e);

#endif
