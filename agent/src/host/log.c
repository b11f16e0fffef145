// SPDX-License-Identifier: GPL-2.0-or-later
/* Logging sink selection for jbd2-tuned; see log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "log.h"

static bool use_journal;
static bool log_verbose;

void jt_log_setup(bool verbose)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	log_verbose = verbose;
	use_journal = false;
	/* JOURNAL_STREAM=<dev>:<inode> of the stream systemd connected us to */
	if (js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
	    fstat(STDERR_FILENO, &st) == 0 &&
	    (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino)
		use_journal = true;
}

static void log_stderr(int prio, const char *fmt, va_list ap)
{
	static const char *const prefix[] = {
		[LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit",
		[LOG_ERR] = "error", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
		[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
	};
	char line[1024];
	int n = snprintf(line, sizeof(line), "jbd2-tuned: %s: ", prefix[prio & 7]);

	/* one write per line (stderr is unbuffered): lines stay whole */
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	fwrite(line, 1, (size_t)n, stderr);
}

void jt_log(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio == LOG_DEBUG && !log_verbose)
		return;
	va_start(ap, fmt);
	if (use_journal)
		sd_journal_printv(prio, fmt, ap);
	else
		log_stderr(prio, fmt, ap);
	va_end(ap);
}

/* generated with systemd-id128 new; never change one (queries and the catalog use them) */
static const char *const message_ids[JT_LOG_KINDS] = {
	[JT_LOG_DECISION] = "9395d8adb83846a4b584dea986a43e03",
	[JT_LOG_VERDICT] = "542b3a4bb8bb4e7fa5f64d2c8964694d",
	[JT_LOG_ADVICE] = "0c4ce2ffaa7e4de2b65a8f53a52d6eb0",
	[JT_LOG_POLICY_REFUSED] = "88b3a36574f544cd847e08c62c0eb133",
};

const char *jt_log_message_id(enum jt_log_kind kind)
{
	return (unsigned int)kind < JT_LOG_KINDS ? message_ids[kind] : "";
}

/* "NAME=value" into @buf and @iov; returns 1 when added */
static int field(struct iovec *iov, char *buf, size_t len, const char *name, const char *value)
{
	int n;

	if (!value)
		return 0;
	n = snprintf(buf, len, "%s=%s", name, value);
	iov->iov_base = buf;
	iov->iov_len = n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
	return 1;
}

void jt_log_event(int prio, enum jt_log_kind kind, const char *journal, const char *knob,
		  const char *old_value, const char *new_value, const char *reason,
		  const char *fmt, ...)
{
	char msg[1100], prio_s[16], id[48], f[5][1100];
	struct iovec iov[8];
	unsigned int n = 0;
	va_list ap;

	va_start(ap, fmt);
	if (!use_journal) {
		log_stderr(prio, fmt, ap);
		va_end(ap);
		return;
	}
	memcpy(msg, "MESSAGE=", 8);
	vsnprintf(msg + 8, sizeof(msg) - 8, fmt, ap);
	va_end(ap);
	iov[n++] = (struct iovec){ msg, strlen(msg) };
	n += field(&iov[n], prio_s, sizeof(prio_s), "PRIORITY", (char[2]){ (char)('0' + (prio & 7)), 0 });
	n += field(&iov[n], id, sizeof(id), "MESSAGE_ID", jt_log_message_id(kind));
	n += field(&iov[n], f[0], sizeof(f[0]), "JBD2_JOURNAL", journal);
	n += field(&iov[n], f[1], sizeof(f[1]), "JBD2_KNOB", knob);
	n += field(&iov[n], f[2], sizeof(f[2]), "JBD2_OLD", old_value);
	n += field(&iov[n], f[3], sizeof(f[3]), "JBD2_NEW", new_value);
	n += field(&iov[n], f[4], sizeof(f[4]), "JBD2_REASON", reason);
	sd_journal_sendv(iov, (int)n);
}
