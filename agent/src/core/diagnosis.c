// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Diagnosis of a journal's waiting; see diagnosis.h and agent-policy.md.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "diagnosis.h"

const char *jt_cause_name(enum jt_cause cause)
{
	static const char *const names[JT_CAUSES] = {
		"none", "shadow", "space", "locked", "commit_io", "space_reclaim_on",
	};

	return (unsigned int)cause < JT_CAUSES ? names[cause] : "?";
}

/* The wait each cause is about; JT_WAIT_KINDS for none. */
static const enum jt_wait_kind cause_wait[JT_CAUSES] = {
	[JT_CAUSE_NONE] = JT_WAIT_KINDS,
	[JT_CAUSE_SHADOW] = JT_WAIT_SHADOW,
	[JT_CAUSE_SPACE] = JT_WAIT_SPACE,
	[JT_CAUSE_LOCKED] = JT_WAIT_LOCKED,
	[JT_CAUSE_COMMIT_IO] = JT_WAIT_COMMIT,
	[JT_CAUSE_SPACE_RECLAIM_ON] = JT_WAIT_SPACE,
};

static double rate(const struct jt_window_stats *w, enum jt_wait_kind k)
{
	return w->span_us ? (double)w->wait[k].wait_us * 1e6 / (double)w->span_us : 0.0;
}

enum jt_cause jt_diagnose(const struct jt_window_stats *w, double budget_us_per_s,
			  int64_t reclaim_pct, int64_t reclaim_max_pct, char *text, size_t len)
{
	double r[JT_CAUSES] = { 0.0 };
	enum jt_cause c = JT_CAUSE_NONE;
	bool behind_commit = false;
	double spared = 0.0;
	unsigned int i;
	char figs[240], spared_txt[48];

	/*
	 * the candidates; space_reclaim_on is space's, told apart below.
	 * Shadow waits force copy spares count as shadow waits: the knob
	 * that removes them is at work, which is neither "device-bound" nor
	 * "quiet"
	 */
	if (w->span_us && w->shadow_avoided_us)
		spared = (double)w->shadow_avoided_us * 1e6 / (double)w->span_us;
	for (i = JT_CAUSE_SHADOW; i <= JT_CAUSE_COMMIT_IO; i++) {
		r[i] = rate(w, cause_wait[i]) + (i == JT_CAUSE_SHADOW ? spared : 0.0);
		if (r[i] > r[c])
			c = (enum jt_cause)i;
	}
	snprintf(spared_txt, sizeof(spared_txt), " (%.1f of it spared by force copy)",
		 spared / 1000.0);
	snprintf(figs, sizeof(figs),
		 "commit waits %.1f ms/s, shadow %.1f%s, space %.1f, locked %.1f ms/s over %.0f s",
		 r[JT_CAUSE_COMMIT_IO] / 1000.0, r[JT_CAUSE_SHADOW] / 1000.0,
		 spared > 0.0 ? spared_txt : "",
		 r[JT_CAUSE_SPACE] / 1000.0, r[JT_CAUSE_LOCKED] / 1000.0, (double)w->span_us / 1e6);
	if (c != JT_CAUSE_NONE && r[c] < budget_us_per_s)
		c = JT_CAUSE_NONE;
	/*
	 * commit waits hold most, but a wait a knob removes is over the
	 * budget too: that knob still helps, so that wait is the cause
	 * (issue 45: on the seed load "device-bound: no knob of ours helps"
	 * was said 8 s before force copy's trial began, and it helped)
	 */
	if (c == JT_CAUSE_COMMIT_IO) {
		enum jt_cause k = JT_CAUSE_NONE;

		for (i = JT_CAUSE_SHADOW; i < JT_CAUSE_COMMIT_IO; i++)
			if (r[i] > budget_us_per_s && (k == JT_CAUSE_NONE || r[i] > r[k]))
				k = (enum jt_cause)i;
		if (k != JT_CAUSE_NONE) {
			c = k;
			behind_commit = true;
		}
	}
	if (c == JT_CAUSE_SPACE && reclaim_pct > 0)
		c = JT_CAUSE_SPACE_RECLAIM_ON;
	if (behind_commit && c != JT_CAUSE_SPACE_RECLAIM_ON) {
		static const char *const kind[JT_CAUSES] = {
			[JT_CAUSE_SHADOW] = "shadow", [JT_CAUSE_SPACE] = "log-space",
			[JT_CAUSE_LOCKED] = "locked-transaction",
		};
		static const char *const knob[JT_CAUSES] = {
			[JT_CAUSE_SHADOW] = "force_copy", [JT_CAUSE_SPACE] = "the reclaim watermark",
			[JT_CAUSE_LOCKED] = "lock_delay_max_ms",
		};

		snprintf(text, len,
			 "%s waits cost %.1f ms/s, over the budget, beside the commit's own I/O, which holds most of the waited time (%s): %s is the knob for them; the commit I/O stays",
			 kind[c], r[c] / 1000.0, figs, knob[c]);
		return c;
	}
	switch (c) {
	case JT_CAUSE_NONE:
		snprintf(text, len, "quiet: no wait costs the budget (%s)", figs);
		break;
	case JT_CAUSE_SHADOW:
		if (spared * 2.0 >= r[JT_CAUSE_SHADOW])
			snprintf(text, len,
				 "shadow waits hold most of the waited time (%s): force_copy is the knob, and it is on: it spares %.1f ms/s of them",
				 figs, spared / 1000.0);
		else
			snprintf(text, len,
				 "shadow waits hold most of the waited time (%s): force_copy is the knob",
				 figs);
		break;
	case JT_CAUSE_SPACE:
		snprintf(text, len,
			 "log-space waits hold most of the waited time (%s): the reclaim watermark is the knob, and a larger journal if waits persist at its top",
			 figs);
		break;
	case JT_CAUSE_SPACE_RECLAIM_ON:
		if (reclaim_max_pct > 0 && reclaim_pct < reclaim_max_pct)
			snprintf(text, len,
				 "log-space waits hold most of the waited time although reclaim is on at %lld %% (%s): the watermark can still go up to %lld %%; waits that stay at the top are checkpoint I/O held behind a throttled writer (io.max) or a journal too small",
				 (long long)reclaim_pct, figs, (long long)reclaim_max_pct);
		else
			snprintf(text, len,
				 "log-space waits hold most of the waited time although reclaim is on at %lld %% (%s): no knob of ours removes them; checkpoint I/O held behind a throttled writer (io.max) or a journal too small: see the journal-size advice and Documentation/iomax-inversion.md",
				 (long long)reclaim_pct, figs);
		break;
	case JT_CAUSE_LOCKED:
		snprintf(text, len,
			 "locked-transaction waits hold most of the waited time (%s): lock_delay_max_ms is the knob (policy lock_delay, off as shipped)",
			 figs);
		break;
	case JT_CAUSE_COMMIT_IO:
	default:
		snprintf(text, len,
			 "device-bound: the commit's own I/O holds most of the waited time (%s): no knob of ours helps",
			 figs);
		break;
	}
	return c;
}

enum jt_knob jt_cause_knob(enum jt_cause cause)
{
	unsigned int k;

	if ((unsigned int)cause >= JT_CAUSES)
		return JT_KNOBS;
	/* the knob whose relief wait it is (policy.c's descriptor table) */
	for (k = 0; k < JT_KNOBS; k++)
		if (jt_knob_desc((enum jt_knob)k)->relief == cause_wait[cause])
			return (enum jt_knob)k;
	return JT_KNOBS;
}

void jt_diagnosis_held_back(char *text, size_t len, const char *verdict, double remaining_s)
{
	size_t used = strnlen(text, len);
	int n;

	if (used >= len)
		return;
	n = snprintf(text + used, len - used,
		     "; but its trial on this journal failed (%s): not tried again for another %.0f s",
		     verdict && verdict[0] ? verdict : "reverted", remaining_s);
	if (n < 0 || (size_t)n >= len - used)
		text[used] = '\0';
}
