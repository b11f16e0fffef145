// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench-dump [INTERVALS] - CPU the agent spends in user space on one
 * GET_JOURNAL dump of 16 journals, on this machine's own CPU: every record
 * is decoded (jt_netlink_parse_record, libnl attribute parsing as for a real
 * reply) and run through the policy core and the journal-size advice with
 * the built-in defaults, as the manager does for each journal of a dump.  The records carry all
 * attributes and five histograms, and every interval adds waits to each
 * journal so the windowed percentiles are recomputed.  Sockets are not
 * involved: bench/agent-vm measures the whole agent in a VM, whose CPU
 * figures are those of an emulated CPU.  Prints microseconds per interval
 * and the share of a core at interval_ms = 1000.  Not a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>

#include "advice.h"
#include "conf.h"
#include "netlink.h"
#include "policy.h"

#define JOURNALS 16

static struct nl_msg *record(unsigned int i)
{
	static const int hist_attr[JT_WAIT_KINDS] = {
		JBD2TUNE_ATTR_SHADOW_WAIT_HIST, JBD2TUNE_ATTR_SPACE_WAIT_HIST,
		JBD2TUNE_ATTR_LOCKED_WAIT_HIST, JBD2TUNE_ATTR_COMMIT_WAIT_HIST,
		JBD2TUNE_ATTR_COMMIT_TIME_HIST,
	};
	static const int u64_attr[] = {
		JBD2TUNE_ATTR_COMMIT_WAITS, JBD2TUNE_ATTR_COMMIT_WAIT_US,
		JBD2TUNE_ATTR_COMMIT_WAIT_MAX_US, JBD2TUNE_ATTR_COMMITS, JBD2TUNE_ATTR_COMMIT_TIME_US,
		JBD2TUNE_ATTR_COMMIT_TIME_MAX_US,
	};
	struct nl_msg *msg = nlmsg_alloc();
	uint64_t hist[JT_HIST_BUCKETS] = { 3, 1, 4, 1, 5, 9, 2, 6 };
	char name[32];
	int a, k;

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, 42, 0, 0,
				 JBD2TUNE_CMD_GET_JOURNAL, JBD2TUNE_GENL_VERSION))
		exit(1);
	snprintf(name, sizeof(name), "dm-%u-8", i);
	nla_put_string(msg, JBD2TUNE_ATTR_NAME, name);
	nla_put_u8(msg, JBD2TUNE_ATTR_FORCE_COPY, 0);
	nla_put_u8(msg, JBD2TUNE_ATTR_RECLAIM_WATERMARK_PCT, 25);
	for (a = JBD2TUNE_ATTR_LOG_BLOCKS; a <= JBD2TUNE_ATTR_RECLAIM_BLOCKS; a++)
		nla_put_u64(msg, a, 1000 + (uint64_t)a);
	for (k = 0; k < (int)(sizeof(u64_attr) / sizeof(u64_attr[0])); k++)
		nla_put_u64(msg, u64_attr[k], 1000 + (uint64_t)k);
	nla_put_u8(msg, JBD2TUNE_ATTR_RECLAIM_WATERMARK_MIN_PCT, 26);
	nla_put_u8(msg, JBD2TUNE_ATTR_RECLAIM_WATERMARK_MAX_PCT, 75);
	nla_put_u64(msg, JBD2TUNE_ATTR_LOGGED_BLOCKS, 123456);
	for (k = 0; k < JT_WAIT_KINDS; k++)
		nla_put(msg, hist_attr[k], sizeof(hist), hist);
	return msg;
}

static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	static struct jt_journal_state st[JOURNALS];
	static struct jt_advice_state adv[JOURNALS];
	struct jt_timing t = { .interval_us = 1000000, .window_us = 30000000 };
	unsigned int n = argc > 1 ? (unsigned int)atoi(argv[1]) : 20000, i, j;
	struct nl_msg *msg[JOURNALS];
	struct jt_journal_policy jp;
	struct jt_policy p;
	double t0, t1;

	jt_policy_init_defaults(&p);
	jt_policy_resolve(&p, "dm-0-8", NULL, &jp);
	for (j = 0; j < JOURNALS; j++) {
		msg[j] = record(j);
		jt_journal_state_init(&st[j]);
		jt_advice_init(&adv[j]);
	}
	t0 = cpu_us();
	for (i = 0; i < n; i++) {
		for (j = 0; j < JOURNALS; j++) {
			struct jt_decision d[JT_DECISIONS_MAX];
			struct jt_window_stats w;
			char name[JT_NAME_MAX];
			char advice[JT_ADVICE_MAX];
			struct jt_sample s;

			if (jt_netlink_parse_record(msg[j], name, &s) < 0)
				return 1;
			s.time_us = (uint64_t)(i + 1) * t.interval_us;
			/* three more locked waits in bucket 4 per interval */
			s.wait[JT_WAIT_LOCKED].waits += 3ULL * i;
			s.wait[JT_WAIT_LOCKED].hist[4] += 3ULL * i;
			s.knob[JT_KNOB_RECLAIM] = st[j].knob[JT_KNOB_RECLAIM].seen ?
						  st[j].knob[JT_KNOB_RECLAIM].value : 25;
			jt_policy_step(&t, &jp, &st[j], &s, false, d);
			jt_advice_step(&t, &jp, &st[j], &adv[j], &s, NULL, NULL, advice,
				       sizeof(advice));
			jt_window_stats(&st[j], &s, t.window_us, 0, &w);
		}
	}
	t1 = cpu_us();
	printf("user-space work of one 16-journal dump (decode + policy + advice): %.1f us per interval, "
	       "%.4f %% of one core at interval_ms = 1000 (%u intervals)\n",
	       (t1 - t0) / n, (t1 - t0) / n / 1e6 * 100, n);
	for (j = 0; j < JOURNALS; j++)
		nlmsg_free(msg[j]);
	jt_policy_free(&p);
	return 0;
}
