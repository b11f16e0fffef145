// SPDX-License-Identifier: GPL-2.0-or-later
/* Logging sink selection for jbd2-tuned; see log.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
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

void jt_log(int prio, const char *fmt, ...)
{
	static const char *const prefix[] = {
		[LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit",
		[LOG_ERR] = "error", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
		[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
	};
	va_list ap;

	if (prio == LOG_DEBUG && !log_verbose)
		return;
	va_start(ap, fmt);
	if (use_journal) {
		sd_journal_printv(prio, fmt, ap);
	} else {
		char line[1024];
		int n = snprintf(line, sizeof(line), "jbd2-tuned: %s: ", prefix[prio & 7]);

		/* one write per line (stderr is unbuffered): lines stay whole */
		n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
		if (n > (int)sizeof(line) - 2)
			n = (int)sizeof(line) - 2;
		line[n++] = '\n';
		fwrite(line, 1, (size_t)n, stderr);
	}
	va_end(ap);
}
