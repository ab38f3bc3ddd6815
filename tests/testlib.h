/* testlib.h - the one assertion the C unit tests use: report and count (and
 * CHECK, which counts the passes too);
 * and the stdin-to-stdout filter of those that also convert for a checker
 * (test_quantize --q8_0, test_halfconv --convert). */
#ifndef GGUFFS_TESTLIB_H
#define GGUFFS_TESTLIB_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fails;
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

/* EXPECT, counted: the tests that report "N passed, N failed" (checks - fails). */
static long checks __attribute__((unused));
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        EXPECT(cond, __VA_ARGS__);                                                                 \
    } while (0)


static inline int write_all(const void *p, size_t n)
{
    for (size_t at = 0; at < n;) {
        ssize_t w = write(1, (const char *)p + at, n - at);
        if (w <= 0)
            return perror("write"), 1;
        at += (size_t)w;
    }
    return 0;
}

/* stdin through conv to stdout, in batches of whole units of `unit` bytes
 * (in holds cap bytes); conv turns n units of in into out and returns the
 * bytes it wrote. 0, or 1 when reading or writing failed or the input ended
 * within a unit (said as "input not a multiple of <what>"). */
static inline int filter_stdin(void *in, size_t cap, size_t unit, void *out,
                               size_t (*conv)(const void *in, size_t n, void *out, void *arg), void *arg,
                               const char *what)
{
    size_t have = 0;
    for (;;) {
        ssize_t r = read(0, (char *)in + have, cap - have);
        if (r < 0)
            return perror("read"), 1;
        have += (size_t)r;
        if (r == 0 || have == cap) {
            size_t n = have / unit;
            if (write_all(out, conv(in, n, out, arg)))
                return 1;
            memmove(in, (char *)in + n * unit, have - n * unit);
            have -= n * unit;
            if (r == 0)
                return have ? (fprintf(stderr, "input not a multiple of %s\n", what), 1) : 0;
        }
    }
}

#endif
