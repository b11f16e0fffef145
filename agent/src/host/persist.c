// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The per-journal state file of jbd2-tuned; see persist.h for the format.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "persist.h"
#include "strbuf.h"
#include "policy.h"

#define MAGIC "jbd2-tuned-state 1"

/* Per-knob fields: name, kind (b bool, i int64, u uint64, l ulong, m mode, s string). */
#define KNOB_FIELDS(X) \
	X(seen, b) X(managed, b) X(changed, b) X(found, i) X(expected, i) X(kept, b) \
	X(kept_from, i) X(kept_to, i) X(kept_realtime_us, u) X(backoff_us, u) \
	X(blocked_from, i) X(blocked_up, b) X(blocked_until_realtime_us, u) X(next_try, i) \
	X(top_only, b) X(has_override, b) X(override, m) X(trials, l) X(keeps, l) \
	X(harms, l) X(fails, l) X(last_verdict, s)


size_t jt_persist_format(const struct jt_persist *p, char *buf, size_t len)
{
	size_t at = 0;
	unsigned int k;

	at = jt_append(buf, len, at, MAGIC "\nidentity %s\nsaved_realtime_us %llu\n", p->identity,
		 (unsigned long long)p->saved_realtime_us);
	for (k = 0; k < JT_KNOBS; k++) {
		const struct jt_persist_knob *pk = &p->knob[k];
		const char *kn = jt_knob_name((enum jt_knob)k);

#define FMT_b(f) at = jt_append(buf, len, at, "%s." #f " %d\n", kn, pk->f ? 1 : 0);
#define FMT_i(f) at = jt_append(buf, len, at, "%s." #f " %lld\n", kn, (long long)pk->f);
#define FMT_u(f) at = jt_append(buf, len, at, "%s." #f " %llu\n", kn, (unsigned long long)pk->f);
#define FMT_l(f) at = jt_append(buf, len, at, "%s." #f " %lu\n", kn, pk->f);
#define FMT_m(f) at = jt_append(buf, len, at, "%s." #f " %s\n", kn, jt_mode_name(pk->f));
#define FMT_s(f) at = jt_append(buf, len, at, "%s." #f " %s\n", kn, pk->f[0] ? pk->f : "-");
#define FMT(f, t) FMT_##t(f)
		KNOB_FIELDS(FMT)
#undef FMT
	}
	if (p->trial_active)
		at = jt_append(buf, len, at, "trial %s %lld %lld\n", jt_knob_name(p->trial_knob),
			 (long long)p->trial_from, (long long)p->trial_to);
	return at < len ? at : len - 1;
}

static int parse_i64(const char *v, int64_t *out)
{
	char *end;
	long long x;

	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || end == v || *end)
		return -EINVAL;
	*out = x;
	return 0;
}

static int parse_u64(const char *v, uint64_t *out)
{
	char *end;
	unsigned long long x;

	if (*v == '-')
		return -EINVAL;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || end == v || *end)
		return -EINVAL;
	*out = x;
	return 0;
}

static int knob_of(const char *name, size_t n, enum jt_knob *k)
{
	unsigned int i;

	for (i = 0; i < JT_KNOBS; i++) {
		const char *kn = jt_knob_name((enum jt_knob)i);

		if (strlen(kn) == n && strncmp(kn, name, n) == 0) {
			*k = (enum jt_knob)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* One "knob.field value" line. */
static int parse_knob_field(struct jt_persist *p, const char *key, const char *v)
{
	const char *dot = strchr(key, '.');
	struct jt_persist_knob *pk;
	enum jt_knob k;
	int64_t i;
	uint64_t u;

	if (!dot || knob_of(key, (size_t)(dot - key), &k) < 0)
		return 0;	/* not ours (a newer agent's key): skipped */
	pk = &p->knob[k];
	key = dot + 1;
#define PARSE_b(f) \
	if (strcmp(key, #f) == 0) { \
		if (parse_i64(v, &i) < 0 || (i != 0 && i != 1)) \
			return -EINVAL; \
		pk->f = i; \
		return 0; \
	}
#define PARSE_i(f) \
	if (strcmp(key, #f) == 0) { \
		if (parse_i64(v, &i) < 0) \
			return -EINVAL; \
		pk->f = i; \
		return 0; \
	}
#define PARSE_u(f) \
	if (strcmp(key, #f) == 0) { \
		if (parse_u64(v, &u) < 0) \
			return -EINVAL; \
		pk->f = u; \
		return 0; \
	}
#define PARSE_l(f) PARSE_u(f)
#define PARSE_m(f) \
	if (strcmp(key, #f) == 0) \
		return jt_mode_parse(v, &pk->f) < 0 ? -EINVAL : 0;
#define PARSE_s(f) \
	if (strcmp(key, #f) == 0) { \
		snprintf(pk->f, sizeof(pk->f), "%s", strcmp(v, "-") ? v : ""); \
		return 0; \
	}
#define PARSE(f, t) PARSE_##t(f)
	KNOB_FIELDS(PARSE)
#undef PARSE
	return 0;
}

int jt_persist_parse(const char *text, struct jt_persist *out, unsigned int *line)
{
	struct jt_persist p;
	const char *s = text;
	unsigned int n = 0;

	memset(&p, 0, sizeof(p));
	*line = 0;
	while (*s) {
		char buf[512], *v;
		size_t l = strcspn(s, "\n");

		n++;
		*line = n;
		if (l >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, s, l);
		buf[l] = '\0';
		s += l + (s[l] == '\n');
		if (n == 1) {
			if (strcmp(buf, MAGIC) != 0)
				return -EINVAL;
			continue;
		}
		if (!buf[0])
			continue;
		v = strchr(buf, ' ');
		if (!v || !v[1])
			return -EINVAL;
		*v++ = '\0';
		if (strcmp(buf, "identity") == 0) {
			snprintf(p.identity, sizeof(p.identity), "%s", v);
		} else if (strcmp(buf, "saved_realtime_us") == 0) {
			if (parse_u64(v, &p.saved_realtime_us) < 0)
				return -EINVAL;
		} else if (strcmp(buf, "trial") == 0) {
			char kn[32];
			long long from, to;

			if (sscanf(v, "%31s %lld %lld", kn, &from, &to) != 3 ||
			    knob_of(kn, strlen(kn), &p.trial_knob) < 0)
				return -EINVAL;
			p.trial_active = true;
			p.trial_from = from;
			p.trial_to = to;
		} else if (parse_knob_field(&p, buf, v) < 0) {
			return -EINVAL;
		}
	}
	if (n == 0)
		return -EINVAL;
	*line = 0;
	*out = p;
	return 0;
}

static char *path_of(const char *dir, const char *name, const char *suffix)
{
	char *path;

	if (asprintf(&path, "%s/%s.state%s", dir, name, suffix) < 0)
		return NULL;
	return path;
}

int jt_persist_read(const char *dir, const char *name, struct jt_persist *out,
		    unsigned int *line)
{
	char text[JT_PERSIST_TEXT_MAX], *path = path_of(dir, name, "");
	ssize_t n;
	int fd, r;

	*line = 0;
	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	text[n] = '\0';
	return jt_persist_parse(text, out, line);
}

/* mkdir -p @dir, mode 0755. */
static int mkdir_parents(const char *dir)
{
	char path[PATH_MAX];
	size_t i;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (i = 1; path[i]; i++) {
		if (path[i] != '/')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		path[i] = '/';
	}
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int jt_persist_write(const char *dir, const char *name, const struct jt_persist *p)
{
	char text[JT_PERSIST_TEXT_MAX];
	char *tmp = path_of(dir, name, ".tmp"), *path = path_of(dir, name, "");
	size_t len = jt_persist_format(p, text, sizeof(text));
	int fd, r = 0;

	if (!tmp || !path) {
		r = -ENOMEM;
		goto out;
	}
	r = mkdir_parents(dir);
	if (r < 0)
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	if (write(fd, text, len) != (ssize_t)len)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (r)
		unlink(tmp);
out:
	free(tmp);
	free(path);
	return r;
}

int jt_persist_remove(const char *dir, const char *name)
{
	char *path = path_of(dir, name, "");
	int r;

	if (!path)
		return -ENOMEM;
	r = unlink(path) < 0 ? -errno : 0;
	free(path);
	return r;
}

/* A monotonic deadline as wall-clock time (0 stays 0: none). */
static uint64_t to_real(uint64_t mono_deadline, uint64_t mono_now, uint64_t real_now)
{
	if (!mono_deadline)
		return 0;
	if (mono_deadline >= mono_now)
		return real_now + (mono_deadline - mono_now);
	return real_now > mono_now - mono_deadline ? real_now - (mono_now - mono_deadline) : 1;
}

/* A wall-clock time as a monotonic one (0 stays 0; the past clamps at 1). */
static uint64_t to_mono(uint64_t real, uint64_t mono_now, uint64_t real_now)
{
	if (!real)
		return 0;
	if (real >= real_now)
		return mono_now + (real - real_now);
	return mono_now > real_now - real ? mono_now - (real_now - real) : 1;
}

void jt_persist_from_state(const struct jt_journal_state *st, uint64_t mono_now,
			   uint64_t real_now, struct jt_persist *p)
{
	unsigned int k;

	for (k = 0; k < JT_KNOBS; k++) {
		const struct jt_knob_state *ks = &st->knob[k];
		struct jt_persist_knob *pk = &p->knob[k];

		pk->seen = ks->seen;
		pk->managed = ks->managed;
		pk->changed = ks->changed;
		pk->found = ks->found;
		pk->expected = ks->expected;
		pk->kept = ks->kept;
		pk->kept_from = ks->kept_from;
		pk->kept_to = ks->kept_to;
		pk->kept_realtime_us = to_real(ks->kept_us, mono_now, real_now);
		pk->backoff_us = ks->backoff_us;
		pk->blocked_from = ks->blocked_from;
		pk->blocked_up = ks->blocked_up;
		pk->blocked_until_realtime_us = to_real(ks->blocked_until_us, mono_now, real_now);
		pk->next_try = ks->next_try;
		pk->top_only = ks->top_only;
		pk->trials = ks->trials;
		pk->keeps = ks->keeps;
		pk->harms = ks->harms;
		pk->fails = ks->fails;
		snprintf(pk->last_verdict, sizeof(pk->last_verdict), "%s", ks->last_verdict);
	}
	/* a trial running, or cut short and not yet put back: the next process undoes it */
	p->trial_active = jt_policy_undo_target(st, &p->trial_knob, &p->trial_from, &p->trial_to);
	p->saved_realtime_us = real_now;
}

void jt_persist_to_state(const struct jt_persist *p, uint64_t mono_now, uint64_t real_now,
			 struct jt_journal_state *st)
{
	unsigned int k;

	for (k = 0; k < JT_KNOBS; k++) {
		const struct jt_persist_knob *pk = &p->knob[k];
		struct jt_knob_state *ks = &st->knob[k];

		if (!pk->seen)
			continue;
		ks->seen = true;
		ks->resync = true;	/* the next reading is what the agent expects */
		ks->managed = pk->managed;
		ks->changed = pk->changed;
		ks->found = pk->found;
		ks->value = ks->expected = pk->expected;
		ks->kept = pk->kept;
		ks->kept_from = pk->kept_from;
		ks->kept_to = pk->kept_to;
		ks->kept_us = to_mono(pk->kept_realtime_us, mono_now, real_now);
		ks->backoff_us = pk->backoff_us;
		ks->blocked_from = pk->blocked_from;
		ks->blocked_up = pk->blocked_up;
		ks->blocked_until_us = to_mono(pk->blocked_until_realtime_us, mono_now, real_now);
		ks->next_try = pk->next_try;
		ks->top_only = pk->top_only;
		ks->trials = pk->trials;
		ks->keeps = pk->keeps;
		ks->harms = pk->harms;
		ks->fails = pk->fails;
		snprintf(ks->last_verdict, sizeof(ks->last_verdict), "%s", pk->last_verdict);
	}
	if (p->trial_active)
		jt_policy_resume(st, p->trial_knob, p->trial_from, p->trial_to);
}
