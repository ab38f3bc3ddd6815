/* jsonread.h - a strict JSON reader (RFC 8259) that keeps what cJSON
 * loses: a number's exact text (a u64 or an f64 is parsed by whoever knows
 * its type) and a string's bytes with any NUL in them. Used for the edits
 * file and the arrays of arrays in metadata text (kvparse.h). Input is
 * bounded by the caller; nesting by JSONR_MAX_DEPTH. */
#ifndef GGUFFS_JSONREAD_H
#define GGUFFS_JSONREAD_H

#include <stddef.h>

#define JSONR_MAX_DEPTH 64

typedef enum gg_jtype { GG_J_NULL, GG_J_FALSE, GG_J_TRUE, GG_J_NUM, GG_J_STR, GG_J_ARR, GG_J_OBJ } gg_jtype;

typedef struct gg_jval gg_jval;
struct gg_jval {
    gg_jtype type;
    char *s;        /* STR: its bytes (escapes decoded, NUL after them); NUM: the number as written */
    size_t len;
    gg_jval *kids;  /* ARR: the elements; OBJ: the members' values */
    char **keys;    /* OBJ: the members' names (decoded, NUL-terminated) */
    size_t *key_lens;
    size_t n;
};

/* Parse n bytes of text (one value, surrounded by whitespace only) into
 * *out. Returns 0, or -1 with why (cap bytes) saying where and what. Free
 * with gg_json_free() (also after a failure). */
int gg_json_parse(const char *text, size_t n, gg_jval *out, char *why, size_t cap);
void gg_json_free(gg_jval *v);

/* The member named key of an object (the first), or NULL. */
const gg_jval *gg_json_get(const gg_jval *obj, const char *key);

#endif
