/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Journal-size advice.  When foreground waits for log space persist while
 * the reclaim watermark is at the highest the agent may set, no knob helps
 * any more: the journal is too small for the load.  The advice says once
 * what size would hold the load's busiest window and how to get there.  It
 * changes nothing (read-only).  Pure like policy.c: samples in, an event
 * and its text out; what the file system is (block size, free space,
 * device, mount point) comes through a callback, asked only when an
 * advice is due.  The rule and the reason for every number:
 * Documentation/agent-policy.md, "Journal-size advice".
 */
#ifndef JT_ADVICE_H
#define JT_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "policy.h"
#include "sample.h"

/* Longest advice text, with its NUL. */
#define JT_ADVICE_MAX			1024
/* A standing advice is withdrawn after this many windows without space waits. */
#define JT_ADVICE_QUIET_WINDOWS		10
/* The largest journal e2fsprogs makes (its JBD2_MAX_JOURNAL_BLOCKS), blocks. */
#define JT_JOURNAL_MAX_BLOCKS		10240000ULL

/*
 * What the adapters know about the file system of a journal.  Every field
 * may be unknown (0 or NULL): a journal whose file system was not found in
 * the mount table gets an advice in blocks and without commands.
 */
struct jt_fs_info {
	uint64_t block_size;		/* bytes (statvfs f_frsize); 0 = unknown */
	uint64_t free_blocks;		/* free now (statvfs f_bfree), blocks; known with block_size */
	const char *mount_point;	/* where it is mounted; NULL = not found */
	const char *device;		/* block device to name in commands, e.g. "/dev/vdb" */
	const char *fstype;		/* e.g. "ext4"; NULL = unknown */
};

/*
 * Fill @out for the journal the callback was given for; fields left 0/NULL
 * are unknown.  Returns 0 or a negative errno (then nothing is known).
 */
typedef int (*jt_fs_info_fn)(void *userdata, struct jt_fs_info *out);

/* Per-journal state of the advice; zeroed by jt_advice_init(). */
struct jt_advice_state {
	bool started;			/* a window is open */
	uint64_t win_start_us;		/* sample time the window opened at */
	uint64_t win_logged_blocks;	/* logged_blocks then */
	uint64_t win_space_waits;	/* space waits then */
	uint64_t win_space_hist[JT_HIST_BUCKETS];
	bool win_at_top;		/* watermark at the top at every sample since */
	int64_t tried_top_pct;		/* auto: the top that failed its trial (not in force), else 0 */
	unsigned int streak;		/* windows in a row with space waits, at the top */
	uint64_t streak_start_us;	/* start of the streak's first window */
	uint64_t streak_space_waits;	/* space waits then */
	uint64_t streak_space_hist[JT_HIST_BUCKETS];
	uint64_t peak_blocks;		/* most blocks one window of the streak logged */
	unsigned int quiet;		/* windows in a row without space waits */
	bool standing;			/* an advice stands */
	uint64_t advised_blocks;	/* its size, journal blocks; UINT64_MAX = too large to make */
	uint64_t advised_bytes;		/* its size in bytes; 0 when too large or block size unknown */
	uint64_t advised_log_blocks;	/* size of the journal it was given for, blocks */
};

enum jt_advice_event {
	JT_ADVICE_NONE,		/* nothing to say */
	JT_ADVICE_NEW,		/* a new (or larger) advice: log it once, show it */
	JT_ADVICE_WITHDRAWN,	/* the advice no longer stands: log why once, show "" */
};

/* The size arithmetic of one advice (jt_advice_size()). */
struct jt_advice_size {
	uint64_t needed_blocks;	/* peak × log / (log − threshold), rounded up */
	uint64_t size_blocks;	/* advised journal, blocks */
	uint64_t size_mib;	/* the same in MiB (a power of two); 0 when block size unknown */
	uint64_t limit_blocks;	/* largest journal e2fsprogs would make here, blocks */
	bool too_large;		/* size_blocks > limit_blocks */
};

void jt_advice_init(struct jt_advice_state *a);

/*
 * jt_advice_size - the journal that would hold @peak_blocks logged in one
 * window above its foreground threshold.  @log_blocks, @threshold_blocks:
 * the journal's size and max_transaction_blocks (threshold < log).
 * @fs: block size and free space, either may be 0 (unknown).
 * needed = ceil(peak × log / (log − threshold)); the size is the next power
 * of two of MiB at or above max(needed, 2 × log) blocks (in blocks when the
 * block size is unknown); the limit is JT_JOURNAL_MAX_BLOCKS and, with
 * free space known, half of (free + log): tune2fs makes the new journal
 * after removing this one and refuses one above half the free blocks.
 * Returns 0, or -EINVAL when threshold >= log (nothing is filled in).
 */
int jt_advice_size(uint64_t peak_blocks, uint64_t log_blocks, uint64_t threshold_blocks,
		   const struct jt_fs_info *fs, struct jt_advice_size *out);

/*
 * jt_advice_at_top - whether the watermark in force (@s's reading) is the
 * highest the agent may set for the journal: the kernel's
 * reclaim_watermark_max_pct in any mode, or, when @jp has reclaim auto and
 * the agent still manages the knob (@st), the top of auto's range
 * (jt_reclaim_range()), or, in auto, when trials of every step up to that
 * top removed no wait (knob state top_only: the watermark is back off).
 * Otherwise never with the watermark at 0 (off), and never while a trial
 * of the watermark runs (@st->trial): its verdict says whether the top
 * helps.
 */
bool jt_advice_at_top(const struct jt_journal_policy *jp, const struct jt_journal_state *st,
		      const struct jt_sample *s);

/*
 * jt_advice_step - feed one sample of journal @journal (after
 * jt_policy_step() on it, with the same @t, @jp, @st); returns what to say.
 * Windows of t->window_us follow one another from the first sample.  A
 * window counts when it had space waits and the watermark was at the top
 * (jt_advice_at_top()) at every sample of it; after jp->advice_windows
 * such windows in a row the advice is made, from the most blocks one of
 * them logged, scaled to window_us (the busiest window), and it is
 * JT_ADVICE_NEW when none stands or it names a larger journal than the
 * one standing.  JT_ADVICE_WITHDRAWN after JT_ADVICE_QUIET_WINDOWS windows
 * without space waits, when advice_windows is 0 or the module stops
 * reporting logged_blocks, or when the journal changed size.  Counters
 * that go backwards restart the windows.
 * @fs_info: called (with @userdata) only when an advice is made; may be
 * NULL.  @text/@len: the advice, or why it was withdrawn, without the
 * journal's name; filled for NEW and WITHDRAWN only.
 */
enum jt_advice_event jt_advice_step(const struct jt_timing *t, const struct jt_journal_policy *jp,
				    const struct jt_journal_state *st, struct jt_advice_state *a,
				    const struct jt_sample *s, jt_fs_info_fn fs_info,
				    void *userdata, char *text, size_t len);

#endif
