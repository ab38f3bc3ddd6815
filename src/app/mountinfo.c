/* mountinfo.c - look a path up in /proc/self/mountinfo (see mountinfo.h).
 *
 * A line: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
 * Paths escape space, tab, newline and backslash as \ooo (three octal digits). */
#include "mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gg_mountinfo_unescape(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = in; *p && *p != ' ' && *p != '\n'; p++) {
        char c = *p;
        if (c == '\\') {
            if (p[1] < '0' || p[1] > '3' || p[2] < '0' || p[2] > '7' || p[3] < '0' || p[3] > '7')
                return -1;
            c = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        }
        if (n + 1 >= cap)
            return -1;
        out[n++] = c;
    }
    out[n] = 0;
    return (int)n;
}

/* Pointer to field k (0-based, space-separated) of line, or NULL. */
static const char *field(const char *line, int k)
{
    const char *p = line;
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    return p;
}

int gg_mountinfo_find(const char *path, gg_mount_entry *e)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -1;
    char *line = NULL, *mp = malloc(4096 + 1);
    size_t cap = 0;
    int found = 0;
    if (!mp) {
        fclose(f);
        return -1;
    }
    while (getline(&line, &cap, f) > 0) {
        const char *dev = field(line, 2), *mnt = field(line, 4), *sep = strstr(line, " - ");
        if (!dev || !mnt || !sep || gg_mountinfo_unescape(mnt, mp, 4096 + 1) < 0 || strcmp(mp, path) != 0)
            continue;
        /* Later lines are mounted on top of earlier ones: keep the last. */
        found = 1;
        sscanf(dev, "%31s", e->dev);
        sscanf(sep + 3, "%63s", e->fstype);
    }
    free(line);
    free(mp);
    fclose(f);
    return found;
}

int gg_mountinfo_find_dev(const char *dev, char *path, size_t cap)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -1;
    char *line = NULL;
    size_t lcap = 0;
    int found = 0;
    size_t dl = strlen(dev);
    while (!found && getline(&line, &lcap, f) > 0) {
        const char *d = field(line, 2), *mnt = field(line, 4);
        if (d && mnt && !strncmp(d, dev, dl) && d[dl] == ' ' && gg_mountinfo_unescape(mnt, path, cap) >= 0)
            found = 1;
    }
    free(line);
    fclose(f);
    return found;
}

int gg_mountinfo_wait_gone(const char *dev, int wake_fd)
{
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char where[PATH_MAX];
    int rc;
    for (;;) {
        /* (looked at after each wake-up: the poll says only that something changed) */
        int found = gg_mountinfo_find_dev(dev, where, sizeof where);
        if (found <= 0) {
            rc = found == 0 ? 1 : -1;
            break;
        }
        struct pollfd p[2] = {{fd, POLLPRI, 0}, {wake_fd, POLLIN, 0}};
        int n = poll(p, 2, -1);
        if (n < 0 && errno != EINTR) {
            rc = -1;
            break;
        }
        if (n > 0 && p[1].revents) {
            /* (told to stop: says once more whether it is gone) */
            rc = gg_mountinfo_find_dev(dev, where, sizeof where) == 0;
            break;
        }
    }
    close(fd);
    return rc;
}
