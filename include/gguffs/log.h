/* log.h - one place for the daemon's messages: stderr in the foreground,
 * syslog once daemonized (stderr is /dev/null then). */
#ifndef GGUFFS_LOG_H
#define GGUFFS_LOG_H

void gg_log_to_syslog(int on);
void gg_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
