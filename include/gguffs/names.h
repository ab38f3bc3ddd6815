/* names.h - GGUF names (keys, tensor names, model names) as file names.
 *
 * A GGUF name may hold any byte. In the tree: '%' is written %25, '/' %2F
 * and a NUL byte %00; the names "." and ".." become %2E and %2E%2E and the
 * empty name becomes a lone "%". Nothing else changes, so different names
 * give different file names. A name whose escaped form is longer than 255
 * bytes (the kernel's limit) is cut to 237 bytes (never inside a %XX)
 * followed by "%~" and 16 hex digits of a 64-bit hash of the whole name;
 * "%~" appears in no other escaped name.
 *
 * Cut names can still meet (two names with one hash), and model folder
 * names are made from file names that can repeat: gg_names_unique() makes
 * the names of one folder distinct, deterministically: in folder order, a
 * name already taken gets "~2", then "~3", ... (the part before it cut
 * further when the result would pass 255 bytes). */
#ifndef GGUFFS_NAMES_H
#define GGUFFS_NAMES_H

#include <stddef.h>

#define GG_NAME_MAX 255

/* Escaped form of s[0..n) as a new NUL-terminated string (NULL if out of memory). */
char *gg_name_escape(const char *s, size_t n);

/* Inverse of gg_name_escape for names that were not shortened: writes the
 * original bytes to out (at least strlen(name) bytes) and returns their
 * count, or -1 if name is not a valid escaped form. */
long gg_name_unescape(const char *name, char *out);

/* Make *names[0..n) distinct (see above), also from the `nres` reserved
 * names (files the folder holds besides these). A renamed entry's string is
 * replaced (freed and reallocated). Returns 0, or -1 if out of memory. */
int gg_names_unique(char **names[], size_t n, const char *const *reserved, size_t nres);
/* The same with another length limit (0: none). */
int gg_names_unique_n(char **names[], size_t n, const char *const *reserved, size_t nres, size_t max);

#endif
