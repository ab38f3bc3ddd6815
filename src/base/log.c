/* log.c - daemon messages to stderr, syslog or a log file. */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

static int use_syslog;
static int log_fd = -1;

void gg_log_to_syslog(int on)
{
    use_syslog = on;
    if (on)
        openlog("gguffs", LOG_PID, LOG_DAEMON);
}

int gg_log_to_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    if (log_fd >= 0)
        close(log_fd);
    log_fd = fd;
    return 0;
}

void gg_log(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (log_fd >= 0) {
        /* One write per line, so lines of several threads never interleave. */
        char line[1200];
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        int n = snprintf(line, sizeof line, "%04d-%02d-%02d %02d:%02d:%02d.%03ld gguffs[%d]: %s\n",
                         tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                         ts.tv_nsec / 1000000, (int)getpid(), msg);
        if (n > (int)sizeof line - 1)
            n = (int)sizeof line - 1, line[n - 1] = '\n';
        if (write(log_fd, line, (size_t)n) < 0) {
            /* Nowhere else to say it. */
        }
    } else if (use_syslog) {
        syslog(LOG_ERR, "%s", msg);
    } else {
        fprintf(stderr, "gguffs: %s\n", msg);
    }
}
