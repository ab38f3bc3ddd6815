/* log.h - one place for the daemon's messages: stderr in the foreground,
 * syslog once daemonized (stderr is /dev/null then), or a file of the
 * user's choice (-o logfile=PATH) in both cases. */
#ifndef GGUFFS_LOG_H
#define GGUFFS_LOG_H

void gg_log_to_syslog(int on);
/* Append messages to path from now on (opened now, so a relative path
 * means the current folder). Returns 0, or -errno. */
int gg_log_to_file(const char *path);
void gg_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
