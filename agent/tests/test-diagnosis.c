// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the diagnosis (diagnosis.c): which wait holds most of
 * the waited time, and how a knob held back after its trial is named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "diagnosis.h"
#include "seq.h"

/* The diagnosis: which wait holds most of the waited time. */
static void test_diagnosis(void **state)
{
	struct jt_window_stats w;
	char text[400];

	(void)state;
	memset(&w, 0, sizeof(w));
	w.span_us = 30000000;
	w.full = true;
	/* quiet: 3 ms/s of commit waits, under the 10 ms/s budget */
	w.wait[JT_WAIT_COMMIT].wait_us = 90000;
	assert_int_equal(jt_diagnose(&w, 10000, 0, 0, text, sizeof(text)), JT_CAUSE_NONE);
	/* the etcd-like case: fdatasync waits behind a bulk copy's ordered data, seconds each */
	w.wait[JT_WAIT_COMMIT].wait_us = 18000000;
	w.wait[JT_WAIT_SHADOW].wait_us = 300000;
	assert_int_equal(jt_diagnose(&w, 10000, 0, 0, text, sizeof(text)), JT_CAUSE_COMMIT_IO);
	assert_string_equal(text, "device-bound: the commit's own I/O holds most of the waited time (commit waits 600.0 ms/s, shadow 10.0, space 0.0, locked 0.0 ms/s over 30 s): no knob of ours helps");
	/* commit waits hold most, but shadow waits are over the budget: force copy still helps */
	w.wait[JT_WAIT_SHADOW].wait_us = 3000000;
	assert_int_equal(jt_diagnose(&w, 10000, 0, 0, text, sizeof(text)), JT_CAUSE_SHADOW);
	assert_string_equal(text, "shadow waits cost 100.0 ms/s, over the budget, beside the commit's own I/O, which holds most of the waited time (commit waits 600.0 ms/s, shadow 100.0, space 0.0, locked 0.0 ms/s over 30 s): force_copy is the knob for them; the commit I/O stays");
	/* the seed-000 writer: shadow waits dominate */
	w.wait[JT_WAIT_SHADOW].wait_us = 24000000;
	assert_int_equal(jt_diagnose(&w, 10000, 0, 0, text, sizeof(text)), JT_CAUSE_SHADOW);
	w.wait[JT_WAIT_SPACE].wait_us = 30000000;
	assert_int_equal(jt_diagnose(&w, 10000, 0, 0, text, sizeof(text)), JT_CAUSE_SPACE);
	/*
	 * the same with reclaim on: its own kind (issue 26, the io.max case:
	 * 6.1 at the top of the range, space waits of seconds behind the
	 * tenant's throttled checkpoint I/O)
	 */
	assert_int_equal(jt_diagnose(&w, 10000, 50, 74, text, sizeof(text)),
			 JT_CAUSE_SPACE_RECLAIM_ON);
	assert_non_null(strstr(text, "although reclaim is on at 50 %"));
	assert_non_null(strstr(text, "can still go up to 74 %"));
	assert_int_equal(jt_diagnose(&w, 10000, 74, 74, text, sizeof(text)),
			 JT_CAUSE_SPACE_RECLAIM_ON);
	assert_non_null(strstr(text, "no knob of ours removes them"));
	assert_string_equal(jt_cause_name(JT_CAUSE_SPACE_RECLAIM_ON), "space_reclaim_on");
	w.wait[JT_WAIT_LOCKED].wait_us = 31000000;
	assert_int_equal(jt_diagnose(&w, 10000, 0, 0, text, sizeof(text)), JT_CAUSE_LOCKED);
	assert_string_equal(jt_cause_name(JT_CAUSE_COMMIT_IO), "commit_io");
	assert_int_equal(jt_cause_knob(JT_CAUSE_LOCKED), JT_KNOB_LOCK_DELAY);
	assert_int_equal(jt_cause_knob(JT_CAUSE_SHADOW), JT_KNOB_FORCE_COPY);
	assert_int_equal(jt_cause_knob(JT_CAUSE_SPACE), JT_KNOB_RECLAIM);
	assert_int_equal(jt_cause_knob(JT_CAUSE_SPACE_RECLAIM_ON), JT_KNOB_RECLAIM);
	assert_int_equal(jt_cause_knob(JT_CAUSE_COMMIT_IO), JT_KNOBS);
	assert_int_equal(jt_cause_knob(JT_CAUSE_NONE), JT_KNOBS);
}

/*
 * The shards load on 6.12 (bench/agent-field): force copy's trial ended in
 * harm, and the diagnosis still named force copy as the knob; it says
 * that the trial here found otherwise.
 */
static void test_diagnosis_held_back(void **state)
{
	struct jt_window_stats w;
	char text[400], small[200];

	(void)state;
	memset(&w, 0, sizeof(w));
	w.span_us = 30000000;
	w.full = true;
	w.wait[JT_WAIT_COMMIT].wait_us = 45627000;
	w.wait[JT_WAIT_SHADOW].wait_us = 51276000;
	assert_int_equal(jt_diagnose(&w, 10000, 0, 0, text, sizeof(text)), JT_CAUSE_SHADOW);
	jt_diagnosis_held_back(text, sizeof(text), "harm", 598.4);
	assert_string_equal(text, "shadow waits hold most of the waited time (commit waits 1520.9 ms/s, shadow 1709.2, space 0.0, locked 0.0 ms/s over 30 s): force_copy is the knob; but its trial on this journal failed (harm): not tried again for another 598 s");
	/* no verdict recorded (a state file of an older agent) */
	assert_int_equal(jt_diagnose(&w, 10000, 0, 0, text, sizeof(text)), JT_CAUSE_SHADOW);
	jt_diagnosis_held_back(text, sizeof(text), "", 10);
	assert_non_null(strstr(text, "failed (reverted): not tried again for another 10 s"));
	/* what does not fit is left out whole, not cut */
	assert_int_equal(jt_diagnose(&w, 10000, 0, 0, small, sizeof(small)), JT_CAUSE_SHADOW);
	jt_diagnosis_held_back(small, sizeof(small), "harm", 598.4);
	assert_null(strstr(small, "trial"));
	assert_string_equal(small + strlen(small) - strlen("force_copy is the knob"),
			    "force_copy is the knob");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diagnosis),
		cmocka_unit_test(test_diagnosis_held_back),
	};

	return cmocka_run_group_tests_name("diagnosis", tests, NULL, NULL);
}
