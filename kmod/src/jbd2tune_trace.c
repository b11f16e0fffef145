// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_trace.c - instantiates the jbd2tune tracepoints
 */

#include "jbd2tune.h"

#define CREATE_TRACE_POINTS
#include "jbd2tune_trace.h"

/**
 * jbd2tune_trace_wait() - fire the tracepoint of a finished wait
 * @journal: the journal waited on
 * @kind: which wait
 * @duration_us: its duration, microseconds
 *
 * Lock-free, callable in atomic context.  Avoided waits
 * (JBD2TUNE_WAIT_SHADOW_AVOIDED) never come here: no task waited.
 */
void jbd2tune_trace_wait(journal_t *journal, enum jbd2tune_wait_kind kind,
			 u64 duration_us)
{
	dev_t dev = journal->j_fs_dev->bd_dev;

	switch (kind) {
	case JBD2TUNE_WAIT_SHADOW:
		trace_jbd2tune_shadow_wait(dev, duration_us);
		break;
	case JBD2TUNE_WAIT_SPACE:
		trace_jbd2tune_space_wait(dev, duration_us);
		break;
	case JBD2TUNE_WAIT_COMMIT_WAIT:
		trace_jbd2tune_commit_wait(dev, duration_us);
		break;
	case JBD2TUNE_WAIT_COMMIT:
		trace_jbd2tune_commit(dev, duration_us);
		break;
	case JBD2TUNE_WAIT_LOCK_DELAY:
		trace_jbd2tune_lock_delay(dev, duration_us);
		break;
	case JBD2TUNE_WAIT_CHECKPOINT_COMMIT:
		trace_jbd2tune_checkpoint_commit_wait(dev, duration_us);
		break;
	case JBD2TUNE_WAIT_LOCKED:
		trace_jbd2tune_locked_wait(dev, duration_us);
		break;
	default:
		break;
	}
}
