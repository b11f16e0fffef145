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

/*
 * Structured entries: each kind has its MESSAGE_ID (and a text in the
 * catalog, agent/catalog/jbd2-tuned.catalog), so that
 * `journalctl MESSAGE_ID=...` finds them across hosts without parsing text.
 */
enum jt_log_kind {
	JT_LOG_DECISION,	/* a knob changed (or would have, in dry-run): trial blocks, policy */
	JT_LOG_VERDICT,		/* a trial ended: its change kept or reverted (with the write back) */
	JT_LOG_ADVICE,		/* journal-size advice given or withdrawn */
	JT_LOG_POLICY_REFUSED,	/* a policy file refused at start or reload */
	JT_LOG_KINDS
};

/* The MESSAGE_ID of @kind, 32 hex digits. */
const char *jt_log_message_id(enum jt_log_kind kind);

/*
 * jt_log_event - log one line like jt_log(), and to the journal also with
 * MESSAGE_ID= of @kind and the fields JBD2_JOURNAL=, JBD2_KNOB=, JBD2_OLD=,
 * JBD2_NEW=, JBD2_REASON= for each argument that is not NULL.
 */
void jt_log_event(int prio, enum jt_log_kind kind, const char *journal, const char *knob,
		  const char *old_value, const char *new_value, const char *reason,
		  const char *fmt, ...) __attribute__((format(printf, 8, 9)));

#define log_debug(...)	jt_log(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)	jt_log(LOG_INFO, __VA_ARGS__)
#define log_notice(...)	jt_log(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) jt_log(LOG_WARNING, __VA_ARGS__)
#define log_error(...)	jt_log(LOG_ERR, __VA_ARGS__)

#endif
