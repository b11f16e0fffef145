// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Policy file loader.  inih does the tokenising; this file knows the keys,
 * their ranges and the section kinds, and turns every problem into one
 * "file:line: key: why" message.  inih's handler gets no line number in the
 * Debian build, so the line reader below counts lines itself and also
 * checks every [section] header (inih never reports empty sections).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <ini.h>

#include "conf.h"

static const char *const mode_names[] = {
	[JT_MODE_OFF] = "off", [JT_MODE_ON] = "on", [JT_MODE_AUTO] = "auto",
};

static const char *const key_names[JT_KEYS] = {
	[JT_KEY_FORCE_COPY] = "force_copy",
	[JT_KEY_FORCE_COPY_ON_P99_MS] = "force_copy_on_p99_ms",
	[JT_KEY_FORCE_COPY_MIN_WAITS] = "force_copy_min_waits",
	[JT_KEY_FORCE_COPY_HOLD_S] = "force_copy_hold_s",
	[JT_KEY_RECLAIM] = "reclaim",
	[JT_KEY_RECLAIM_WATERMARK_PCT] = "reclaim_watermark_pct",
	[JT_KEY_RECLAIM_MIN_PCT] = "reclaim_min_pct",
	[JT_KEY_RECLAIM_MAX_PCT] = "reclaim_max_pct",
	[JT_KEY_OUTCOME_MARGIN_PCT] = "outcome_margin_pct",
	[JT_KEY_OUTCOME_MIN_WAITS] = "outcome_min_waits",
	[JT_KEY_OUTCOME_BACKOFF_S] = "outcome_backoff_s",
	[JT_KEY_ADVICE_WINDOWS] = "advice_windows",
	[JT_KEY_STALL_BUDGET_MS_PER_S] = "stall_budget_ms_per_s",
	[JT_KEY_STALL_BOUND_MS] = "stall_bound_ms",
	[JT_KEY_STALL_WAIT_MIN_MS] = "stall_wait_min_ms",
	[JT_KEY_TRIAL_BLOCK_S] = "trial_block_s",
	[JT_KEY_TRIAL_MIN_PAIRS] = "trial_min_pairs",
	[JT_KEY_TRIAL_MAX_PAIRS] = "trial_max_pairs",
	[JT_KEY_RECHECK_S] = "recheck_s",
	[JT_KEY_LOCK_DELAY] = "lock_delay",
	[JT_KEY_LOCK_DELAY_MS] = "lock_delay_ms",
};

const char *jt_mode_name(enum jt_mode mode)
{
	return (unsigned int)mode <= JT_MODE_AUTO ? mode_names[mode] : "?";
}

int jt_mode_parse(const char *s, enum jt_mode *out)
{
	unsigned int i;

	for (i = 0; i <= JT_MODE_AUTO; i++)
		if (strcmp(s, mode_names[i]) == 0) {
			*out = (enum jt_mode)i;
			return 0;
		}
	return -EINVAL;
}

void jt_policy_init_defaults(struct jt_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->agent.interval_ms = 1000;
	p->agent.window_s = 30;
	p->agent.restore_on_exit = true;
	p->defaults = (struct jt_journal_policy){
		.force_copy = JT_MODE_AUTO,
		.force_copy_on_p99_ms = 10,
		.force_copy_min_waits = 10,
		.force_copy_hold_s = 300,
		.reclaim = JT_MODE_AUTO,
		.reclaim_watermark_pct = 50,
		.reclaim_min_pct = 35,
		.reclaim_max_pct = 70,
		.outcome_margin_pct = 15,
		.outcome_min_waits = 10,
		.outcome_backoff_s = 300,
		.stall_budget_ms_per_s = 10,
		.stall_bound_ms = 1000,
		.stall_wait_min_ms = 10,
		.trial_block_s = 5,
		.trial_min_pairs = 3,
		.trial_max_pairs = 10,
		.recheck_s = 600,
		.advice_windows = 3,
		/* off until a VM run shows auto's trials pay (agent-policy.md, "Lock delay") */
		.lock_delay = JT_MODE_OFF,
		.lock_delay_ms = 1000,
	};
}

void jt_policy_free(struct jt_policy *p)
{
	size_t i;

	for (i = 0; i < p->n_sections; i++) {
		free(p->sections[i].pattern);
		free(p->sections[i].file);
	}
	free(p->sections);
	for (i = 0; i < p->n_files; i++)
		free(p->files[i]);
	free(p->files);
	free(p->agent.metrics_file);
	memset(p, 0, sizeof(*p));
}

enum cur_section { CUR_NONE, CUR_AGENT, CUR_DEFAULTS, CUR_OTHER };

struct parse_ctx {
	struct jt_policy *p;
	FILE *f;
	const char *file;
	unsigned int line;
	enum cur_section cur;
	char *err;
	size_t errlen;
	bool failed;
	/* where [defaults] reclaim_min/max_pct were last set, for the cross check */
	char *minmax_file;
	unsigned int minmax_line;
};

static void fail(struct parse_ctx *c, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->failed)
		return;
	c->failed = true;
	n = snprintf(c->err, c->errlen, "%s:%u: %s: ", c->file, c->line, key);
	if (n < 0 || (size_t)n >= c->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A [header] line: check it and make it the current section. */
static void section_header(struct parse_ctx *c, char *s)
{
	char *end = strchr(s, ']'), *rest, *name, *arg;
	struct jt_section *sec;

	if (!end) {
		fail(c, trim(s), "section header without ']'");
		return;
	}
	*end = '\0';
	rest = trim(end + 1);
	if (*rest && *rest != ';' && *rest != '#') {
		fail(c, trim(s + 1), "junk after ']': '%s'", rest);
		return;
	}
	name = trim(s + 1);
	if (strcmp(name, "agent") == 0) {
		c->cur = CUR_AGENT;
		return;
	}
	if (strcmp(name, "defaults") == 0) {
		c->cur = CUR_DEFAULTS;
		return;
	}
	arg = name + strcspn(name, " \t");
	if (*arg)
		*arg++ = '\0';
	arg = trim(arg);
	if (strcmp(name, "journal") != 0 && strcmp(name, "mount") != 0) {
		fail(c, name, "unknown section (expected agent, defaults, journal NAME or mount PATH)");
		return;
	}
	if (!*arg) {
		fail(c, name, "section needs an argument: [%s %s]", name,
		     name[0] == 'j' ? "NAME-or-glob" : "/mount/point");
		return;
	}
	if (name[0] == 'm' && arg[0] != '/') {
		fail(c, name, "'%s' is not an absolute path", arg);
		return;
	}
	sec = realloc(c->p->sections, (c->p->n_sections + 1) * sizeof(*sec));
	if (!sec) {
		fail(c, name, "out of memory");
		return;
	}
	c->p->sections = sec;
	sec = &sec[c->p->n_sections];
	memset(sec, 0, sizeof(*sec));
	sec->kind = name[0] == 'j' ? JT_SECTION_JOURNAL : JT_SECTION_MOUNT;
	sec->pattern = strdup(arg);
	sec->file = strdup(c->file);
	sec->line = c->line;
	c->p->n_sections++;
	if (!sec->pattern || !sec->file)
		fail(c, name, "out of memory");
	c->cur = CUR_OTHER;
}

/* inih line reader: counts lines and checks section headers first. */
static char *reader(char *buf, int size, void *stream)
{
	struct parse_ctx *c = stream;
	char line[512], *s;
	size_t len;

	if (c->failed || !fgets(buf, size, c->f))
		return NULL;
	c->line++;
	len = strlen(buf);
	if (len == (size_t)size - 1 && buf[len - 1] != '\n' && !feof(c->f)) {
		fail(c, "(line)", "line longer than %d characters", size - 2);
		return NULL;
	}
	snprintf(line, sizeof(line), "%s", buf);
	s = trim(line);
	if (*s == '[') {
		section_header(c, s);
		if (c->failed)
			return NULL;
	}
	return buf;
}

static int parse_uint(struct parse_ctx *c, const char *key, const char *v,
		      unsigned long min, unsigned long max, unsigned int *out)
{
	unsigned long n = 0;
	const char *p;

	if (!*v) {
		fail(c, key, "empty value (expected a number %lu..%lu)", min, max);
		return -EINVAL;
	}
	for (p = v; *p; p++) {
		if (!isdigit((unsigned char)*p)) {
			fail(c, key, "'%s' is not a number", v);
			return -EINVAL;
		}
		if (n > 10000000UL) {	/* far above every max: stop before overflow */
			fail(c, key, "'%s' is out of range %lu..%lu", v, min, max);
			return -ERANGE;
		}
		n = n * 10 + (unsigned long)(*p - '0');
	}
	if (n < min || n > max) {
		fail(c, key, "'%s' is out of range %lu..%lu", v, min, max);
		return -ERANGE;
	}
	*out = (unsigned int)n;
	return 0;
}

static int parse_bool(struct parse_ctx *c, const char *key, const char *v, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (strcmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	fail(c, key, "'%s' is not a boolean (true or false)", v);
	return -EINVAL;
}

static int agent_key(struct parse_ctx *c, const char *key, const char *v)
{
	struct jt_agent_policy *a = &c->p->agent;

	if (strcmp(key, "interval_ms") == 0)
		return parse_uint(c, key, v, 100, 60000, &a->interval_ms);
	if (strcmp(key, "window_s") == 0)
		return parse_uint(c, key, v, 1, 3600, &a->window_s);
	if (strcmp(key, "restore_on_exit") == 0)
		return parse_bool(c, key, v, &a->restore_on_exit);
	if (strcmp(key, "dry_run") == 0)
		return parse_bool(c, key, v, &a->dry_run);
	if (strcmp(key, "metrics_file") == 0) {
		char *dup = NULL;

		if (*v && *v != '/') {
			fail(c, key, "'%s' is not an absolute path", v);
			return -EINVAL;
		}
		if (*v && !(dup = strdup(v))) {
			fail(c, key, "out of memory");
			return -ENOMEM;
		}
		free(a->metrics_file);
		a->metrics_file = dup;
		a->metrics_file_set = true;
		return 0;
	}
	fail(c, key, "unknown key in [agent]");
	return -EINVAL;
}

/* A journal policy key into @jp; sets bit in *mask. */
static int journal_key(struct parse_ctx *c, const char *key, const char *v,
		       struct jt_journal_policy *jp, unsigned int *mask)
{
	unsigned int k;
	int r = 0;

	for (k = 0; k < JT_KEYS; k++)
		if (strcmp(key, key_names[k]) == 0)
			break;
	switch (k) {
	case JT_KEY_FORCE_COPY:
	case JT_KEY_RECLAIM:
	case JT_KEY_LOCK_DELAY: {
		enum jt_mode m;

		if (jt_mode_parse(v, &m) < 0) {
			fail(c, key, "'%s' is not one of on, off, auto", v);
			return -EINVAL;
		}
		if (k == JT_KEY_FORCE_COPY)
			jp->force_copy = m;
		else if (k == JT_KEY_RECLAIM)
			jp->reclaim = m;
		else
			jp->lock_delay = m;
		break;
	}
	case JT_KEY_LOCK_DELAY_MS:
		r = parse_uint(c, key, v, 1, JT_LOCK_DELAY_MS_MAX, &jp->lock_delay_ms);
		break;
	case JT_KEY_FORCE_COPY_ON_P99_MS:
		r = parse_uint(c, key, v, 1, 60000, &jp->force_copy_on_p99_ms);
		break;
	case JT_KEY_FORCE_COPY_MIN_WAITS:
		r = parse_uint(c, key, v, 1, 1000000, &jp->force_copy_min_waits);
		break;
	case JT_KEY_FORCE_COPY_HOLD_S:
		r = parse_uint(c, key, v, 1, 3600, &jp->force_copy_hold_s);
		break;
	case JT_KEY_RECLAIM_WATERMARK_PCT:
		r = parse_uint(c, key, v, 1, 90, &jp->reclaim_watermark_pct);
		break;
	case JT_KEY_RECLAIM_MIN_PCT:
		r = parse_uint(c, key, v, 1, 90, &jp->reclaim_min_pct);
		break;
	case JT_KEY_RECLAIM_MAX_PCT:
		r = parse_uint(c, key, v, 1, 90, &jp->reclaim_max_pct);
		break;
	case JT_KEY_OUTCOME_MARGIN_PCT:
		r = parse_uint(c, key, v, 1, 1000, &jp->outcome_margin_pct);
		break;
	case JT_KEY_OUTCOME_MIN_WAITS:
		r = parse_uint(c, key, v, 1, 1000000, &jp->outcome_min_waits);
		break;
	case JT_KEY_OUTCOME_BACKOFF_S:
		r = parse_uint(c, key, v, 1, 3600, &jp->outcome_backoff_s);
		break;
	case JT_KEY_ADVICE_WINDOWS:
		r = parse_uint(c, key, v, 0, 1000, &jp->advice_windows);
		break;
	case JT_KEY_STALL_BUDGET_MS_PER_S:
		r = parse_uint(c, key, v, 1, 1000, &jp->stall_budget_ms_per_s);
		break;
	case JT_KEY_STALL_BOUND_MS:
		r = parse_uint(c, key, v, 1, 60000, &jp->stall_bound_ms);
		break;
	case JT_KEY_STALL_WAIT_MIN_MS:
		r = parse_uint(c, key, v, 0, 60000, &jp->stall_wait_min_ms);
		break;
	case JT_KEY_TRIAL_BLOCK_S:
		r = parse_uint(c, key, v, 1, 600, &jp->trial_block_s);
		break;
	case JT_KEY_TRIAL_MIN_PAIRS:
		r = parse_uint(c, key, v, 2, 100, &jp->trial_min_pairs);
		break;
	case JT_KEY_TRIAL_MAX_PAIRS:
		r = parse_uint(c, key, v, 2, 100, &jp->trial_max_pairs);
		break;
	case JT_KEY_RECHECK_S:
		r = parse_uint(c, key, v, 10, 86400, &jp->recheck_s);
		break;
	default:
		fail(c, key, "unknown key");
		return -EINVAL;
	}
	if (r == 0)
		*mask |= 1U << k;
	return r;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *c = user;
	char v[256];
	unsigned int dmask = 0;

	(void)section;	/* tracked by reader() */
	if (c->failed)
		return 0;
	snprintf(v, sizeof(v), "%s", value ? value : "");
	switch (c->cur) {
	case CUR_NONE:
		fail(c, name, "key outside of any section");
		return 0;
	case CUR_AGENT:
		return agent_key(c, name, v) == 0;
	case CUR_DEFAULTS:
		if (journal_key(c, name, v, &c->p->defaults, &dmask) < 0)
			return 0;
		if (dmask & ((1U << JT_KEY_RECLAIM_MIN_PCT) | (1U << JT_KEY_RECLAIM_MAX_PCT))) {
			free(c->minmax_file);
			c->minmax_file = strdup(c->file);
			c->minmax_line = c->line;
		}
		return 1;
	case CUR_OTHER: {
		struct jt_section *s = &c->p->sections[c->p->n_sections - 1];

		return journal_key(c, name, v, &s->values, &s->set_mask) == 0;
	}
	}
	return 0;
}

static int parse_one(struct parse_ctx *c, const char *file)
{
	char **files;
	int r;

	c->file = file;
	c->line = 0;
	c->cur = CUR_NONE;
	c->f = fopen(file, "re");
	if (!c->f) {
		r = -errno;
		snprintf(c->err, c->errlen, "%s: cannot open: %s", file, strerror(-r));
		c->failed = true;
		return r;
	}
	files = realloc(c->p->files, (c->p->n_files + 1) * sizeof(*files));
	if (!files || !(files[c->p->n_files] = strdup(file))) {
		if (files)
			c->p->files = files;
		fclose(c->f);
		snprintf(c->err, c->errlen, "%s: out of memory", file);
		c->failed = true;
		return -ENOMEM;
	}
	c->p->files = files;
	c->p->n_files++;

	r = ini_parse_stream(reader, c, handler, c);
	if (!c->failed && ferror(c->f)) {
		snprintf(c->err, c->errlen, "%s:%u: (read): %s", file, c->line, strerror(errno));
		c->failed = true;
	}
	fclose(c->f);
	c->f = NULL;
	if (!c->failed && r != 0) {
		/* inih found a line that is neither [section] nor key = value */
		c->line = r > 0 ? (unsigned int)r : c->line;
		fail(c, "(syntax)", "expected 'key = value' or '[section]'");
	}
	return c->failed ? -EINVAL : 0;
}

static int conf_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && strcmp(d->d_name + n - 5, ".conf") == 0;
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Cross-key checks once everything is read: min <= max everywhere. */
static int check_ranges(struct parse_ctx *c)
{
	const struct jt_journal_policy *d = &c->p->defaults;
	size_t i;

	if (d->reclaim_min_pct > d->reclaim_max_pct) {
		snprintf(c->err, c->errlen, "%s:%u: reclaim_min_pct: %u is above reclaim_max_pct %u",
			 c->minmax_file ? c->minmax_file : "(defaults)", c->minmax_line,
			 d->reclaim_min_pct, d->reclaim_max_pct);
		return -EINVAL;
	}
	for (i = 0; i < c->p->n_sections; i++) {
		const struct jt_section *s = &c->p->sections[i];
		unsigned int min = s->set_mask & (1U << JT_KEY_RECLAIM_MIN_PCT) ?
				   s->values.reclaim_min_pct : d->reclaim_min_pct;
		unsigned int max = s->set_mask & (1U << JT_KEY_RECLAIM_MAX_PCT) ?
				   s->values.reclaim_max_pct : d->reclaim_max_pct;

		if (min > max) {
			snprintf(c->err, c->errlen,
				 "%s:%u: reclaim_min_pct: %u is above reclaim_max_pct %u in [%s %s]",
				 s->file, s->line, min, max,
				 s->kind == JT_SECTION_JOURNAL ? "journal" : "mount", s->pattern);
			return -EINVAL;
		}
	}
	return 0;
}

int jt_policy_load(const char *main_file, const char *dropin_dir,
		   struct jt_policy *out, char *err, size_t errlen)
{
	struct jt_policy p;
	struct parse_ctx c = { .p = &p, .err = err, .errlen = errlen };
	struct dirent **names = NULL;
	int n = 0, i, r;

	jt_policy_init_defaults(&p);
	ini_stop_on_first_error = true;
	ini_allow_multiline = false;
	err[0] = '\0';

	r = parse_one(&c, main_file);
	if (r == 0 && dropin_dir) {
		n = scandir(dropin_dir, &names, conf_filter, name_cmp);
		if (n < 0) {
			n = 0;
			if (errno != ENOENT) {
				r = -errno;
				snprintf(err, errlen, "%s: cannot read drop-in directory: %s",
					 dropin_dir, strerror(-r));
			}
		}
		for (i = 0; i < n && r == 0; i++) {
			char *path;

			if (asprintf(&path, "%s/%s", dropin_dir, names[i]->d_name) < 0) {
				snprintf(err, errlen, "%s: out of memory", dropin_dir);
				r = -ENOMEM;
				break;
			}
			r = parse_one(&c, path);
			free(path);
		}
		for (i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	if (r == 0)
		r = check_ranges(&c);
	free(c.minmax_file);
	if (r < 0) {
		jt_policy_free(&p);
		return r;
	}
	*out = p;
	return 0;
}

static void overlay(struct jt_journal_policy *dst, const struct jt_section *s)
{
	const struct jt_journal_policy *v = &s->values;
	unsigned int m = s->set_mask;

#define TAKE(key, field) do { if (m & (1U << (key))) dst->field = v->field; } while (0)
	TAKE(JT_KEY_FORCE_COPY, force_copy);
	TAKE(JT_KEY_FORCE_COPY_ON_P99_MS, force_copy_on_p99_ms);
	TAKE(JT_KEY_FORCE_COPY_MIN_WAITS, force_copy_min_waits);
	TAKE(JT_KEY_FORCE_COPY_HOLD_S, force_copy_hold_s);
	TAKE(JT_KEY_RECLAIM, reclaim);
	TAKE(JT_KEY_RECLAIM_WATERMARK_PCT, reclaim_watermark_pct);
	TAKE(JT_KEY_RECLAIM_MIN_PCT, reclaim_min_pct);
	TAKE(JT_KEY_RECLAIM_MAX_PCT, reclaim_max_pct);
	TAKE(JT_KEY_OUTCOME_MARGIN_PCT, outcome_margin_pct);
	TAKE(JT_KEY_OUTCOME_MIN_WAITS, outcome_min_waits);
	TAKE(JT_KEY_OUTCOME_BACKOFF_S, outcome_backoff_s);
	TAKE(JT_KEY_STALL_BUDGET_MS_PER_S, stall_budget_ms_per_s);
	TAKE(JT_KEY_STALL_BOUND_MS, stall_bound_ms);
	TAKE(JT_KEY_STALL_WAIT_MIN_MS, stall_wait_min_ms);
	TAKE(JT_KEY_TRIAL_BLOCK_S, trial_block_s);
	TAKE(JT_KEY_TRIAL_MIN_PAIRS, trial_min_pairs);
	TAKE(JT_KEY_TRIAL_MAX_PAIRS, trial_max_pairs);
	TAKE(JT_KEY_RECHECK_S, recheck_s);
	TAKE(JT_KEY_ADVICE_WINDOWS, advice_windows);
	TAKE(JT_KEY_LOCK_DELAY, lock_delay);
	TAKE(JT_KEY_LOCK_DELAY_MS, lock_delay_ms);
#undef TAKE
}

bool jt_section_matches(const struct jt_section *s, const char *journal,
			const char *const *mounts)
{
	size_t j;

	if (s->kind == JT_SECTION_JOURNAL)
		return fnmatch(s->pattern, journal, 0) == 0;
	for (j = 0; mounts && mounts[j]; j++)
		if (strcmp(s->pattern, mounts[j]) == 0)
			return true;
	return false;
}

const char *jt_key_name(enum jt_key key)
{
	return (unsigned int)key < JT_KEYS ? key_names[key] : NULL;
}

void jt_journal_policy_value(const struct jt_journal_policy *jp, enum jt_key key, char *buf,
			     size_t len)
{
	unsigned int v;

	switch (key) {
	case JT_KEY_FORCE_COPY:
		snprintf(buf, len, "%s", jt_mode_name(jp->force_copy));
		return;
	case JT_KEY_RECLAIM:
		snprintf(buf, len, "%s", jt_mode_name(jp->reclaim));
		return;
	case JT_KEY_LOCK_DELAY:
		snprintf(buf, len, "%s", jt_mode_name(jp->lock_delay));
		return;
	case JT_KEY_FORCE_COPY_ON_P99_MS: v = jp->force_copy_on_p99_ms; break;
	case JT_KEY_FORCE_COPY_MIN_WAITS: v = jp->force_copy_min_waits; break;
	case JT_KEY_FORCE_COPY_HOLD_S: v = jp->force_copy_hold_s; break;
	case JT_KEY_RECLAIM_WATERMARK_PCT: v = jp->reclaim_watermark_pct; break;
	case JT_KEY_RECLAIM_MIN_PCT: v = jp->reclaim_min_pct; break;
	case JT_KEY_RECLAIM_MAX_PCT: v = jp->reclaim_max_pct; break;
	case JT_KEY_OUTCOME_MARGIN_PCT: v = jp->outcome_margin_pct; break;
	case JT_KEY_OUTCOME_MIN_WAITS: v = jp->outcome_min_waits; break;
	case JT_KEY_OUTCOME_BACKOFF_S: v = jp->outcome_backoff_s; break;
	case JT_KEY_ADVICE_WINDOWS: v = jp->advice_windows; break;
	case JT_KEY_STALL_BUDGET_MS_PER_S: v = jp->stall_budget_ms_per_s; break;
	case JT_KEY_STALL_BOUND_MS: v = jp->stall_bound_ms; break;
	case JT_KEY_STALL_WAIT_MIN_MS: v = jp->stall_wait_min_ms; break;
	case JT_KEY_TRIAL_BLOCK_S: v = jp->trial_block_s; break;
	case JT_KEY_TRIAL_MIN_PAIRS: v = jp->trial_min_pairs; break;
	case JT_KEY_TRIAL_MAX_PAIRS: v = jp->trial_max_pairs; break;
	case JT_KEY_RECHECK_S: v = jp->recheck_s; break;
	case JT_KEY_LOCK_DELAY_MS: v = jp->lock_delay_ms; break;
	default:
		snprintf(buf, len, "%s", "");
		return;
	}
	snprintf(buf, len, "%u", v);
}

void jt_policy_resolve(const struct jt_policy *p, const char *journal,
		       const char *const *mounts, struct jt_journal_policy *out)
{
	size_t i;

	*out = p->defaults;
	for (i = 0; i < p->n_sections; i++) {
		const struct jt_section *s = &p->sections[i];

		if (jt_section_matches(s, journal, mounts))
			overlay(out, s);
	}
	if (out->reclaim_max_pct < out->reclaim_min_pct)
		out->reclaim_max_pct = out->reclaim_min_pct;
	if (out->trial_max_pairs < out->trial_min_pairs)
		out->trial_max_pairs = out->trial_min_pairs;
}
