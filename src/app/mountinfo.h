/* mountinfo.h - what /proc/self/mountinfo says about a path: whether it is a
 * mount point, of what type, on which device.
 *
 * Only the mount table is read: the path itself is never touched here, so
 * this is safe to call on a mount whose daemon is not answering (our own,
 * before its loop runs, or a stale one). The path must already be absolute
 * and canonical (realpath() it before mounting). */
#ifndef GGUFFS_MOUNTINFO_H
#define GGUFFS_MOUNTINFO_H

#include <stddef.h>

typedef struct gg_mount_entry {
    char dev[32];     /* "MAJ:MIN" */
    char fstype[64];  /* "fuse.gguffs", "ext4", ... */
} gg_mount_entry;

/* The last (topmost) mount on `path`. Returns 1 and fills *e when there is
 * one, 0 when there is none, -1 when the table cannot be read. */
int gg_mountinfo_find(const char *path, gg_mount_entry *e);

/* Where the mount of device `dev` ("MAJ:MIN") is, now: 1 with its path in
 * path (cap bytes), 0 if nothing of that device is mounted, -1 on error.
 * (A mount can move when a folder above it is renamed.) */
int gg_mountinfo_find_dev(const char *dev, char *path, size_t cap);

/* Wait while the mount of device dev ("MAJ:MIN") is in the mount table:
 * 1 once it is gone (unmounted, lazily too; also when wake_fd becomes
 * readable and it is gone by then), 0 when wake_fd becomes readable (stop
 * watching), -1 when the table cannot be watched. A poll() of
 * /proc/self/mountinfo wakes at every change of the table. */
int gg_mountinfo_wait_gone(const char *dev, int wake_fd);

/* Decode mountinfo's octal escapes (\040 for a space, ...) of field `in`
 * (up to the next space or the end) into out (cap bytes). Returns the
 * length, or -1 if it does not fit or an escape is malformed. */
int gg_mountinfo_unescape(const char *in, char *out, size_t cap);

#endif
