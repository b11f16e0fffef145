// SPDX-License-Identifier: GPL-2.0-or-later
/* Mount table adapter of jbd2-tuned; see mounts.h. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mounts.h"

/* Undo mountinfo's octal escapes (\040 for space etc.) in place. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

int jt_mounts_parse(const char *text, jt_devname_fn devname, void *userdata,
		    struct jt_mount_table *out)
{
	const char *line = text;

	out->v = NULL;
	out->n = 0;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[4096], root[4096], path[4096], dev[256], fstype[256] = "", source[4096] = "";
		unsigned int major, minor;
		struct jt_mount *v;
		const char *sep;

		const char *start = line;

		line = nl ? nl + 1 : NULL;
		if (len >= sizeof(buf))
			continue;
		memcpy(buf, start, len);
		buf[len] = '\0';
		/* id parent major:minor root mountpoint ... */
		if (sscanf(buf, "%*u %*u %u:%u %4095s %4095s", &major, &minor, root, path) != 4)
			continue;
		unescape(root);
		if (strcmp(root, "/") != 0)
			continue;	/* bind mount of a subdirectory */
		if (devname(major, minor, dev, sizeof(dev), userdata) < 0)
			continue;
		unescape(path);
		/* ... optional fields, then " - " fstype source super-options */
		sep = strstr(buf, " - ");
		if (sep)
			sscanf(sep + 3, "%255s %4095s", fstype, source);
		unescape(source);
		v = realloc(out->v, (out->n + 1) * sizeof(*v));
		if (!v)
			goto oom;
		out->v = v;
		v[out->n].dev = strdup(dev);
		v[out->n].path = strdup(path);
		v[out->n].fstype = strdup(fstype);
		v[out->n].source = strdup(source);
		out->n++;
		if (!v[out->n - 1].dev || !v[out->n - 1].path || !v[out->n - 1].fstype ||
		    !v[out->n - 1].source)
			goto oom;
	}
	return 0;
oom:
	jt_mounts_free(out);
	return -ENOMEM;
}

static int sys_devname(unsigned int major, unsigned int minor, char *buf, size_t len,
		       void *userdata)
{
	const char *base = userdata;
	char path[PATH_MAX], target[PATH_MAX];
	const char *name;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u:%u", base, major, minor);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	name = strrchr(target, '/');
	name = name ? name + 1 : target;
	if (!*name || strlen(name) >= len)
		return -EINVAL;
	strcpy(buf, name);
	return 0;
}

int jt_mounts_load(struct jt_mount_table *out)
{
	const char *mi = getenv("JBD2_TUNED_MOUNTINFO");
	const char *sdb = getenv("JBD2_TUNED_SYS_DEV_BLOCK");
	char *text = NULL;
	size_t cap = 0, len = 0;
	FILE *f;
	int r;

	out->v = NULL;
	out->n = 0;
	f = fopen(mi ? mi : "/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *t = realloc(text, cap + 65536);

			if (!t) {
				free(text);
				fclose(f);
				return -ENOMEM;
			}
			text = t;
			cap += 65536;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	text[len] = '\0';
	r = jt_mounts_parse(text, sys_devname, (void *)(sdb ? sdb : "/sys/dev/block"), out);
	free(text);
	return r;
}

void jt_mounts_free(struct jt_mount_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].dev);
		free(t->v[i].path);
		free(t->v[i].fstype);
		free(t->v[i].source);
	}
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* Length of the device part of "dev-ino", or 0 when @journal has no such form. */
static size_t journal_devlen(const char *journal)
{
	const char *dash = strrchr(journal, '-');

	if (!dash || dash == journal || !dash[1] || strspn(dash + 1, "0123456789") != strlen(dash + 1))
		return 0;
	return (size_t)(dash - journal);
}

static bool mount_of(const struct jt_mount *m, const char *journal, size_t devlen)
{
	return devlen && strlen(m->dev) == devlen && strncmp(m->dev, journal, devlen) == 0;
}

size_t jt_mounts_of_journal(const struct jt_mount_table *t, const char *journal,
			    const char **out, size_t max)
{
	size_t devlen = journal_devlen(journal), i, n = 0;

	if (max == 0)
		return 0;
	for (i = 0; i < t->n && n + 1 < max; i++)
		if (mount_of(&t->v[i], journal, devlen))
			out[n++] = t->v[i].path;
	out[n] = NULL;
	return n;
}

const struct jt_mount *jt_mounts_first(const struct jt_mount_table *t, const char *journal)
{
	size_t devlen = journal_devlen(journal), i;

	for (i = 0; i < t->n; i++)
		if (mount_of(&t->v[i], journal, devlen))
			return &t->v[i];
	return NULL;
}
