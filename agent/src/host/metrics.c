// SPDX-License-Identifier: GPL-2.0-or-later
/* Prometheus text exposition of jbd2-tuned's view of each journal. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "manager.h"
#include "diagnosis.h"
#include "metrics.h"

/* @s as a Prometheus label value (backslash, quote and newline escaped) */
static void label_value(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/*
 * One gauge family in bytes, a series per journal whose block size is
 * known: the log's length, or with @free_space its free space at the last sample.
 */
static void bytes_family(const struct jt_manager *m, FILE *f, const char *name,
			 const char *help, bool free_space)
{
	const struct jt_journal *j;

	fprintf(f, "# HELP jbd2_tuned_%s %s\n# TYPE jbd2_tuned_%s gauge\n", name, help, name);
	for (j = m->journals; j; j = j->next)
		if (j->block_size)
			fprintf(f, "jbd2_tuned_%s{journal=\"%s\"} %llu\n", name, j->name,
				(unsigned long long)((free_space ? j->last.free_blocks : j->last.log_blocks) *
						     j->block_size));
}

/*
 * The additions that follow Prometheus' conventions (base units, 0-1
 * ratios, real histograms, _info series to join on), written beside the
 * older families, which the alert rules still use.
 */
static void write_conventional(const struct jt_manager *m, FILE *f)
{
	static char le[JT_HIST_BUCKETS][24];	/* "2e-06" .. "8.38861": formatted once */
	const struct jt_journal *j;
	unsigned int k, b;

	if (!le[0][0])
		for (b = 0; b + 1 < JT_HIST_BUCKETS; b++)
			snprintf(le[b], sizeof(le[b]), "%g", (double)(2ULL << b) / 1e6);
	fprintf(f, "# HELP jbd2_tuned_build_info The agent's version; always 1.\n"
		   "# TYPE jbd2_tuned_build_info gauge\n"
		   "jbd2_tuned_build_info{version=\"%s\"} 1\n", JT_VERSION);
	/* the configfs tree exists only with jbd2-tune's jbd2 (SPEC 1) */
	fprintf(f, "# HELP jbd2_tuned_module_patched 1 when jbd2-tune's jbd2 module is loaded (its configfs tree exists), 0 with the stock module.\n"
		   "# TYPE jbd2_tuned_module_patched gauge\n"
		   "jbd2_tuned_module_patched %d\n", access(m->opt.configfs_root, F_OK) == 0);
	fprintf(f, "# HELP jbd2_tuned_journal_info The journal's file system, to join with node_exporter's device and mountpoint labels (uuid: the ext4 UUID udev recorded); always 1.\n"
		   "# TYPE jbd2_tuned_journal_info gauge\n");
	for (j = m->journals; j; j = j->next) {
		fprintf(f, "jbd2_tuned_journal_info{journal=\"%s\",device=\"", j->name);
		label_value(f, j->mount_source ? j->mount_source : "");
		fputs("\",mountpoint=\"", f);
		label_value(f, j->mounts[0] ? j->mounts[0] : "");
		fputs("\",uuid=\"", f);
		label_value(f, j->fs_uuid);
		fputs("\"} 1\n", f);
	}
	fprintf(f, "# HELP jbd2_tuned_log_free_ratio Free log space at the last sample over the log's length (0-1).\n"
		   "# TYPE jbd2_tuned_log_free_ratio gauge\n");
	for (j = m->journals; j; j = j->next)
		fprintf(f, "jbd2_tuned_log_free_ratio{journal=\"%s\"} %.6f\n", j->name,
			j->last.log_blocks ? (double)j->last.free_blocks / (double)j->last.log_blocks : 0.0);
	/* in bytes where the block size is known: the journal's file system is mounted */
	bytes_family(m, f, "log_size_bytes",
		     "The log's length, bytes (journal blocks times the file system's block size).",
		     false);
	bytes_family(m, f, "log_free_bytes", "Free log space at the last sample, bytes.", true);
	fprintf(f, "# HELP jbd2_tuned_reclaim_watermark_ratio Reclaim watermark knob over the log's length (0-1); 0 = off.\n"
		   "# TYPE jbd2_tuned_reclaim_watermark_ratio gauge\n");
	for (j = m->journals; j; j = j->next)
		fprintf(f, "jbd2_tuned_reclaim_watermark_ratio{journal=\"%s\"} %.2f\n", j->name,
			(double)j->last.knob[JT_KNOB_RECLAIM] / 100.0);
	/* in seconds only: promtool's lint refuses a _ms name */
	fprintf(f, "# HELP jbd2_tuned_lock_delay_seconds Lock delay knob (lock_delay_max_ms) as last read or written, seconds; 0 = off.\n"
		   "# TYPE jbd2_tuned_lock_delay_seconds gauge\n");
	for (j = m->journals; j; j = j->next)
		fprintf(f, "jbd2_tuned_lock_delay_seconds{journal=\"%s\"} %.3f\n", j->name,
			(double)j->last.knob[JT_KNOB_LOCK_DELAY] / 1000.0);
	/*
	 * The kernel's histograms as they are: bucket b counts waits of
	 * [2^b, 2^(b+1)) us (bucket 0 also < 1 us, the last everything above),
	 * so the cumulative count up to b is that of waits below 2^(b+1) us.
	 */
	fprintf(f, "# HELP jbd2_tuned_wait_duration_seconds Waits of each kind since the journal was set up, from the kernel's log2 histogram (kind: shadow, space, locked, commit).\n"
		   "# TYPE jbd2_tuned_wait_duration_seconds histogram\n");
	for (j = m->journals; j; j = j->next)
		for (k = 0; k < JT_WAIT_COMMIT_DURATION; k++) {
			const struct jt_wait_counters *w = &j->last.wait[k];
			uint64_t cum = 0;

			if (k == JT_WAIT_COMMIT && !j->last.has_commit_stats)
				continue;
			for (b = 0; b + 1 < JT_HIST_BUCKETS; b++) {
				cum += w->hist[b];
				fprintf(f, "jbd2_tuned_wait_duration_seconds_bucket{journal=\"%s\",kind=\"%s\",le=\"%s\"} %llu\n",
					j->name, jt_wait_kind_name(k), le[b], (unsigned long long)cum);
			}
			/* the files are read one by one: keep +Inf >= every bucket */
			cum += w->hist[JT_HIST_BUCKETS - 1];
			if (cum < w->waits)
				cum = w->waits;
			fprintf(f, "jbd2_tuned_wait_duration_seconds_bucket{journal=\"%s\",kind=\"%s\",le=\"+Inf\"} %llu\n",
				j->name, jt_wait_kind_name(k), (unsigned long long)cum);
			fprintf(f, "jbd2_tuned_wait_duration_seconds_sum{journal=\"%s\",kind=\"%s\"} %.6f\n",
				j->name, jt_wait_kind_name(k), (double)w->wait_us / 1e6);
			fprintf(f, "jbd2_tuned_wait_duration_seconds_count{journal=\"%s\",kind=\"%s\"} %llu\n",
				j->name, jt_wait_kind_name(k), (unsigned long long)cum);
		}
}

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
	write_conventional(m, f);
	fprintf(f, "# HELP jbd2_tuned_diagnosis Which wait holds most of the waited time over the window (1 for the current cause; commit_io = device-bound, no knob helps).\n"
		   "# TYPE jbd2_tuned_diagnosis gauge\n");
	for (j = m->journals; j; j = j->next)
		for (k = 0; k < JT_CAUSES; k++)
			fprintf(f, "jbd2_tuned_diagnosis{journal=\"%s\",cause=\"%s\"} %d\n", j->name,
				jt_cause_name((enum jt_cause)k), j->cause == (int)k);
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
