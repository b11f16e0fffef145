// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * configfs adapter of jbd2-tuned.  Every read opens the journal's directory
 * once and reads its files relative to it, so a group removed mid-read shows
 * as ENOENT/ENODEV on some file and the caller drops the journal.  Files
 * that cannot have changed since the previous sample are skipped: every
 * file read is an open, a read and a close, and at 16 journals and one
 * sample a second these syscalls are nearly all the agent's CPU time.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "configfs.h"
#include "hist.h"

const char *jt_knob_file(enum jt_knob knob)
{
	static const char *const files[JT_KNOBS] = {
		[JT_KNOB_FORCE_COPY] = "force_copy",
		[JT_KNOB_RECLAIM] = "reclaim_watermark_pct",
		[JT_KNOB_LOCK_DELAY] = "lock_delay_max_ms",
	};

	return (unsigned int)knob < JT_KNOBS ? files[knob] : "?";
}

int jt_parse_u64(const char *text, uint64_t *out)
{
	const char *p = text;
	uint64_t v = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	while (isdigit((unsigned char)*p)) {
		unsigned int d = (unsigned int)(*p++ - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return -EINVAL;
	*out = v;
	return 0;
}

void jt_strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int jt_configfs_list(const char *root, char ***names)
{
	size_t n = 0, cap = 8;
	char **v = calloc(cap + 1, sizeof(*v));
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (!v)
		return -ENOMEM;
	*names = v;
	d = opendir(root);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (strlen(de->d_name) >= JT_NAME_MAX)
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap * 2 + 1) * sizeof(*v));

			if (!nv) {
				r = -ENOMEM;
				break;
			}
			v = nv;
			cap *= 2;
		}
		if (!(v[n] = strdup(de->d_name))) {
			r = -ENOMEM;
			break;
		}
		v[++n] = NULL;
	}
	closedir(d);
	v[n] = NULL;
	qsort(v, n, sizeof(*v), cmp_str);
	*names = v;
	return r;
}

/* Read a small file relative to @dfd into @buf (NUL-terminated). */
static int read_small(int dfd, const char *file, char *buf, size_t len)
{
	ssize_t n;
	size_t got = 0;
	int fd = openat(dfd, file, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		/* configfs hands out the whole value in one read: spare the EOF read */
		if (buf[got - 1] == '\n')
			break;
	}
	close(fd);
	buf[got] = '\0';
	return 0;
}

static int read_u64(int dfd, const char *file, uint64_t *out)
{
	char buf[64];
	int r = read_small(dfd, file, buf, sizeof(buf));

	return r < 0 ? r : jt_parse_u64(buf, out);
}

/* configfs files of each kind: count, total us, max us, histogram. */
enum { F_COUNT, F_TOTAL, F_MAX, F_HIST, F_FILES };
static const char *const kind_files[JT_WAIT_KINDS][F_FILES] = {
	[JT_WAIT_SHADOW] = { "shadow_waits", "shadow_wait_us", "shadow_wait_max_us",
			     "shadow_wait_hist" },
	[JT_WAIT_SPACE] = { "space_waits", "space_wait_us", "space_wait_max_us",
			    "space_wait_hist" },
	[JT_WAIT_LOCKED] = { "locked_waits", "locked_wait_us", "locked_wait_max_us",
			     "locked_wait_hist" },
	[JT_WAIT_COMMIT] = { "commit_waits", "commit_wait_us", "commit_wait_max_us",
			     "commit_wait_hist" },
	[JT_WAIT_COMMIT_DURATION] = { "commits", "commit_time_us", "commit_time_max_us",
				      "commit_time_hist" },
};

/*
 * A file that a newer module adds was not found: it is absent (older
 * module, returns 0) unless the whole group went away meanwhile (-ENOENT).
 * force_copy exists in every version of the module.
 */
static int group_still_there(int dfd)
{
	return faccessat(dfd, "force_copy", F_OK, 0) == 0 ? 0 : -errno;
}

/*
 * The reclaim limits.  The kernel derives them from the journal's size,
 * j_max_transaction_buffers and its log area (j_first, j_last), all fixed
 * once the journal is loaded; the first two are log_blocks and
 * max_transaction_blocks.  So known limits are read again only when one of
 * those two changed; 0/0 (not loaded yet, or too small) is read every time,
 * since loading changes the log area alone.
 */
static int read_reclaim_limits(int dfd, const struct jt_sample *prev, struct jt_sample *s)
{
	uint64_t lo, hi;
	int r;

	if (prev && (!prev->has_reclaim_limits ||
		     (prev->reclaim_watermark_min_pct && prev->reclaim_watermark_max_pct &&
		      prev->log_blocks == s->log_blocks &&
		      prev->max_transaction_blocks == s->max_transaction_blocks))) {
		/* the same group keeps its module: absent files are not looked for again */
		s->has_reclaim_limits = prev->has_reclaim_limits;
		s->reclaim_watermark_min_pct = prev->reclaim_watermark_min_pct;
		s->reclaim_watermark_max_pct = prev->reclaim_watermark_max_pct;
		return 0;
	}
	r = read_u64(dfd, "reclaim_watermark_min_pct", &lo);
	if (r == -ENOENT)
		return group_still_there(dfd);	/* older module: has_reclaim_limits false */
	if (r == 0)
		r = read_u64(dfd, "reclaim_watermark_max_pct", &hi);
	if (r < 0)
		return r;
	if (lo > 100 || hi > 100)
		return -EINVAL;
	s->has_reclaim_limits = true;
	s->reclaim_watermark_min_pct = (uint32_t)lo;
	s->reclaim_watermark_max_pct = (uint32_t)hi;
	return 0;
}

/*
 * logged_blocks.  The kernel adds a commit's blocks to it just before it
 * counts the commit (jbd2tune_commit_done(): the commit count is bumped
 * last), so it is read again only when the count of commits moved; read
 * after that count, a sum that is ahead of it is caught at the next
 * commit.  A group that had no logged_blocks (an older module) is not
 * asked again; without commit statistics there is none either.
 */
static int read_logged_blocks(int dfd, const struct jt_sample *prev, struct jt_sample *s)
{
	int r;

	if (!s->has_commit_stats)
		return 0;
	if (prev && (!prev->has_logged_blocks ||
		     prev->wait[JT_WAIT_COMMIT_DURATION].waits ==
		     s->wait[JT_WAIT_COMMIT_DURATION].waits)) {
		s->has_logged_blocks = prev->has_logged_blocks;
		s->logged_blocks = prev->logged_blocks;
		return 0;
	}
	r = read_u64(dfd, "logged_blocks", &s->logged_blocks);
	if (r == -ENOENT)
		return group_still_there(dfd);	/* older module: has_logged_blocks false */
	if (r < 0)
		return r;
	s->has_logged_blocks = true;
	return 0;
}

/*
 * lock_delay_max_ms, when the module has it; a group without it (an older
 * module) is not asked again.
 */
static int read_lock_delay(int dfd, const struct jt_sample *prev, struct jt_sample *s)
{
	uint64_t v;
	int r;

	if (prev && !prev->has_lock_delay)
		return 0;
	r = read_u64(dfd, "lock_delay_max_ms", &v);
	if (r == -ENOENT)
		return group_still_there(dfd);	/* older module: has_lock_delay false */
	if (r < 0)
		return r;
	s->has_lock_delay = true;
	s->knob[JT_KNOB_LOCK_DELAY] = (int64_t)v;
	return 0;
}

/*
 * The waits the knobs spared (shadow_waits_avoided, ...): only force_copy
 * = 1 spares shadow waits and only a lock delay spares locked waits, and
 * the kernel ends the last ones at most one commit after the knob went to
 * 0, so a pair of files is read again while its knob is or was on at the
 * previous sample.  A group without them (an older module) is not asked
 * again.
 */
static int read_avoided(int dfd, const struct jt_sample *prev, struct jt_sample *s)
{
	bool fc = !prev || prev->knob[JT_KNOB_FORCE_COPY] || s->knob[JT_KNOB_FORCE_COPY];
	bool ld = !prev || prev->knob[JT_KNOB_LOCK_DELAY] || s->knob[JT_KNOB_LOCK_DELAY];
	int r;

	if (prev && !prev->has_avoided)
		return 0;
	if (prev) {
		s->shadow_avoided = prev->shadow_avoided;
		s->shadow_avoided_us = prev->shadow_avoided_us;
		s->locked_avoided = prev->locked_avoided;
		s->locked_avoided_us = prev->locked_avoided_us;
	}
	if (fc) {
		r = read_u64(dfd, "shadow_waits_avoided", &s->shadow_avoided);
		if (r == -ENOENT)
			return group_still_there(dfd);	/* older module: has_avoided false */
		if (r == 0)
			r = read_u64(dfd, "shadow_wait_avoided_us", &s->shadow_avoided_us);
		if (r < 0)
			return r;
	}
	if (ld && s->has_lock_delay) {
		r = read_u64(dfd, "locked_waits_avoided", &s->locked_avoided);
		if (r == -ENOENT)
			return group_still_there(dfd);
		if (r == 0)
			r = read_u64(dfd, "locked_wait_avoided_us", &s->locked_avoided_us);
		if (r < 0)
			return r;
	}
	s->has_avoided = true;
	return 0;
}

/* The group directory of @journal under @root: an fd, or a negative errno. */
static int open_group(const char *root, const char *journal)
{
	char path[4096];
	int dfd;

	if (snprintf(path, sizeof(path), "%s/%s", root, journal) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dfd < 0 ? -errno : dfd;
}

bool jt_configfs_group_exists(const char *root, const char *journal)
{
	int dfd = open_group(root, journal);
	bool there;

	if (dfd < 0)
		return false;
	there = group_still_there(dfd) == 0;
	close(dfd);
	return there;
}

int jt_configfs_read(const char *root, const char *journal, const struct jt_sample *prev,
		     struct jt_sample *s)
{
	char buf[1024];
	struct stat st;
	uint64_t v;
	unsigned int k;
	int dfd, r;

	dfd = open_group(root, journal);
	if (dfd < 0)
		return dfd;
	memset(s, 0, sizeof(*s));
	if (fstat(dfd, &st) < 0) {
		r = -errno;
		goto out;
	}
	s->source_id = (uint64_t)st.st_ino;
	if (prev && prev->source_id != s->source_id)
		prev = NULL;	/* a new group of that name: the journal was set up again */

#define RD(name, field) do { r = read_u64(dfd, name, &(field)); if (r < 0) goto out; } while (0)
	RD("force_copy", v);
	s->knob[JT_KNOB_FORCE_COPY] = (int64_t)v;
	RD("reclaim_watermark_pct", v);
	s->knob[JT_KNOB_RECLAIM] = (int64_t)v;
	r = read_lock_delay(dfd, prev, s);
	if (r < 0)
		goto out;
	RD("log_blocks", s->log_blocks);
	RD("free_blocks", s->free_blocks);
	RD("max_transaction_blocks", s->max_transaction_blocks);
	r = read_reclaim_limits(dfd, prev, s);
	if (r < 0)
		goto out;
	/* only force_copy = 1 copies out, only a watermark > 0 runs reclaim */
	if (!prev || prev->knob[JT_KNOB_FORCE_COPY] || s->knob[JT_KNOB_FORCE_COPY])
		RD("copyouts_forced", s->copyouts_forced);
	else
		s->copyouts_forced = prev->copyouts_forced;
	if (!prev || prev->knob[JT_KNOB_RECLAIM] || s->knob[JT_KNOB_RECLAIM]) {
		RD("reclaim_runs", s->reclaim_runs);
		RD("reclaim_blocks", s->reclaim_blocks);
	} else {
		s->reclaim_runs = prev->reclaim_runs;
		s->reclaim_blocks = prev->reclaim_blocks;
	}
	/* the same group keeps its module: an older one is not asked again */
	s->has_commit_stats = prev ? prev->has_commit_stats : true;
	for (k = 0; k < JT_WAIT_KINDS; k++) {
		struct jt_wait_counters *w = &s->wait[k];

		if (k >= JT_WAIT_COMMIT && !s->has_commit_stats)
			continue;
		r = read_u64(dfd, kind_files[k][F_COUNT], &w->waits);
		if (r == -ENOENT && k == JT_WAIT_COMMIT && !prev) {
			r = group_still_there(dfd);
			if (r < 0)
				goto out;
			s->has_commit_stats = false;
			continue;
		}
		if (r < 0)
			goto out;
		if (prev && prev->wait[k].waits == w->waits) {
			*w = prev->wait[k];
			continue;
		}
		RD(kind_files[k][F_TOTAL], w->wait_us);
		RD(kind_files[k][F_MAX], w->wait_max_us);
		r = read_small(dfd, kind_files[k][F_HIST], buf, sizeof(buf));
		if (r < 0)
			goto out;
		r = jt_hist_parse(buf, w->hist);
		if (r < 0)
			goto out;
	}
	r = read_logged_blocks(dfd, prev, s);
	if (r < 0)
		goto out;
	r = read_avoided(dfd, prev, s);
	if (r < 0)
		goto out;
#undef RD
	r = 0;
out:
	close(dfd);
	return r;
}

int jt_configfs_read_knob(const char *root, const char *journal, enum jt_knob knob,
			  int64_t *value)
{
	uint64_t v;
	int dfd, r;

	dfd = open_group(root, journal);
	if (dfd < 0)
		return dfd;
	r = read_u64(dfd, jt_knob_file(knob), &v);
	close(dfd);
	if (r < 0)
		return r;
	*value = (int64_t)v;
	return 0;
}

int jt_configfs_write_knob(const char *root, const char *journal, enum jt_knob knob,
			   int64_t value)
{
	char path[4096], buf[32];
	int fd, n, r = 0;

	if (snprintf(path, sizeof(path), "%s/%s/%s", root, journal, jt_knob_file(knob)) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	/* no O_CREAT: a vanished group must not be re-created as a plain file */
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_TRUNC);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%lld\n", (long long)value);
	if (write(fd, buf, (size_t)n) != n)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}
