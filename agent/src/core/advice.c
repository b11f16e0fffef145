// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Journal-size advice of jbd2-tuned (advice.h).  Windows of window_s follow
 * one another; a window counts when handles waited for log space in it
 * while the reclaim watermark stayed at the top of what the agent may set.
 * After advice_windows such windows in a row, the most blocks one of them
 * logged is the load's busiest window, and the advice names the journal
 * that holds that much above its foreground threshold.  The reason for
 * every number is in Documentation/agent-policy.md, "Journal-size advice".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "advice.h"
#include "strbuf.h"
#include "hist.h"

#define MIB	(1024ULL * 1024ULL)

void jt_advice_init(struct jt_advice_state *a)
{
	memset(a, 0, sizeof(*a));
}

/* Smallest power of two >= @v (1 for 0). */
static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;

	while (p < v && p <= UINT64_MAX / 2)
		p <<= 1;
	return p;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

int jt_advice_size(uint64_t peak_blocks, uint64_t log_blocks, uint64_t threshold_blocks,
		   const struct jt_fs_info *fs, struct jt_advice_size *out)
{
	uint64_t bs = fs ? fs->block_size : 0, least, half;
	unsigned __int128 scaled;

	if (log_blocks == 0 || threshold_blocks >= log_blocks)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	/* the peak must fit between the start of the log and the threshold */
	scaled = (unsigned __int128)peak_blocks * log_blocks;
	scaled = (scaled + (log_blocks - threshold_blocks) - 1) / (log_blocks - threshold_blocks);
	out->needed_blocks = scaled > UINT64_MAX / 4 ? UINT64_MAX / 4 : (uint64_t)scaled;
	least = out->needed_blocks > 2 * log_blocks ? out->needed_blocks : 2 * log_blocks;
	if (bs) {
		/* tune2fs -J size= takes MiB */
		out->size_mib = pow2_at_least(div_up(least > UINT64_MAX / bs ? UINT64_MAX / MIB : least * bs, MIB));
		out->size_blocks = div_up(out->size_mib * MIB, bs);
	} else {
		out->size_blocks = pow2_at_least(least);
	}
	out->limit_blocks = JT_JOURNAL_MAX_BLOCKS;
	if (bs) {
		/* tune2fs makes it after removing this journal, within half the free blocks */
		half = (fs->free_blocks + log_blocks) / 2;
		if (half < out->limit_blocks)
			out->limit_blocks = half;
	}
	out->too_large = out->size_blocks > out->limit_blocks;
	return 0;
}

bool jt_advice_at_top(const struct jt_journal_policy *jp, const struct jt_journal_state *st,
		      const struct jt_sample *s)
{
	int64_t wm = s->knob[JT_KNOB_RECLAIM], min, max;

	/*
	 * a trial of the watermark is still finding out whether its value
	 * helps: its on-blocks at the top are not the top tried (agent-advice
	 * on 6.1, 2026-12-06: on-blocks stretched to 20 s by 8-s waits gave
	 * the advice at 105 s, in the trial's third pair, before its verdict)
	 */
	if (st->trial.active && st->trial.knob == JT_KNOB_RECLAIM)
		return false;
	/* auto tried every step up to the top, and none removed the waits */
	if (jp->reclaim == JT_MODE_AUTO && st->knob[JT_KNOB_RECLAIM].managed &&
	    st->knob[JT_KNOB_RECLAIM].top_only && jt_reclaim_range(jp, s, &min, &max))
		return true;
	if (wm <= 0)
		return false;
	if (s->has_reclaim_limits && s->reclaim_watermark_max_pct &&
	    wm == (int64_t)s->reclaim_watermark_max_pct)
		return true;
	return jp->reclaim == JT_MODE_AUTO && st->knob[JT_KNOB_RECLAIM].managed &&
	       jt_reclaim_range(jp, s, &min, &max) && wm == max;
}


/*
 * @in as one word for a POSIX shell into @out: as is when it is plain, else
 * in single quotes.  Returns false when it does not fit in @len.
 */
static bool shell_word(const char *in, char *out, size_t len)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789/._-+,:=@%";
	size_t at = 0;

	if (*in && strspn(in, plain) == strlen(in))
		return (size_t)snprintf(out, len, "%s", in) < len;
	at = jt_append(out, len, at, "'");
	for (; *in; in++)
		at = *in == '\'' ? jt_append(out, len, at, "'\\''") : jt_append(out, len, at, "%c", *in);
	at = jt_append(out, len, at, "'");
	return at < len;
}

static bool is_ext34(const char *fstype)
{
	return fstype && (strcmp(fstype, "ext4") == 0 || strcmp(fstype, "ext3") == 0);
}

/*
 * The advice text (agent-policy.md, "Journal-size advice", has examples).
 * With @commands false, or when a command would not fit whole, the device
 * and mount point are left out rather than cut.
 */
static void compose(const struct jt_timing *t, const struct jt_advice_state *a,
		    const struct jt_sample *s, const struct jt_fs_info *fs,
		    const struct jt_advice_size *sz, bool commands, char *text, size_t len)
{
	const struct jt_wait_counters *sp = &s->wait[JT_WAIT_SPACE];
	uint64_t diff[JT_HIST_BUCKETS], bs = fs->block_size;
	double p99 = 0.0;
	char dev[512], mnt[512];
	size_t at;

	if (jt_hist_diff(sp->hist, a->streak_space_hist, diff))
		p99 = jt_hist_percentile_us(diff, JT_PERCENTILE, sp->wait_max_us);
	if (a->tried_top_pct)
		at = jt_append(text, len, 0,
			    "space waits persist, and a trial of the reclaim watermark at its maximum (%lld %%) did not remove them",
			    (long long)a->tried_top_pct);
	else
		at = jt_append(text, len, 0,
			    "space waits persist with the reclaim watermark at its maximum (%lld %%)",
			    (long long)s->knob[JT_KNOB_RECLAIM]);
	at = jt_append(text, len, at,
		    ": %llu waits in %.0f s, p99 %.1f ms; the busiest %.0f s logged %llu blocks, and this %llu-block journal has %llu above its foreground threshold; ",
		    (unsigned long long)(sp->waits - a->streak_space_waits),
		    (double)(s->time_us - a->streak_start_us) / 1e6, p99 / 1000.0,
		    (double)t->window_us / 1e6, (unsigned long long)a->peak_blocks,
		    (unsigned long long)s->log_blocks,
		    (unsigned long long)(s->log_blocks - s->max_transaction_blocks));
	if (sz->too_large) {
		if (bs)
			at = jt_append(text, len, at, "a journal that holds them would be %llu MiB, ",
				    (unsigned long long)sz->size_mib);
		else
			at = jt_append(text, len, at, "a journal that holds them would be %llu blocks, ",
				    (unsigned long long)sz->size_blocks);
		if (sz->limit_blocks < JT_JOURNAL_MAX_BLOCKS)
			jt_append(text, len, at,
			       "more than the %llu MiB tune2fs makes here (half the free space once this journal is gone): only a larger file system, a faster device or fewer metadata changes per second can help",
			       (unsigned long long)(sz->limit_blocks * bs / MIB));
		else
			jt_append(text, len, at,
			       "more than the %llu blocks e2fsprogs makes at most: only a faster device or fewer metadata changes per second can help",
			       JT_JOURNAL_MAX_BLOCKS);
		return;
	}
	if (!bs) {
		jt_append(text, len, at,
		       "a journal of %llu blocks would hold them; no mounted file system was found for this journal (an external journal, or not mounted), so neither its block size nor the commands are known: an internal journal is replaced on the unmounted file system with tune2fs -O ^has_journal, then tune2fs -J size=MiB; an external one needs a new journal device (mke2fs -O journal_dev)",
		       (unsigned long long)sz->size_blocks);
		return;
	}
	at = jt_append(text, len, at, "a journal of %llu MiB would hold them",
		    (unsigned long long)sz->size_mib);
	if (fs->fstype && !is_ext34(fs->fstype)) {
		jt_append(text, len, at, " (the file system is %s: see its own tools)", fs->fstype);
		return;
	}
	if (!commands || !fs->mount_point || !fs->device || !is_ext34(fs->fstype) ||
	    !shell_word(fs->device, dev, sizeof(dev)) ||
	    !shell_word(fs->mount_point, mnt, sizeof(mnt))) {
		jt_append(text, len, at,
		       "; on the unmounted file system: tune2fs -O ^has_journal, then tune2fs -J size=%llu",
		       (unsigned long long)sz->size_mib);
		return;
	}
	if (strcmp(fs->mount_point, "/") == 0)
		at = jt_append(text, len, at, ": from a rescue system (it is the root file system), ");
	else
		at = jt_append(text, len, at, ": unmount %s, then ", mnt);
	at = jt_append(text, len, at,
		    "e2fsck -f %s && tune2fs -O ^has_journal %s && tune2fs -J size=%llu %s",
		    dev, dev, (unsigned long long)sz->size_mib, dev);
	if (strcmp(fs->mount_point, "/") != 0)
		jt_append(text, len, at, ", and mount it again");
}

/* The streak is long enough: a new advice when none stands or it grew. */
static enum jt_advice_event make_advice(const struct jt_timing *t, struct jt_advice_state *a,
					const struct jt_sample *s, jt_fs_info_fn fs_info,
					void *userdata, char *text, size_t len)
{
	struct jt_fs_info fs;
	struct jt_advice_size sz;
	uint64_t blocks;

	memset(&fs, 0, sizeof(fs));
	if (fs_info && fs_info(userdata, &fs) < 0)
		memset(&fs, 0, sizeof(fs));
	if (jt_advice_size(a->peak_blocks, s->log_blocks, s->max_transaction_blocks, &fs, &sz) < 0)
		return JT_ADVICE_NONE;
	blocks = sz.too_large ? UINT64_MAX : sz.size_blocks;
	if (a->standing && blocks <= a->advised_blocks)
		return JT_ADVICE_NONE;		/* only a larger journal is news */
	compose(t, a, s, &fs, &sz, true, text, len);
	if (strlen(text) >= len - 1)	/* cut: a command may have lost its end */
		compose(t, a, s, &fs, &sz, false, text, len);
	a->standing = true;
	a->advised_blocks = blocks;
	a->advised_bytes = !sz.too_large && fs.block_size ? sz.size_mib * MIB : 0;
	a->advised_log_blocks = s->log_blocks;
	return JT_ADVICE_NEW;
}

static void open_window(struct jt_advice_state *a, const struct jt_sample *s)
{
	a->started = true;
	a->win_start_us = s->time_us;
	a->win_logged_blocks = s->logged_blocks;
	a->win_space_waits = s->wait[JT_WAIT_SPACE].waits;
	memcpy(a->win_space_hist, s->wait[JT_WAIT_SPACE].hist, sizeof(a->win_space_hist));
	a->win_at_top = true;
}

/* Withdraw a standing advice (if any) and start over from @s. */
static enum jt_advice_event withdraw(struct jt_advice_state *a, const struct jt_sample *s,
				     char *text, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static enum jt_advice_event withdraw(struct jt_advice_state *a, const struct jt_sample *s,
				     char *text, size_t len, const char *fmt, ...)
{
	bool was = a->standing;
	va_list ap;

	jt_advice_init(a);
	if (s)
		open_window(a, s);
	if (!was)
		return JT_ADVICE_NONE;
	va_start(ap, fmt);
	vsnprintf(text, len, fmt, ap);
	va_end(ap);
	return JT_ADVICE_WITHDRAWN;
}

enum jt_advice_event jt_advice_step(const struct jt_timing *t, const struct jt_journal_policy *jp,
				    const struct jt_journal_state *st, struct jt_advice_state *a,
				    const struct jt_sample *s, jt_fs_info_fn fs_info,
				    void *userdata, char *text, size_t len)
{
	const struct jt_wait_counters *sp = &s->wait[JT_WAIT_SPACE];
	enum jt_advice_event ev = JT_ADVICE_NONE;
	uint64_t now = s->time_us, waits, d[JT_HIST_BUCKETS];

	if (!jp->advice_windows)
		return withdraw(a, NULL, text, len,
				"journal-size advice withdrawn: advice_windows = 0 in the policy");
	if (!s->has_logged_blocks)
		return withdraw(a, NULL, text, len,
				"journal-size advice withdrawn: the module does not report logged_blocks");
	if (a->standing && s->log_blocks != a->advised_log_blocks)
		return withdraw(a, s, text, len,
				"journal-size advice withdrawn: the journal is now %llu blocks (was %llu)",
				(unsigned long long)s->log_blocks,
				(unsigned long long)a->advised_log_blocks);
	if (a->started && (s->logged_blocks < a->win_logged_blocks ||
			   sp->waits < a->win_space_waits ||
			   !jt_hist_diff(sp->hist, a->win_space_hist, d) ||
			   now < a->win_start_us)) {
		/* counters went backwards (journal set up again): start over, keep what stands */
		a->streak = 0;
		a->quiet = 0;
		a->peak_blocks = 0;
		a->started = false;
	}
	if (!a->started) {
		open_window(a, s);
		return JT_ADVICE_NONE;
	}
	a->win_at_top = a->win_at_top && jt_advice_at_top(jp, st, s);
	{
		int64_t min, max;

		a->tried_top_pct = 0;
		if (jp->reclaim == JT_MODE_AUTO && st->knob[JT_KNOB_RECLAIM].top_only &&
		    jt_reclaim_range(jp, s, &min, &max) && s->knob[JT_KNOB_RECLAIM] != max)
			a->tried_top_pct = max;
	}
	if (now - a->win_start_us < t->window_us)
		return JT_ADVICE_NONE;

	/* a window closed at this sample */
	waits = sp->waits - a->win_space_waits;
	if (waits && a->win_at_top) {
		/* its logged blocks, scaled to window_s: a window ends at the first sample after it */
		uint64_t blocks = (uint64_t)((double)(s->logged_blocks - a->win_logged_blocks) *
					     (double)t->window_us / (double)(now - a->win_start_us));

		if (!a->streak) {
			a->streak_start_us = a->win_start_us;
			a->streak_space_waits = a->win_space_waits;
			memcpy(a->streak_space_hist, a->win_space_hist, sizeof(a->streak_space_hist));
			a->peak_blocks = 0;
		}
		a->streak++;
		if (blocks > a->peak_blocks)
			a->peak_blocks = blocks;
	} else {
		a->streak = 0;
	}
	a->quiet = waits ? 0 : a->quiet + 1;
	if (a->streak >= jp->advice_windows) {
		ev = make_advice(t, a, s, fs_info, userdata, text, len);
	} else if (a->standing && a->quiet >= JT_ADVICE_QUIET_WINDOWS) {
		snprintf(text, len,
			 "journal-size advice withdrawn: no foreground space waits for %.0f s (%u windows)",
			 (double)a->quiet * (double)t->window_us / 1e6, a->quiet);
		a->standing = false;
		a->advised_blocks = 0;
		a->advised_bytes = 0;
		a->advised_log_blocks = 0;
		ev = JT_ADVICE_WITHDRAWN;
	}
	open_window(a, s);
	return ev;
}
