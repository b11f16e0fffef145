/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mount table adapter: which mount points belong to a journal.  A journal
 * name is j_devname, "<block device>-<journal inode>" (e.g. "vda1-8"); the
 * block device of every mount comes from /proc/self/mountinfo (major:minor)
 * and the name of /sys/dev/block/<major>:<minor>.
 * The parsing is pure (jt_mounts_parse) and tested; jt_mounts_load does I/O.
 * Tests may point JBD2_TUNED_MOUNTINFO and JBD2_TUNED_SYS_DEV_BLOCK elsewhere.
 */
#ifndef JT_MOUNTS_H
#define JT_MOUNTS_H

#include <stddef.h>

struct jt_mount {
	char *dev;	/* block device name, e.g. "vda1" */
	char *path;	/* mount point, unescaped */
	char *fstype;	/* file system type, e.g. "ext4"; "" when the line has none */
	char *source;	/* mount source, unescaped, e.g. "/dev/vda1"; "" when none */
};

struct jt_mount_table {
	struct jt_mount *v;
	size_t n;
};

/* Block device name of major:minor into @buf; returns 0 or negative errno. */
typedef int (*jt_devname_fn)(unsigned int major, unsigned int minor, char *buf,
			     size_t len, void *userdata);

/*
 * jt_mounts_parse - parse mountinfo @text; every mount whose major:minor has
 * a block device name (per @devname) and whose root is "/" is kept, in order.
 * Returns 0 or -ENOMEM; malformed lines are skipped.
 */
int jt_mounts_parse(const char *text, jt_devname_fn devname, void *userdata,
		    struct jt_mount_table *out);

/* Read the real (or test-overridden) mountinfo and /sys/dev/block. */
int jt_mounts_load(struct jt_mount_table *out);

void jt_mounts_free(struct jt_mount_table *t);

/*
 * jt_mounts_of_journal - mount points of @journal ("dev-ino"), at most @max
 * of them into @out (pointers into @t), NULL-terminated; returns the count.
 */
size_t jt_mounts_of_journal(const struct jt_mount_table *t, const char *journal,
			    const char **out, size_t max);

/*
 * jt_mounts_first - the first mount of @journal ("dev-ino") in @t, the one
 * jt_mounts_of_journal() lists first, or NULL.  Points into @t.
 */
const struct jt_mount *jt_mounts_first(const struct jt_mount_table *t, const char *journal);

#endif
