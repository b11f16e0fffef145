// SPDX-License-Identifier: GPL-2.0-or-later
/* Prometheus text exposition of jbd2-tuned's view of each journal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "manager.h"
#include "metrics.h"

int jt_metrics_write(const struct jt_manager *m, const char *path)
{
	const struct jt_journal *j;
	char *tmp;
	FILE *f;
	unsigned int k;
	int r = 0;

	if (asprintf(&tmp, "%s.tmp", path) < 0)
		return -ENOMEM;
	f = fopen(tmp, "we");
	if (!f) {
		r = -errno;
		free(tmp);
		return r;
	}
	fprintf(f, "# HELP jbd2_tuned_decisions_total Knob changes decided since start.\n"
		   "# TYPE jbd2_tuned_decisions_total counter\n"
		   "jbd2_tuned_decisions_total %lu\n", m->decisions);
	fprintf(f, "# HELP jbd2_tuned_force_copy Force copy-out knob as last read or written (0/1).\n"
		   "# TYPE jbd2_tuned_force_copy gauge\n");
	for (j = m->journals; j; j = j->next)
		fprintf(f, "jbd2_tuned_force_copy{journal=\"%s\"} %lld\n", j->name,
			(long long)j->last.knob[JT_KNOB_FORCE_COPY]);
	fprintf(f, "# HELP jbd2_tuned_reclaim_watermark_pct Reclaim watermark knob as last read or written, percent of the log; 0 = off.\n"
		   "# TYPE jbd2_tuned_reclaim_watermark_pct gauge\n");
	for (j = m->journals; j; j = j->next)
		fprintf(f, "jbd2_tuned_reclaim_watermark_pct{journal=\"%s\"} %lld\n", j->name,
			(long long)j->last.knob[JT_KNOB_RECLAIM]);
	fprintf(f, "# HELP jbd2_tuned_free_blocks Free log space at the last sample, journal blocks.\n"
		   "# TYPE jbd2_tuned_free_blocks gauge\n");
	for (j = m->journals; j; j = j->next)
		fprintf(f, "jbd2_tuned_free_blocks{journal=\"%s\"} %llu\n", j->name,
			(unsigned long long)j->last.free_blocks);
	fprintf(f, "# HELP jbd2_tuned_log_blocks Log length, journal blocks.\n"
		   "# TYPE jbd2_tuned_log_blocks gauge\n");
	for (j = m->journals; j; j = j->next)
		fprintf(f, "jbd2_tuned_log_blocks{journal=\"%s\"} %llu\n", j->name,
			(unsigned long long)j->last.log_blocks);
	/* commit waits only where the module reports them; commits are not waits */
	fprintf(f, "# HELP jbd2_tuned_waits_total Waits of each kind since the journal was set up (kind: shadow, space, locked, commit).\n"
		   "# TYPE jbd2_tuned_waits_total counter\n");
	for (j = m->journals; j; j = j->next)
		for (k = 0; k < JT_WAIT_COMMIT_DURATION; k++)
			if (k != JT_WAIT_COMMIT || j->last.has_commit_stats)
				fprintf(f, "jbd2_tuned_waits_total{journal=\"%s\",kind=\"%s\"} %llu\n",
					j->name, jt_wait_kind_name(k),
					(unsigned long long)j->last.wait[k].waits);
	fprintf(f, "# HELP jbd2_tuned_wait_p99_seconds 99th percentile of waits over the window.\n"
		   "# TYPE jbd2_tuned_wait_p99_seconds gauge\n");
	for (j = m->journals; j; j = j->next)
		for (k = 0; k < JT_WAIT_COMMIT_DURATION; k++)
			if (k != JT_WAIT_COMMIT || j->last.has_commit_stats)
				fprintf(f, "jbd2_tuned_wait_p99_seconds{journal=\"%s\",kind=\"%s\"} %.6f\n",
					j->name, jt_wait_kind_name(k), j->stats.wait[k].p99_us / 1e6);
	fprintf(f, "# HELP jbd2_tuned_commits_total Transaction commits since the journal was set up.\n"
		   "# TYPE jbd2_tuned_commits_total counter\n");
	for (j = m->journals; j; j = j->next)
		if (j->last.has_commit_stats)
			fprintf(f, "jbd2_tuned_commits_total{journal=\"%s\"} %llu\n", j->name,
				(unsigned long long)j->last.wait[JT_WAIT_COMMIT_DURATION].waits);
	fprintf(f, "# HELP jbd2_tuned_advised_journal_bytes Journal size the standing advice names; 0 = none, or in blocks only, or too large to make (see the log).\n"
		   "# TYPE jbd2_tuned_advised_journal_bytes gauge\n");
	for (j = m->journals; j; j = j->next)
		fprintf(f, "jbd2_tuned_advised_journal_bytes{journal=\"%s\"} %llu\n", j->name,
			(unsigned long long)j->advice_state.advised_bytes);
	fprintf(f, "# HELP jbd2_tuned_reverts_total Changes the outcome check undid since start.\n"
		   "# TYPE jbd2_tuned_reverts_total counter\n");
	for (j = m->journals; j; j = j->next)
		for (k = 0; k < JT_KNOBS; k++)
			fprintf(f, "jbd2_tuned_reverts_total{journal=\"%s\",knob=\"%s\"} %lu\n",
				j->name, jt_knob_name(k), j->reverts[k]);
	fprintf(f, "# HELP jbd2_tuned_retry_after_timestamp_seconds When an undone change may be tried again, Unix time; 0 = none.\n"
		   "# TYPE jbd2_tuned_retry_after_timestamp_seconds gauge\n");
	for (j = m->journals; j; j = j->next)
		for (k = 0; k < JT_KNOBS; k++)
			fprintf(f, "jbd2_tuned_retry_after_timestamp_seconds{journal=\"%s\",knob=\"%s\"} %.0f\n",
				j->name, jt_knob_name(k), j->retry_realtime_us[k] / 1e6);
	if (fflush(f) != 0 || ferror(f))
		r = -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	free(tmp);
	return r;
}
