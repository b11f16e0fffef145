/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging: to the journal (sd_journal_print) when JOURNAL_STREAM says stderr
 * is connected to journald, to stderr otherwise.  Priorities are syslog's.
 */
#ifndef JT_LOG_H
#define JT_LOG_H

#include <stdbool.h>
#include <syslog.h>

/* Decide the sink from JOURNAL_STREAM; @verbose lets LOG_DEBUG through. */
void jt_log_setup(bool verbose);

/* Log one line (no trailing newline needed). */
void jt_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...)	jt_log(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)	jt_log(LOG_INFO, __VA_ARGS__)
#define log_notice(...)	jt_log(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) jt_log(LOG_WARNING, __VA_ARGS__)
#define log_error(...)	jt_log(LOG_ERR, __VA_ARGS__)

#endif
