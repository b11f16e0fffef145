/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Policy file loader: /etc/jbd2-tuned.conf then FILE.d/ *.conf drop-ins in
 * name order, parsed with inih.  Merging sections into one journal's policy
 * (jt_policy_resolve) is pure.
 */
#ifndef JT_CONF_H
#define JT_CONF_H

#include <stdbool.h>
#include <stddef.h>

enum jt_mode { JT_MODE_OFF, JT_MODE_ON, JT_MODE_AUTO };

/* "off", "on", "auto". */
const char *jt_mode_name(enum jt_mode mode);
/* Parse "on"/"off"/"auto"; returns 0 or -EINVAL. */
int jt_mode_parse(const char *s, enum jt_mode *out);

/* [agent] */
struct jt_agent_policy {
	unsigned int interval_ms;	/* 100..60000 */
	unsigned int window_s;		/* 1..3600 */
	bool restore_on_exit;
	char *metrics_file;		/* NULL or absolute path */
};

/* Keys of [defaults], [journal X] and [mount X]; bit n of a set mask. */
enum jt_key {
	JT_KEY_FORCE_COPY,
	JT_KEY_FORCE_COPY_ON_P99_MS,
	JT_KEY_FORCE_COPY_MIN_WAITS,
	JT_KEY_FORCE_COPY_HOLD_S,
	JT_KEY_RECLAIM,
	JT_KEY_RECLAIM_WATERMARK_PCT,
	JT_KEY_RECLAIM_MIN_PCT,
	JT_KEY_RECLAIM_MAX_PCT,
	JT_KEY_OUTCOME_MARGIN_PCT,
	JT_KEY_OUTCOME_MIN_WAITS,
	JT_KEY_OUTCOME_BACKOFF_S,
	JT_KEY_ADVICE_WINDOWS,
	JT_KEYS
};

struct jt_journal_policy {
	enum jt_mode force_copy;
	unsigned int force_copy_on_p99_ms;	/* 1..60000 */
	unsigned int force_copy_min_waits;	/* 1..1000000 */
	unsigned int force_copy_hold_s;		/* 1..3600 */
	enum jt_mode reclaim;
	unsigned int reclaim_watermark_pct;	/* 1..90 */
	unsigned int reclaim_min_pct;		/* 1..90 */
	unsigned int reclaim_max_pct;		/* 1..90, >= min */
	/* outcome check of the agent's own changes (agent-policy.md) */
	unsigned int outcome_margin_pct;	/* 1..1000: commit waits this much worse reverts */
	unsigned int outcome_min_waits;		/* 1..1000000: commit waits per window to judge */
	unsigned int outcome_backoff_s;		/* 1..3600: first wait before retrying a revert */
	/* journal-size advice (agent-policy.md, "Journal-size advice") */
	unsigned int advice_windows;		/* 0..1000: windows of space waits at the top; 0 = off */
};

enum jt_section_kind { JT_SECTION_JOURNAL, JT_SECTION_MOUNT };

/* One [journal PATTERN] or [mount PATH] section (repeated sections stay separate). */
struct jt_section {
	enum jt_section_kind kind;
	char *pattern;			/* fnmatch(3) glob or absolute path */
	unsigned int set_mask;		/* 1 << enum jt_key for keys given */
	struct jt_journal_policy values;
	char *file;
	unsigned int line;		/* of the [section] header */
};

struct jt_policy {
	struct jt_agent_policy agent;
	struct jt_journal_policy defaults;
	struct jt_section *sections;	/* in file order, drop-ins last */
	size_t n_sections;
	char **files;			/* files read, in order */
	size_t n_files;
};

/* Fill @p with the built-in defaults (SPEC §2), no sections, no files. */
void jt_policy_init_defaults(struct jt_policy *p);

/*
 * jt_policy_load - read @main_file, then every "*.conf" in @dropin_dir (may
 * be NULL; a missing directory is fine) in strcmp order, later values
 * overriding earlier ones.
 * On success returns 0 and fills @out (free with jt_policy_free).
 * On error returns a negative errno, leaves @out untouched and writes
 * "file:line: key: why" (or "file: why" when no line applies) into @err.
 */
int jt_policy_load(const char *main_file, const char *dropin_dir,
		   struct jt_policy *out, char *err, size_t errlen);

void jt_policy_free(struct jt_policy *p);

/*
 * jt_policy_resolve - the policy of one journal: [defaults], then every
 * section that matches, in file order (later wins key by key).  [journal P]
 * matches when fnmatch(P, @journal) does; [mount P] when P equals one of
 * @mounts (NULL-terminated list, may be NULL).  Afterwards reclaim_max_pct is
 * raised to reclaim_min_pct if needed.
 */
void jt_policy_resolve(const struct jt_policy *p, const char *journal,
		       const char *const *mounts, struct jt_journal_policy *out);

#endif
