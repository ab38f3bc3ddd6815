/* fmt_floats - the float text of raw bit patterns, for the Python checks.
 *
 *   fmt_floats f32|f64 < bits > lines
 *
 * Reads native-endian f32 (4-byte) or f64 (8-byte) patterns from stdin and
 * writes gg_fmt_f32 / gg_fmt_f64 of each, one per line. */
#include <stdio.h>
#include <string.h>

#include "gguffs/floatfmt.h"

int main(int argc, char **argv)
{
    int f64 = argc == 2 && strcmp(argv[1], "f64") == 0;
    if (argc != 2 || (!f64 && strcmp(argv[1], "f32") != 0)) {
        fprintf(stderr, "usage: fmt_floats f32|f64 < bits\n");
        return 2;
    }
    size_t w = f64 ? 8 : 4;
    static unsigned char in[1 << 16];
    static char out[(sizeof in / 4) * (GG_FMT_F64_LEN + 1) + GG_FMT_BUF];
    size_t got, carry = 0;
    while ((got = fread(in + carry, 1, sizeof in - carry, stdin)) > 0) {
        size_t have = carry + got, n = 0, i;
        for (i = 0; i + w <= have; i += w) {
            if (f64) {
                double d;
                memcpy(&d, in + i, 8);
                n += (size_t)gg_fmt_f64(out + n, d);
            } else {
                float f;
                memcpy(&f, in + i, 4);
                n += (size_t)gg_fmt_f32(out + n, f);
            }
            out[n++] = '\n';
        }
        if (fwrite(out, 1, n, stdout) != n)
            return 1;
        carry = have - i;
        memmove(in, in + i, carry);
    }
    if (carry) {
        fprintf(stderr, "fmt_floats: %zu trailing bytes\n", carry);
        return 1;
    }
    return ferror(stdin) || fflush(stdout) != 0;
}
