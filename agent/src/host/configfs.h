/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * configfs adapter: list journal groups under the root
 * (/sys/kernel/config/jbd2 or --configfs-root), read one journal's files
 * into a jt_sample, write a knob.  Value parsing is pure and tested.
 */
#ifndef JT_CONFIGFS_H
#define JT_CONFIGFS_H

#include <stddef.h>
#include <stdint.h>

#include "sample.h"

/*
 * jt_parse_u64 - one configfs value: decimal u64, optional white space around
 * it (typically the trailing newline).  Returns 0 or -EINVAL (empty, sign,
 * junk, overflow).
 */
int jt_parse_u64(const char *text, uint64_t *out);

/*
 * jt_configfs_list - names of the journal groups (directories) under @root,
 * sorted.  *@names is a NULL-terminated malloc'd array (free with
 * jt_strv_free).  A missing @root yields an empty list and returns -ENOENT;
 * other errors return a negative errno and an empty list.
 */
int jt_configfs_list(const char *root, char ***names);

void jt_strv_free(char **v);

/*
 * jt_configfs_read - read group @journal into @s (time_us is left to the
 * caller; source_id is the group directory's inode).  With @prev, an earlier
 * sample of the same journal, files that cannot have changed since are not
 * read again (issue 4's CPU budget): a kind's total, max and histogram when
 * its count is unchanged (the kernel bumps the count last; commit waits
 * and commits included), logged_blocks when the count of commits is
 * unchanged (the kernel adds to it just before it counts the commit),
 * copyouts_forced when force_copy was 0 then and is now, the
 * reclaim_watermark_{min,max}_pct limits when they were non-zero and
 * log_blocks and max_transaction_blocks are unchanged (the rest of the
 * kernel's inputs is fixed once the journal is loaded), and the commit and
 * limit files and logged_blocks not at all when @prev found them absent.
 * @prev counts only when it was read from this very group (same
 * source_id); pass NULL to read everything.  Files an older module lacks are not an error: without
 * commit_waits, has_commit_stats is false and both commit kinds read 0;
 * without reclaim_watermark_min_pct, has_reclaim_limits is false; without
 * logged_blocks (or without commit statistics), has_logged_blocks is false.
 * Returns 0; -ENOENT/-ENODEV when the group or a file vanished (the journal
 * went away); -EINVAL when a file holds junk (@s is then incomplete and
 * must not be used); other negative errnos from read.
 */
int jt_configfs_read(const char *root, const char *journal, const struct jt_sample *prev,
		     struct jt_sample *s);

/*
 * jt_configfs_write_knob - write @value as "N\n" to the knob file of @knob
 * (force_copy or reclaim_watermark_pct).  Returns 0 or a negative errno
 * (-ENOENT when the journal is gone, -EINVAL when the kernel refused it).
 */
/*
 * jt_configfs_read_knob - read the knob file of @knob of @journal under @root
 * into @value.  Reads nothing else, so it works whatever statistics the
 * module has.  Returns 0 or a negative errno (-ENOENT: the journal is gone).
 */
int jt_configfs_read_knob(const char *root, const char *journal, enum jt_knob knob,
			  int64_t *value);

int jt_configfs_write_knob(const char *root, const char *journal, enum jt_knob knob,
			   int64_t value);

/*
 * jt_configfs_group_exists - whether @journal's group is still under @root:
 * its force_copy file (every version of the module has it) is there.  Tells
 * a statistics file that is missing or unreadable from a journal that went
 * away.
 */
bool jt_configfs_group_exists(const char *root, const char *journal);

/* File name of a knob: "force_copy", "reclaim_watermark_pct". */
const char *jt_knob_file(enum jt_knob knob);

#endif
