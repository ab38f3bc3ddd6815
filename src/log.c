/* log.c - daemon messages to stderr or syslog. */
#include "gguffs/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

static int use_syslog;

void gg_log_to_syslog(int on)
{
    use_syslog = on;
    if (on)
        openlog("gguffs", LOG_PID, LOG_DAEMON);
}

void gg_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (use_syslog) {
        vsyslog(LOG_ERR, fmt, ap);
    } else {
        fputs("gguffs: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}
