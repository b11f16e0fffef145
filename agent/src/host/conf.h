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

/*
 * Largest lock_delay_max_ms the module accepts (kmod/src/jbd2tune.h,
 * JBD2TUNE_LOCK_DELAY_MS_MAX; the uapi header's "0 or 1..10000").
 */
#define JT_LOCK_DELAY_MS_MAX	10000

/* "off", "on", "auto". */
const char *jt_mode_name(enum jt_mode mode);
/* Parse "on"/"off"/"auto"; returns 0 or -EINVAL. */
int jt_mode_parse(const char *s, enum jt_mode *out);

/* [agent] */
struct jt_agent_policy {
	unsigned int interval_ms;	/* 100..60000 */
	unsigned int window_s;		/* 1..3600 */
	bool restore_on_exit;
	bool dry_run;			/* decide and log, write no knob (as --dry-run) */
	char *metrics_file;		/* NULL or absolute path */
	bool metrics_file_set;		/* the key was given (empty: no file); else the default */
};

/*
 * Where the metrics file goes when no policy names one: node_exporter's
 * textfile directory as Debian's prometheus-node-exporter has it (its
 * --collector.textfile.directory default, 1.5.0-1 in bookworm), written
 * only while that directory exists.
 */
#define JT_METRICS_DIR_DEFAULT "/var/lib/prometheus/node-exporter"
#define JT_METRICS_FILE_NAME "jbd2-tuned.prom"

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
	JT_KEY_STALL_BUDGET_MS_PER_S,
	JT_KEY_STALL_BOUND_MS,
	JT_KEY_STALL_WAIT_MIN_MS,
	JT_KEY_TRIAL_BLOCK_S,
	JT_KEY_TRIAL_MIN_PAIRS,
	JT_KEY_TRIAL_MAX_PAIRS,
	JT_KEY_RECHECK_S,
	JT_KEY_LOCK_DELAY,
	JT_KEY_LOCK_DELAY_MS,
	JT_KEYS
};

struct jt_journal_policy {
	enum jt_mode force_copy;
	/* obsolete since the trial engine (issue 21): parsed, range-checked, unused */
	unsigned int force_copy_on_p99_ms;	/* 1..60000 */
	unsigned int force_copy_min_waits;	/* 1..1000000 */
	unsigned int force_copy_hold_s;		/* 1..3600 */
	enum jt_mode reclaim;
	unsigned int reclaim_watermark_pct;	/* 1..90 */
	unsigned int reclaim_min_pct;		/* 1..90 */
	unsigned int reclaim_max_pct;		/* 1..90, >= min */
	/* outcome check of the agent's own changes (agent-policy.md) */
	unsigned int outcome_margin_pct;	/* 1..1000: per-wait commit latency allowed to grow, % */
	unsigned int outcome_min_waits;		/* obsolete (no "too few to judge" any more), unused */
	unsigned int outcome_backoff_s;		/* 1..3600: first wait before retrying a failed trial */
	/* triggers (agent-policy.md, "Triggers") */
	unsigned int stall_budget_ms_per_s;	/* 1..1000: relief-wait time per second that triggers */
	unsigned int stall_bound_ms;		/* 1..60000: one wait this long triggers */
	unsigned int stall_wait_min_ms;		/* 0..60000: shadow/locked waits shorter do not count */
	/* interleaved trials (agent-policy.md, "Trials") */
	unsigned int trial_block_s;		/* 1..600: length of one on or off block */
	unsigned int trial_min_pairs;		/* 2..100: pairs before a keep verdict */
	unsigned int trial_max_pairs;		/* 2..100, >= min: inconclusive after this many */
	unsigned int recheck_s;			/* 10..86400: a kept change is re-checked this often */
	/* journal-size advice (agent-policy.md, "Journal-size advice") */
	unsigned int advice_windows;		/* 0..1000: windows of space waits at the top; 0 = off */
	/* lock later (agent-policy.md, "Lock delay") */
	enum jt_mode lock_delay;
	unsigned int lock_delay_ms;		/* 1..JT_LOCK_DELAY_MS_MAX: what "on" writes */
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

/*
 * jt_section_matches - whether section @s applies to @journal mounted on
 * @mounts (NULL-terminated, may be NULL): the test jt_policy_resolve makes.
 */
bool jt_section_matches(const struct jt_section *s, const char *journal,
			const char *const *mounts);

/* Key name as in the file ("force_copy_hold_s"), NULL for an unknown key. */
const char *jt_key_name(enum jt_key key);

/*
 * jt_journal_policy_value - @key's value in @jp as the file spells it
 * ("auto", "300") into @buf (len bytes, always terminated); "" for a key
 * this function does not know.
 */
void jt_journal_policy_value(const struct jt_journal_policy *jp, enum jt_key key, char *buf,
			     size_t len);

#endif
