// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the netlink record decoding (netlink.c): messages are built
 * with libnl exactly as the kernel lays them out (UAPI numbers, u64 with
 * padding, binary histograms) and decoded without a socket.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>

#include "netlink.h"

static struct nl_msg *record(uint8_t cmd, const char *name, bool with_hist, size_t hist_len)
{
	struct nl_msg *msg = nlmsg_alloc();
	uint64_t hist[JT_HIST_BUCKETS] = { 0 };

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, 42, 0, 0, cmd,
				    JBD2TUNE_GENL_VERSION));
	if (name)
		assert_int_equal(nla_put_string(msg, JBD2TUNE_ATTR_NAME, name), 0);
	assert_int_equal(nla_put_u8(msg, JBD2TUNE_ATTR_FORCE_COPY, 1), 0);
	assert_int_equal(nla_put_u8(msg, JBD2TUNE_ATTR_RECLAIM_WATERMARK_PCT, 35), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_LOG_BLOCKS, 32768), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_FREE_BLOCKS, 1234), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_MAX_TRANSACTION_BLOCKS, 8192), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_SHADOW_WAITS, 7), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_SHADOW_WAIT_MAX_US, 40000), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_SPACE_WAITS, 3), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_LOCKED_WAIT_US, 999), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_RECLAIM_BLOCKS, 5555), 0);
	if (with_hist) {
		hist[0] = 2;
		hist[15] = 7;
		hist[23] = 1;
		assert_int_equal(nla_put(msg, JBD2TUNE_ATTR_SHADOW_WAIT_HIST, (int)hist_len, hist), 0);
	}
	return msg;
}

/* The attributes a module with commit statistics, reclaim limits and logged_blocks adds. */
static void add_commit_attrs(struct nl_msg *msg)
{
	uint64_t hist[JT_HIST_BUCKETS] = { 0 };

	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_COMMIT_WAITS, 41), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_COMMIT_WAIT_US, 12300000), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_COMMIT_WAIT_MAX_US, 1347000), 0);
	hist[18] = 40;
	hist[20] = 1;
	assert_int_equal(nla_put(msg, JBD2TUNE_ATTR_COMMIT_WAIT_HIST, sizeof(hist), hist), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_COMMITS, 19), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_COMMIT_TIME_US, 4000000), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_COMMIT_TIME_MAX_US, 600000), 0);
	memset(hist, 0, sizeof(hist));
	hist[17] = 19;
	assert_int_equal(nla_put(msg, JBD2TUNE_ATTR_COMMIT_TIME_HIST, sizeof(hist), hist), 0);
	assert_int_equal(nla_put_u8(msg, JBD2TUNE_ATTR_RECLAIM_WATERMARK_MIN_PCT, 34), 0);
	assert_int_equal(nla_put_u8(msg, JBD2TUNE_ATTR_RECLAIM_WATERMARK_MAX_PCT, 67), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_LOGGED_BLOCKS, 175135), 0);
	assert_int_equal(nla_put_u32(msg, JBD2TUNE_ATTR_LOCK_DELAY_MAX_MS, 5000), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_SHADOW_WAITS_AVOIDED, 12), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_US, 4500000), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_LOCKED_WAITS_AVOIDED, 30), 0);
	assert_int_equal(nla_put_u64(msg, JBD2TUNE_ATTR_LOCKED_WAIT_AVOIDED_US, 900000), 0);
}

static void test_full_record(void **state)
{
	struct nl_msg *msg = record(JBD2TUNE_CMD_GET_JOURNAL, "vda-8", true, sizeof(uint64_t) * 24);
	char name[JT_NAME_MAX];
	struct jt_sample s;

	(void)state;
	assert_int_equal(jt_netlink_parse_record(msg, name, &s), JBD2TUNE_CMD_GET_JOURNAL);
	assert_string_equal(name, "vda-8");
	assert_true(s.knob[JT_KNOB_FORCE_COPY] == 1 && s.knob[JT_KNOB_RECLAIM] == 35);
	assert_true(s.log_blocks == 32768 && s.free_blocks == 1234);
	assert_true(s.max_transaction_blocks == 8192);
	assert_true(s.wait[JT_WAIT_SHADOW].waits == 7);
	assert_true(s.wait[JT_WAIT_SHADOW].wait_max_us == 40000);
	assert_true(s.wait[JT_WAIT_SPACE].waits == 3);
	assert_true(s.wait[JT_WAIT_LOCKED].wait_us == 999);
	assert_true(s.reclaim_blocks == 5555);
	assert_true(s.copyouts_forced == 0);	/* absent: 0 */
	assert_true(s.wait[JT_WAIT_SHADOW].hist[0] == 2 && s.wait[JT_WAIT_SHADOW].hist[15] == 7 &&
		    s.wait[JT_WAIT_SHADOW].hist[23] == 1);
	assert_true(s.wait[JT_WAIT_SPACE].hist[0] == 0);
	/* an older module: no commit attributes, no limits */
	assert_false(s.has_commit_stats);
	assert_false(s.has_reclaim_limits);
	assert_false(s.has_logged_blocks);
	assert_false(s.has_lock_delay);
	assert_false(s.has_avoided);
	assert_true(s.knob[JT_KNOB_LOCK_DELAY] == 0);
	assert_true(s.wait[JT_WAIT_COMMIT].waits == 0 && s.reclaim_watermark_max_pct == 0);
	assert_true(s.logged_blocks == 0);
	nlmsg_free(msg);
}

static void test_commit_record(void **state)
{
	struct nl_msg *msg = record(JBD2TUNE_CMD_GET_JOURNAL, "vdb-8", true, sizeof(uint64_t) * 24);
	char name[JT_NAME_MAX];
	struct jt_sample s;

	(void)state;
	add_commit_attrs(msg);
	assert_int_equal(jt_netlink_parse_record(msg, name, &s), JBD2TUNE_CMD_GET_JOURNAL);
	assert_true(s.has_commit_stats);
	assert_true(s.wait[JT_WAIT_COMMIT].waits == 41);
	assert_true(s.wait[JT_WAIT_COMMIT].wait_us == 12300000);
	assert_true(s.wait[JT_WAIT_COMMIT].wait_max_us == 1347000);
	assert_true(s.wait[JT_WAIT_COMMIT].hist[18] == 40 && s.wait[JT_WAIT_COMMIT].hist[20] == 1);
	assert_true(s.wait[JT_WAIT_COMMIT_DURATION].waits == 19);
	assert_true(s.wait[JT_WAIT_COMMIT_DURATION].wait_us == 4000000);
	assert_true(s.wait[JT_WAIT_COMMIT_DURATION].wait_max_us == 600000);
	assert_true(s.wait[JT_WAIT_COMMIT_DURATION].hist[17] == 19);
	assert_true(s.has_reclaim_limits);
	assert_true(s.reclaim_watermark_min_pct == 34 && s.reclaim_watermark_max_pct == 67);
	assert_true(s.has_logged_blocks && s.logged_blocks == 175135);
	assert_true(s.has_lock_delay && s.knob[JT_KNOB_LOCK_DELAY] == 5000);
	assert_true(s.has_avoided && s.shadow_avoided == 12 && s.shadow_avoided_us == 4500000);
	assert_true(s.locked_avoided == 30 && s.locked_avoided_us == 900000);
	/* the older kinds are untouched by the new ones */
	assert_true(s.wait[JT_WAIT_SHADOW].waits == 7 && s.wait[JT_WAIT_SHADOW].hist[15] == 7);
	nlmsg_free(msg);
}

static void test_event_record(void **state)
{
	struct nl_msg *msg = record(JBD2TUNE_CMD_STALL, "nvme0n1p2-12", false, 0);
	char name[JT_NAME_MAX];
	struct jt_sample s;

	(void)state;
	assert_int_equal(jt_netlink_parse_record(msg, name, &s), JBD2TUNE_CMD_STALL);
	assert_string_equal(name, "nvme0n1p2-12");
	nlmsg_free(msg);
}

static void test_bad_records(void **state)
{
	char name[JT_NAME_MAX] = "untouched";
	struct jt_sample s;
	struct nl_msg *msg;
	char longname[100];

	(void)state;
	/* no name: rejected */
	msg = record(JBD2TUNE_CMD_GET_JOURNAL, NULL, false, 0);
	assert_int_equal(jt_netlink_parse_record(msg, name, &s), -EINVAL);
	assert_string_equal(name, "untouched");
	nlmsg_free(msg);
	/* a name longer than JBD2TUNE_NAME_MAX: rejected */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	msg = record(JBD2TUNE_CMD_GET_JOURNAL, longname, false, 0);
	assert_int_equal(jt_netlink_parse_record(msg, name, &s), -EINVAL);
	nlmsg_free(msg);
	/* a histogram of the wrong size reads as empty, the rest still parses */
	msg = record(JBD2TUNE_CMD_GET_JOURNAL, "vdb-12", true, sizeof(uint64_t) * 23);
	assert_int_equal(jt_netlink_parse_record(msg, name, &s), JBD2TUNE_CMD_GET_JOURNAL);
	assert_true(s.wait[JT_WAIT_SHADOW].hist[0] == 0 && s.free_blocks == 1234);
	nlmsg_free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_record),
		cmocka_unit_test(test_commit_record),
		cmocka_unit_test(test_event_record),
		cmocka_unit_test(test_bad_records),
	};

	return cmocka_run_group_tests_name("netlink", tests, NULL, NULL);
}
