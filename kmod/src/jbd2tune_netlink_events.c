// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_netlink_events.c - when to send the events of group "events"
 *
 * JOURNAL_ADD and JOURNAL_REMOVE are sent right from mount and umount
 * (jbd2tune_events_add() / jbd2tune_events_remove()), which may sleep.
 *
 * SPACE_LOW and STALL are noticed where nothing may sleep or allocate: on
 * the handle-start path under j_state_lock, and right after a task woke up
 * from a wait (possibly with j_state_lock held for writing).  There we only
 * flip bits and queue a work item of the journal; the work builds and
 * sends the message.
 *
 * SPACE_LOW is edge-triggered with hysteresis: JBD2TUNE_EV_SPACE_LOW is
 * set when a handle start first sees free log space below the line (the
 * reclaim watermark, or 2 x j_max_transaction_buffers while reclaim is off)
 * and cleared by the first handle start that sees it at least
 * JBD2TUNE_SPACE_LOW_HYSTERESIS of the journal above the line, which
 * re-arms the event.  Background reclaim stops as soon as free space is
 * back at the watermark, so without the hysteresis every commit would
 * cross the line again and send one message each.  Crossings are also
 * rate-limited like STALL: none is sent sooner than
 * JBD2TUNE_STALL_INTERVAL_MS after the previous one (it is dropped, and the
 * event stays armed-off until free space recovers).
 *
 * STALL coalesces: every shadow or space wait longer than
 * JBD2TUNE_STALL_THRESHOLD_US adds its kind and duration to the journal's
 * pending stall and queues the delayed stall work unless it is queued
 * already; the work sends one message for everything pending and never
 * runs sooner than JBD2TUNE_STALL_INTERVAL_MS after the previous message.
 * The pending stall is kept under a spinlock of the journal (stall_lock),
 * taken only by waits that slept longer than the threshold and by the
 * work, so a message's kinds and maximum always describe the same waits.
 */

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/workqueue.h>

#include "jbd2tune.h"

/* Bits of jbd2tune_events.flags */
#define JBD2TUNE_EV_SPACE_LOW		0	/* below the line, reported */
#define JBD2TUNE_EV_STOPPED		1	/* journal going away */

/* Re-arm SPACE_LOW this share of the journal above the line: 1/16. */
#define JBD2TUNE_SPACE_LOW_HYSTERESIS_SHIFT	4

/*
 * Jiffies until the next STALL message may be sent, 0 if it may be now.
 * Rounded up, so the work never runs early; the work checks again against
 * the same clock the message's timestamp is taken from.
 */
static unsigned long jbd2tune_stall_delay(struct jbd2tune_events *evs,
					  u64 now)
{
	u64 next = READ_ONCE(evs->stall_sent_ns) +
		   JBD2TUNE_STALL_INTERVAL_MS * NSEC_PER_MSEC;

	if (now >= next)
		return 0;
	return nsecs_to_jiffies(next - now) + 1;
}

/* The SPACE_LOW line: the reclaim watermark, or 2 x the threshold if none. */
static u64 jbd2tune_space_line(journal_t *journal, u64 watermark_blocks)
{
	return watermark_blocks ? watermark_blocks :
	       2 * (u64)READ_ONCE(journal->j_max_transaction_buffers);
}

static void jbd2tune_space_work(struct work_struct *work)
{
	struct jbd2tune_journal *jt =
		container_of(work, struct jbd2tune_journal, events.space_work);
	unsigned int pct = READ_ONCE(jt->reclaim_watermark_pct);
	struct jbd2tune_event ev = {
		.cmd = JBD2TUNE_CMD_SPACE_LOW,
		.threshold_blocks = jbd2tune_space_line(&jt->journal,
			pct ? jbd2tune_watermark_blocks(&jt->journal, pct) : 0),
		.timestamp_ns = READ_ONCE(jt->events.space_low_ns),
	};

	jbd2tune_nl_notify(jt, &ev);
}

static void jbd2tune_stall_work(struct work_struct *work)
{
	struct jbd2tune_journal *jt =
		container_of(to_delayed_work(work), struct jbd2tune_journal,
			     events.stall_work);
	struct jbd2tune_events *evs = &jt->events;
	struct jbd2tune_event ev = { .cmd = JBD2TUNE_CMD_STALL };
	u64 now = ktime_get_ns();
	unsigned long delay = jbd2tune_stall_delay(evs, now);

	/* Never sooner than the interval after the previous message. */
	if (delay) {
		queue_delayed_work(system_wq, &evs->stall_work, delay);
		return;
	}

	spin_lock(&evs->stall_lock);
	evs->stall_queued = false;
	ev.stall_kind = evs->stall_kinds;
	ev.stall_max_us = evs->stall_max_us;
	evs->stall_kinds = 0;
	evs->stall_max_us = 0;
	spin_unlock(&evs->stall_lock);
	if (!ev.stall_kind)
		return;

	/* only this work writes stall_sent_ns; the wait path reads it */
	WRITE_ONCE(evs->stall_sent_ns, now);
	ev.timestamp_ns = now;
	jbd2tune_nl_notify(jt, &ev);
}

/**
 * jbd2tune_events_setup() - initialise a new journal's event state
 * @jt: the journal, not yet visible to anyone
 */
void jbd2tune_events_setup(struct jbd2tune_journal *jt)
{
	struct jbd2tune_events *evs = &jt->events;

	spin_lock_init(&evs->stall_lock);
	INIT_WORK(&evs->space_work, jbd2tune_space_work);
	INIT_DELAYED_WORK(&evs->stall_work, jbd2tune_stall_work);
	/* stall_sent_ns 0: the first STALL may go at once */
}

/**
 * jbd2tune_events_add() - the journal was registered: send JOURNAL_ADD
 * @jt: the journal, on the registry and with its configfs group
 *
 * Called from jbd2tune_journal_register(); may sleep.
 */
void jbd2tune_events_add(struct jbd2tune_journal *jt)
{
	struct jbd2tune_event ev = {
		.cmd = JBD2TUNE_CMD_JOURNAL_ADD,
		.timestamp_ns = ktime_get_ns(),
	};

	jbd2tune_nl_registry_changed();
	jbd2tune_nl_notify(jt, &ev);
}

/**
 * jbd2tune_events_remove() - the journal is going away: send JOURNAL_REMOVE
 * @jt: the journal, already off the registry
 *
 * Called from jbd2tune_journal_unregister(), when no handle can start on
 * the journal any more; may sleep.  Waits for the event work items, so
 * none runs after the journal is freed, then sends the journal's last
 * record.
 */
void jbd2tune_events_remove(struct jbd2tune_journal *jt)
{
	struct jbd2tune_events *evs = &jt->events;
	struct jbd2tune_event ev = {
		.cmd = JBD2TUNE_CMD_JOURNAL_REMOVE,
		.timestamp_ns = ktime_get_ns(),
	};

	jbd2tune_nl_registry_changed();
	spin_lock(&evs->stall_lock);
	set_bit(JBD2TUNE_EV_STOPPED, &evs->flags);
	spin_unlock(&evs->stall_lock);
	cancel_work_sync(&evs->space_work);
	cancel_delayed_work_sync(&evs->stall_work);
	jbd2tune_nl_notify(jt, &ev);
}

/**
 * jbd2tune_events_space() - check free log space against the SPACE_LOW line
 * @jt: the journal a handle is being started on
 * @free_blocks: jbd2_log_space_left(), as just computed by the caller
 * @watermark_blocks: the reclaim watermark in blocks, 0 when reclaim is off
 *
 * Called from jbd2tune_handle_start() with j_state_lock held for reading,
 * on every handle start: costs a comparison and a test_bit() unless the
 * free space just crossed the line.  Queues the SPACE_LOW work on a
 * downward crossing (at most one per JBD2TUNE_STALL_INTERVAL_MS), re-arms
 * once free space is 1/16 of the journal above the line.
 */
void jbd2tune_events_space(struct jbd2tune_journal *jt, u64 free_blocks,
			   u64 watermark_blocks)
{
	struct jbd2tune_events *evs = &jt->events;
	journal_t *journal = &jt->journal;
	u64 line = jbd2tune_space_line(journal, watermark_blocks);
	u64 now;

	if (test_bit(JBD2TUNE_EV_SPACE_LOW, &evs->flags)) {
		if (free_blocks >= line + (journal->j_total_len >>
				    JBD2TUNE_SPACE_LOW_HYSTERESIS_SHIFT))
			clear_bit(JBD2TUNE_EV_SPACE_LOW, &evs->flags);
		return;
	}
	if (free_blocks >= line)
		return;
	if (test_and_set_bit(JBD2TUNE_EV_SPACE_LOW, &evs->flags))
		return;
	/* a crossing is rare: take the lock that orders us with STOPPED */
	spin_lock(&evs->stall_lock);
	now = ktime_get_ns();
	if (!test_bit(JBD2TUNE_EV_STOPPED, &evs->flags) &&
	    now - READ_ONCE(evs->space_low_ns) >=
	    JBD2TUNE_STALL_INTERVAL_MS * NSEC_PER_MSEC) {
		WRITE_ONCE(evs->space_low_ns, now);
		queue_work(system_wq, &evs->space_work);
	}
	spin_unlock(&evs->stall_lock);
}

/**
 * jbd2tune_events_wait() - a task finished a wait: maybe a STALL
 * @journal: the journal waited on
 * @kind: which wait
 * @us: how long, microseconds
 *
 * Called from jbd2tune_wait_done(), possibly with j_state_lock held for
 * writing: never sends, never sleeps.  Shadow and space waits longer than
 * JBD2TUNE_STALL_THRESHOLD_US are added to the pending stall under
 * stall_lock, and the stall work is queued, delayed to keep
 * JBD2TUNE_STALL_INTERVAL_MS after the previous message, unless it is
 * queued already.
 */
void jbd2tune_events_wait(journal_t *journal, enum jbd2tune_wait_kind kind,
			  u64 us)
{
	struct jbd2tune_events *evs = &jbd2tune_of(journal)->events;
	int bit;

	if (us <= JBD2TUNE_STALL_THRESHOLD_US)
		return;
	if (kind == JBD2TUNE_WAIT_SHADOW)
		bit = JBD2TUNE_STALL_SHADOW;
	else if (kind == JBD2TUNE_WAIT_SPACE)
		bit = JBD2TUNE_STALL_SPACE;
	else
		return;

	/*
	 * Queued under the lock, so jbd2tune_events_remove(), which sets
	 * STOPPED under it too, cancels any work a wait has queued.
	 */
	spin_lock(&evs->stall_lock);
	evs->stall_kinds |= bit;
	evs->stall_max_us = max(evs->stall_max_us, us);
	if (!evs->stall_queued &&
	    !test_bit(JBD2TUNE_EV_STOPPED, &evs->flags)) {
		evs->stall_queued = true;
		queue_delayed_work(system_wq, &evs->stall_work,
				   jbd2tune_stall_delay(evs, ktime_get_ns()));
	}
	spin_unlock(&evs->stall_lock);
}
