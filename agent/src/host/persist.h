/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What jbd2-tuned learned about a journal, kept across restarts, SIGKILL
 * and reloads in one small text file per journal under the state
 * directory (/run/jbd2-tuned/state/ as shipped: gone at reboot, kept by
 * RuntimeDirectoryPreserve=yes across service restarts).  Formatting and
 * parsing are pure; jt_persist_read/write are the only I/O.
 *
 * The file, "<journal>.state", one "key value" per line:
 *   jbd2-tuned-state 1
 *   identity vdb-8 254:16 5f1c...        (name, device number, ext4 UUID)
 *   saved_realtime_us N
 *   force_copy.found 0                   (and the other per-knob keys of
 *   force_copy.managed 1                  struct jt_persist_knob, same names)
 *   ...
 * Times are CLOCK_REALTIME microseconds (deadlines survive the process;
 * the monotonic clock's origin does not survive a reboot, and /run does
 * not either).
 */
#ifndef JT_PERSIST_H
#define JT_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"
#include "sample.h"

#define JT_PERSIST_IDENTITY_MAX	160
#define JT_PERSIST_TEXT_MAX	4096

struct jt_persist_knob {
	bool seen;			/* nothing below is meaningful without it */
	bool managed;			/* false: an administrator took it over */
	bool changed;			/* the agent wrote it at least once */
	int64_t found;			/* value before any agent touched it */
	int64_t expected;		/* value the agent last wrote or found */
	bool kept;			/* a trial kept kept_to over kept_from */
	int64_t kept_from, kept_to;
	uint64_t kept_realtime_us;	/* kept or last re-checked */
	uint64_t backoff_us;		/* next back-off length, 0 = the policy's */
	int64_t blocked_from;		/* a failed trial holds this direction back ... */
	bool blocked_up;
	uint64_t blocked_until_realtime_us;	/* ... until then (0 = nothing held) */
	int64_t next_try;		/* stepped knob: next value to try, 0 = none */
	bool top_only;
	bool has_override;		/* SetMode() of this knob of this journal */
	enum jt_mode override;
	unsigned long trials, keeps, harms, fails;
	char last_verdict[24];
};

struct jt_persist {
	char identity[JT_PERSIST_IDENTITY_MAX];
	uint64_t saved_realtime_us;
	struct jt_persist_knob knob[JT_KNOBS];
	/* a trial that was running: its knob is to go back to trial_from */
	bool trial_active;
	enum jt_knob trial_knob;
	int64_t trial_from, trial_to;
};

/* jt_persist_format - @p as the file's text into @buf (NUL-terminated); returns its length. */
size_t jt_persist_format(const struct jt_persist *p, char *buf, size_t len);

/*
 * jt_persist_parse - the file's text into @out.  Unknown keys are skipped
 * (a newer agent's file); a missing or wrong first line, a malformed
 * number or a line without a value is an error.  Returns 0, or -EINVAL
 * with the line number in *@line.
 */
int jt_persist_parse(const char *text, struct jt_persist *out, unsigned int *line);

/*
 * jt_persist_read - read @dir/@name.state into @out.  Returns 0, -ENOENT
 * (no file), -EINVAL (bad file; *@line says where) or another -errno.
 */
int jt_persist_read(const char *dir, const char *name, struct jt_persist *out,
		    unsigned int *line);

/*
 * jt_persist_write - write @p as @dir/@name.state atomically (a temporary
 * file renamed over it), creating @dir and its parents (mode 0755) if
 * needed.  Returns 0
 * or -errno.
 */
int jt_persist_write(const char *dir, const char *name, const struct jt_persist *p);

/* jt_persist_remove - remove @dir/@name.state; 0 or -errno (-ENOENT too). */
int jt_persist_remove(const char *dir, const char *name);

struct jt_journal_state;

/*
 * jt_persist_from_state - what @st learned, with its monotonic deadlines
 * (@mono_now, us) turned into wall-clock ones (@real_now, us).  Leaves
 * @p's identity and overrides alone.
 */
void jt_persist_from_state(const struct jt_journal_state *st, uint64_t mono_now,
			   uint64_t real_now, struct jt_persist *p);

/*
 * jt_persist_to_state - put what @p holds into a freshly initialised @st:
 * deadlines back onto the monotonic clock, every knob seen marked to take
 * its next reading as expected (a restart is no administrator's write),
 * and a trial that was running marked to be undone at the next sample.
 */
void jt_persist_to_state(const struct jt_persist *p, uint64_t mono_now, uint64_t real_now,
			 struct jt_journal_state *st);

#endif
