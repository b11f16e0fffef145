// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_configfs.c - /sys/kernel/config/jbd2/<journal>/
 *
 * The subsystem "jbd2" has one group per live journal, named after
 * j_devname (as /proc/fs/jbd2/<journal>).  The kernel creates and removes
 * the groups (configfs_register_group() / configfs_unregister_group());
 * the group types have no make_group/make_item, so a user's mkdir fails
 * with EPERM, and registered groups are default groups, so rmdir does too.
 *
 * A group (struct jbd2tune_cfs) is allocated apart from the journal and
 * reference counted by its config_item: when the journal is destroyed the
 * group is unregistered and cut off from the journal (->jt = NULL under
 * ->lock), and it is freed on the last config_item_put().  A file kept
 * open past that point reads and writes -ENOENT: configfs marks the
 * fragment dead and answers for it without calling us.  Our show/store
 * still check ->jt and return -ENODEV, for a call that raced with the
 * removal; either way nobody reaches the freed journal.
 *
 * configfs_unregister_group() locks the parent directory's inode but not
 * the group's own, although it unlinks the group's attribute dirents from
 * the group's list of children, which readdir, lookup, open and close of
 * the group directory use under the group's inode lock alone (and
 * configfs_readdir() drops configfs_dirent_lock in the middle of a step).
 * A readdir of the group during umount so left the readdir cursor beside
 * a freed dirent: "list_del corruption" in configfs_dir_close(), a BUG
 * with configfs_dirent_lock held and every later umount spinning on it
 * (6.1 and 6.12 alike; kmod-readdir-race.sh in tests/vm/tests did it
 * within seconds).  So jbd2tune_configfs_remove() holds the group's inode
 * lock across the call, as rmdir(2) would.  That nests the group outside
 * the subsystem directory, the reverse of the VFS's order, which only two
 * kinds of call take: lock_rename() (the subsystem directory, then a
 * group: a rename between the two) runs under the file system's
 * s_vfs_rename_mutex, which we take first; rmdir(2) of a group locks the
 * group after may_delete(), which refuses with EPERM because the subsystem
 * directory is S_APPEND (users got EPERM before, from configfs; chmod,
 * chown, utimes and setxattr of that directory fail now too).  A rename
 * of a group fails before it locks the group: configfs has no ->rename.
 * The group lock's lockdep subclass is one the VFS never uses for
 * directories (I_MUTEX_XATTR), so lockdep does not tie this nesting to
 * the registering of another group, which locks its new, empty group
 * inside the parent.
 *
 * One more user of the list takes no inode lock: configfs_dir_lseek()
 * moves the file's cursor under configfs_dirent_lock only, and 6.12's
 * detach_attrs() and detach_groups() step through the list without that
 * lock, so an lseek() storm on an open group directory during umount made
 * umount follow a poisoned pointer (general protection fault in
 * detach_groups(), 6.12.95, in 30 s).  On 6.12 a group's directory
 * therefore gets our own file operations, which call configfs's but hold
 * the directory's inode lock (shared) around llseek, from its creation
 * until configfs has emptied it; then configfs's come back, so that a
 * directory still held (a cwd, an O_PATH file) after rmmod never leads
 * into this module.  A file opened between configfs creating the inode
 * and our taking it over keeps configfs's operations for as long as it
 * stays open; the window to open it is the instant of the mount.  Not on
 * 6.1: Debian's 6.1 steps through the list under the lock and skips
 * cursors, and its fops_get() reads i_fop three times, so a change of
 * i_fop under a concurrent open could unbalance the module count.
 */

#include <linux/configfs.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "jbd2tune.h"

/**
 * struct jbd2tune_cfs - configfs group of one journal
 * @group: the group, named j_devname
 * @lock: protects @jt and serialises knob writes
 * @jt: the journal; NULL once it is being destroyed
 */
struct jbd2tune_cfs {
	struct config_group group;
	struct mutex lock;			/* protects jt */
	struct jbd2tune_journal *jt;
};

static bool jbd2tune_cfs_registered;

static struct jbd2tune_cfs *to_jbd2tune_cfs(struct config_item *item)
{
	return container_of(to_config_group(item), struct jbd2tune_cfs, group);
}

/* Returns the journal with cfs->lock held, or NULL (lock not held). */
static struct jbd2tune_journal *jbd2tune_cfs_get(struct jbd2tune_cfs *cfs)
{
	mutex_lock(&cfs->lock);
	if (!cfs->jt) {
		mutex_unlock(&cfs->lock);
		return NULL;
	}
	return cfs->jt;
}

static ssize_t jbd2tune_cfs_show_figure(struct config_item *item, char *page,
					enum jbd2tune_figure fig)
{
	struct jbd2tune_cfs *cfs = to_jbd2tune_cfs(item);
	struct jbd2tune_journal *jt = jbd2tune_cfs_get(cfs);
	ssize_t ret;

	if (!jt)
		return -ENODEV;
	ret = scnprintf(page, PAGE_SIZE, "%llu\n", jbd2tune_figure(jt, fig));
	mutex_unlock(&cfs->lock);
	return ret;
}

static ssize_t jbd2tune_cfs_show_hist(struct config_item *item, char *page,
				      enum jbd2tune_wait_kind kind)
{
	struct jbd2tune_cfs *cfs = to_jbd2tune_cfs(item);
	struct jbd2tune_journal *jt = jbd2tune_cfs_get(cfs);
	struct jbd2tune_wait_snapshot ws;
	ssize_t len = 0;
	int i;

	if (!jt)
		return -ENODEV;
	jbd2tune_wait_snapshot(jt, kind, &ws);
	mutex_unlock(&cfs->lock);
	for (i = 0; i < JBD2TUNE_HIST_BUCKETS; i++)
		len += scnprintf(page + len, PAGE_SIZE - len, "%s%llu",
				 i ? " " : "", ws.hist[i]);
	len += scnprintf(page + len, PAGE_SIZE - len, "\n");
	return len;
}

/* a knob: an int of struct jbd2tune_journal at @offset, READ_ONCE */
static ssize_t jbd2tune_cfs_show_knob(struct config_item *item, char *page,
				      size_t offset)
{
	struct jbd2tune_cfs *cfs = to_jbd2tune_cfs(item);
	struct jbd2tune_journal *jt = jbd2tune_cfs_get(cfs);
	ssize_t ret;

	if (!jt)
		return -ENODEV;
	ret = scnprintf(page, PAGE_SIZE, "%d\n",
			READ_ONCE(*(int *)((char *)jt + offset)));
	mutex_unlock(&cfs->lock);
	return ret;
}

/*
 * Parses at most @max (EINVAL otherwise, the knob untouched), then lets
 * @set check the journal's own limits and store the value.
 */
static ssize_t jbd2tune_cfs_store_knob(struct config_item *item,
				       const char *page, size_t count,
				       unsigned int max,
				       int (*set)(struct jbd2tune_journal *jt,
						  unsigned int val))
{
	struct jbd2tune_cfs *cfs = to_jbd2tune_cfs(item);
	struct jbd2tune_journal *jt;
	unsigned int val;
	int err;

	err = jbd2tune_parse_uint(page, count, max, &val);
	if (err)
		return err;
	jt = jbd2tune_cfs_get(cfs);
	if (!jt)
		return -ENODEV;
	err = set(jt, val);
	mutex_unlock(&cfs->lock);
	return err ? err : count;
}

/* show and store of a knob; CONFIGFS_ATTR() follows each use */
#define JBD2TUNE_KNOB_ATTR(_name, _max)					\
static ssize_t jbd2tune_cfs_##_name##_show(struct config_item *item,	\
					   char *page)			\
{									\
	return jbd2tune_cfs_show_knob(item, page,			\
				      offsetof(struct jbd2tune_journal,	\
					       _name));			\
}									\
static ssize_t jbd2tune_cfs_##_name##_store(struct config_item *item,	\
					    const char *page,		\
					    size_t count)		\
{									\
	return jbd2tune_cfs_store_knob(item, page, count, _max,		\
				       jbd2tune_set_##_name);		\
}

JBD2TUNE_KNOB_ATTR(force_copy, 1)
CONFIGFS_ATTR(jbd2tune_cfs_, force_copy);
JBD2TUNE_KNOB_ATTR(reclaim_watermark_pct, JBD2TUNE_WATERMARK_PCT_MAX)
CONFIGFS_ATTR(jbd2tune_cfs_, reclaim_watermark_pct);
JBD2TUNE_KNOB_ATTR(lock_delay_max_ms, JBD2TUNE_LOCK_DELAY_MS_MAX)
CONFIGFS_ATTR(jbd2tune_cfs_, lock_delay_max_ms);
JBD2TUNE_KNOB_ATTR(force_copy_max_kib, JBD2TUNE_FORCE_COPY_MAX_KIB_MAX)
CONFIGFS_ATTR(jbd2tune_cfs_, force_copy_max_kib);

#define JBD2TUNE_FIGURE_ATTR(_name, _fig)				\
static ssize_t jbd2tune_cfs_##_name##_show(struct config_item *item,	\
					   char *page)			\
{									\
	return jbd2tune_cfs_show_figure(item, page, _fig);		\
}									\
CONFIGFS_ATTR_RO(jbd2tune_cfs_, _name)

#define JBD2TUNE_HIST_ATTR(_name, _kind)				\
static ssize_t jbd2tune_cfs_##_name##_show(struct config_item *item,	\
					   char *page)			\
{									\
	return jbd2tune_cfs_show_hist(item, page, _kind);		\
}									\
CONFIGFS_ATTR_RO(jbd2tune_cfs_, _name)

JBD2TUNE_FIGURE_ATTR(log_blocks, JBD2TUNE_FIG_LOG_BLOCKS);
JBD2TUNE_FIGURE_ATTR(free_blocks, JBD2TUNE_FIG_FREE_BLOCKS);
JBD2TUNE_FIGURE_ATTR(max_transaction_blocks,
		     JBD2TUNE_FIG_MAX_TRANSACTION_BLOCKS);
JBD2TUNE_FIGURE_ATTR(shadow_waits, JBD2TUNE_FIG_SHADOW_WAITS);
JBD2TUNE_FIGURE_ATTR(shadow_wait_us, JBD2TUNE_FIG_SHADOW_WAIT_US);
JBD2TUNE_FIGURE_ATTR(shadow_wait_max_us, JBD2TUNE_FIG_SHADOW_WAIT_MAX_US);
JBD2TUNE_FIGURE_ATTR(space_waits, JBD2TUNE_FIG_SPACE_WAITS);
JBD2TUNE_FIGURE_ATTR(space_wait_us, JBD2TUNE_FIG_SPACE_WAIT_US);
JBD2TUNE_FIGURE_ATTR(space_wait_max_us, JBD2TUNE_FIG_SPACE_WAIT_MAX_US);
JBD2TUNE_FIGURE_ATTR(locked_waits, JBD2TUNE_FIG_LOCKED_WAITS);
JBD2TUNE_FIGURE_ATTR(locked_wait_us, JBD2TUNE_FIG_LOCKED_WAIT_US);
JBD2TUNE_FIGURE_ATTR(locked_wait_max_us, JBD2TUNE_FIG_LOCKED_WAIT_MAX_US);
JBD2TUNE_FIGURE_ATTR(copyouts_forced, JBD2TUNE_FIG_COPYOUTS_FORCED);
JBD2TUNE_FIGURE_ATTR(reclaim_runs, JBD2TUNE_FIG_RECLAIM_RUNS);
JBD2TUNE_FIGURE_ATTR(reclaim_blocks, JBD2TUNE_FIG_RECLAIM_BLOCKS);
JBD2TUNE_HIST_ATTR(shadow_wait_hist, JBD2TUNE_WAIT_SHADOW);
JBD2TUNE_HIST_ATTR(space_wait_hist, JBD2TUNE_WAIT_SPACE);
JBD2TUNE_HIST_ATTR(locked_wait_hist, JBD2TUNE_WAIT_LOCKED);
JBD2TUNE_FIGURE_ATTR(commit_waits, JBD2TUNE_FIG_COMMIT_WAITS);
JBD2TUNE_FIGURE_ATTR(commit_wait_us, JBD2TUNE_FIG_COMMIT_WAIT_US);
JBD2TUNE_FIGURE_ATTR(commit_wait_max_us, JBD2TUNE_FIG_COMMIT_WAIT_MAX_US);
JBD2TUNE_HIST_ATTR(commit_wait_hist, JBD2TUNE_WAIT_COMMIT_WAIT);
JBD2TUNE_FIGURE_ATTR(commits, JBD2TUNE_FIG_COMMITS);
JBD2TUNE_FIGURE_ATTR(commit_time_us, JBD2TUNE_FIG_COMMIT_TIME_US);
JBD2TUNE_FIGURE_ATTR(commit_time_max_us, JBD2TUNE_FIG_COMMIT_TIME_MAX_US);
JBD2TUNE_HIST_ATTR(commit_time_hist, JBD2TUNE_WAIT_COMMIT);
JBD2TUNE_FIGURE_ATTR(copyouts_forced_failed,
		     JBD2TUNE_FIG_COPYOUTS_FORCED_FAILED);
JBD2TUNE_FIGURE_ATTR(reclaim_watermark_min_pct,
		     JBD2TUNE_FIG_RECLAIM_WATERMARK_MIN_PCT);
JBD2TUNE_FIGURE_ATTR(reclaim_watermark_max_pct,
		     JBD2TUNE_FIG_RECLAIM_WATERMARK_MAX_PCT);
JBD2TUNE_FIGURE_ATTR(logged_blocks, JBD2TUNE_FIG_LOGGED_BLOCKS);
JBD2TUNE_FIGURE_ATTR(lock_delays, JBD2TUNE_FIG_LOCK_DELAYS);
JBD2TUNE_FIGURE_ATTR(lock_delay_us, JBD2TUNE_FIG_LOCK_DELAY_US);
JBD2TUNE_FIGURE_ATTR(lock_delay_max_us, JBD2TUNE_FIG_LOCK_DELAY_MAX_US);
JBD2TUNE_HIST_ATTR(lock_delay_hist, JBD2TUNE_WAIT_LOCK_DELAY);
JBD2TUNE_FIGURE_ATTR(checkpoint_commit_waits,
		     JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAITS);
JBD2TUNE_FIGURE_ATTR(checkpoint_commit_wait_us,
		     JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAIT_US);
JBD2TUNE_FIGURE_ATTR(checkpoint_commit_wait_max_us,
		     JBD2TUNE_FIG_CHECKPOINT_COMMIT_WAIT_MAX_US);
JBD2TUNE_HIST_ATTR(checkpoint_commit_wait_hist,
		   JBD2TUNE_WAIT_CHECKPOINT_COMMIT);
JBD2TUNE_FIGURE_ATTR(force_copy_bytes, JBD2TUNE_FIG_FORCE_COPY_BYTES);
JBD2TUNE_FIGURE_ATTR(force_copy_bytes_peak,
		     JBD2TUNE_FIG_FORCE_COPY_BYTES_PEAK);
JBD2TUNE_FIGURE_ATTR(force_copy_stops, JBD2TUNE_FIG_FORCE_COPY_STOPS);
JBD2TUNE_FIGURE_ATTR(copyouts_forced_capped,
		     JBD2TUNE_FIG_COPYOUTS_FORCED_CAPPED);
JBD2TUNE_FIGURE_ATTR(shadow_waits_avoided,
		     JBD2TUNE_FIG_SHADOW_WAITS_AVOIDED);
JBD2TUNE_FIGURE_ATTR(shadow_wait_avoided_us,
		     JBD2TUNE_FIG_SHADOW_WAIT_AVOIDED_US);
JBD2TUNE_FIGURE_ATTR(shadow_wait_avoided_max_us,
		     JBD2TUNE_FIG_SHADOW_WAIT_AVOIDED_MAX_US);
JBD2TUNE_HIST_ATTR(shadow_wait_avoided_hist, JBD2TUNE_WAIT_SHADOW_AVOIDED);
JBD2TUNE_FIGURE_ATTR(shadow_waits_avoided_untimed,
		     JBD2TUNE_FIG_SHADOW_WAITS_AVOIDED_UNTIMED);
JBD2TUNE_FIGURE_ATTR(locked_waits_avoided,
		     JBD2TUNE_FIG_LOCKED_WAITS_AVOIDED);
JBD2TUNE_FIGURE_ATTR(locked_wait_avoided_us,
		     JBD2TUNE_FIG_LOCKED_WAIT_AVOIDED_US);
JBD2TUNE_FIGURE_ATTR(locked_waits_avoided_untimed,
		     JBD2TUNE_FIG_LOCKED_WAITS_AVOIDED_UNTIMED);

static struct configfs_attribute *jbd2tune_cfs_attrs[] = {
	&jbd2tune_cfs_attr_force_copy,
	&jbd2tune_cfs_attr_reclaim_watermark_pct,
	&jbd2tune_cfs_attr_log_blocks,
	&jbd2tune_cfs_attr_free_blocks,
	&jbd2tune_cfs_attr_max_transaction_blocks,
	&jbd2tune_cfs_attr_shadow_waits,
	&jbd2tune_cfs_attr_shadow_wait_us,
	&jbd2tune_cfs_attr_shadow_wait_max_us,
	&jbd2tune_cfs_attr_space_waits,
	&jbd2tune_cfs_attr_space_wait_us,
	&jbd2tune_cfs_attr_space_wait_max_us,
	&jbd2tune_cfs_attr_locked_waits,
	&jbd2tune_cfs_attr_locked_wait_us,
	&jbd2tune_cfs_attr_locked_wait_max_us,
	&jbd2tune_cfs_attr_copyouts_forced,
	&jbd2tune_cfs_attr_reclaim_runs,
	&jbd2tune_cfs_attr_reclaim_blocks,
	&jbd2tune_cfs_attr_shadow_wait_hist,
	&jbd2tune_cfs_attr_space_wait_hist,
	&jbd2tune_cfs_attr_locked_wait_hist,
	&jbd2tune_cfs_attr_commit_waits,
	&jbd2tune_cfs_attr_commit_wait_us,
	&jbd2tune_cfs_attr_commit_wait_max_us,
	&jbd2tune_cfs_attr_commit_wait_hist,
	&jbd2tune_cfs_attr_commits,
	&jbd2tune_cfs_attr_commit_time_us,
	&jbd2tune_cfs_attr_commit_time_max_us,
	&jbd2tune_cfs_attr_commit_time_hist,
	&jbd2tune_cfs_attr_copyouts_forced_failed,
	&jbd2tune_cfs_attr_reclaim_watermark_min_pct,
	&jbd2tune_cfs_attr_reclaim_watermark_max_pct,
	&jbd2tune_cfs_attr_logged_blocks,
	&jbd2tune_cfs_attr_lock_delay_max_ms,
	&jbd2tune_cfs_attr_lock_delays,
	&jbd2tune_cfs_attr_lock_delay_us,
	&jbd2tune_cfs_attr_lock_delay_max_us,
	&jbd2tune_cfs_attr_lock_delay_hist,
	&jbd2tune_cfs_attr_checkpoint_commit_waits,
	&jbd2tune_cfs_attr_checkpoint_commit_wait_us,
	&jbd2tune_cfs_attr_checkpoint_commit_wait_max_us,
	&jbd2tune_cfs_attr_checkpoint_commit_wait_hist,
	&jbd2tune_cfs_attr_force_copy_max_kib,
	&jbd2tune_cfs_attr_force_copy_bytes,
	&jbd2tune_cfs_attr_force_copy_bytes_peak,
	&jbd2tune_cfs_attr_force_copy_stops,
	&jbd2tune_cfs_attr_copyouts_forced_capped,
	&jbd2tune_cfs_attr_shadow_waits_avoided,
	&jbd2tune_cfs_attr_shadow_wait_avoided_us,
	&jbd2tune_cfs_attr_shadow_wait_avoided_max_us,
	&jbd2tune_cfs_attr_shadow_wait_avoided_hist,
	&jbd2tune_cfs_attr_shadow_waits_avoided_untimed,
	&jbd2tune_cfs_attr_locked_waits_avoided,
	&jbd2tune_cfs_attr_locked_wait_avoided_us,
	&jbd2tune_cfs_attr_locked_waits_avoided_untimed,
	NULL,
};

/* see the head of the file: 6.1 needs no llseek of ours (Kbuild.inc) */
#ifdef JBD2TUNE_CFS_OWN_LLSEEK
static const bool jbd2tune_cfs_own_llseek = true;
#else
static const bool jbd2tune_cfs_own_llseek;
#endif

/*
 * configfs's directory operations, taken from the subsystem directory at
 * init; a group directory's calls go to them through the ones below.
 */
static const struct file_operations *jbd2tune_cfs_dir_ops;

static int jbd2tune_cfs_dir_open(struct inode *inode, struct file *file)
{
	return jbd2tune_cfs_dir_ops->open(inode, file);
}

static int jbd2tune_cfs_dir_release(struct inode *inode, struct file *file)
{
	return jbd2tune_cfs_dir_ops->release(inode, file);
}

/* configfs moves the cursor in the group's list: not while it is emptied */
static loff_t jbd2tune_cfs_dir_llseek(struct file *file, loff_t offset,
				      int whence)
{
	struct inode *dir = file_inode(file);
	loff_t ret;

	inode_lock_shared(dir);
	ret = jbd2tune_cfs_dir_ops->llseek(file, offset, whence);
	inode_unlock_shared(dir);
	return ret;
}

static int jbd2tune_cfs_dir_iterate(struct file *file, struct dir_context *ctx)
{
	return jbd2tune_cfs_dir_ops->iterate_shared(file, ctx);
}

/* owner: a file opened with these keeps them (and the module) in place */
static const struct file_operations jbd2tune_cfs_group_dir_fops = {
	.owner		= THIS_MODULE,
	.open		= jbd2tune_cfs_dir_open,
	.release	= jbd2tune_cfs_dir_release,
	.llseek		= jbd2tune_cfs_dir_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= jbd2tune_cfs_dir_iterate,
};

static void jbd2tune_cfs_release(struct config_item *item)
{
	kfree(to_jbd2tune_cfs(item));
}

static struct configfs_item_operations jbd2tune_cfs_item_ops = {
	.release	= jbd2tune_cfs_release,
};

static const struct config_item_type jbd2tune_journal_type = {
	.ct_item_ops	= &jbd2tune_cfs_item_ops,
	.ct_attrs	= jbd2tune_cfs_attrs,
	.ct_owner	= THIS_MODULE,
};

/* No ct_group_ops: users can neither mkdir nor rmdir in the tree. */
static const struct config_item_type jbd2tune_root_type = {
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem jbd2tune_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "jbd2",
			.ci_type	= &jbd2tune_root_type,
		},
	},
};

/**
 * jbd2tune_configfs_add() - create the configfs group of a journal
 * @jt: the journal, its j_devname set
 *
 * May sleep.  Failure (no memory, a duplicate name) is logged and leaves
 * the journal without a group.
 */
void jbd2tune_configfs_add(struct jbd2tune_journal *jt)
{
	struct jbd2tune_cfs *cfs;
	struct inode *dir;
	int err;

	if (!jbd2tune_cfs_registered)
		return;
	cfs = kzalloc(sizeof(*cfs), GFP_KERNEL);
	if (!cfs) {
		err = -ENOMEM;
		goto fail;
	}
	mutex_init(&cfs->lock);
	cfs->jt = jt;
	config_group_init_type_name(&cfs->group, jt->journal.j_devname,
				    &jbd2tune_journal_type);
	err = configfs_register_group(&jbd2tune_subsys.su_group, &cfs->group);
	if (err) {
		config_group_put(&cfs->group);
		goto fail;
	}
	/*
	 * our llseek for the group's directory (see the head of the file);
	 * do_dentry_open() reads i_fop without a lock, once (fops_get())
	 */
	dir = d_inode(cfs->group.cg_item.ci_dentry);
	if (jbd2tune_cfs_own_llseek) {
		if (dir->i_fop == jbd2tune_cfs_dir_ops)
			WRITE_ONCE(dir->i_fop, &jbd2tune_cfs_group_dir_fops);
		else
			pr_warn_once("jbd2: configfs directories have unknown file operations; lseek during umount is not guarded\n");
	}
	jt->cfs = cfs;
	return;
fail:
	pr_warn("jbd2: %s: no configfs group: %d\n", jt->journal.j_devname, err);
}

/**
 * jbd2tune_configfs_remove() - remove the configfs group of a journal
 * @jt: the journal
 *
 * Waits for readdirs, lookups, opens and closes of the group directory in
 * flight (its inode lock) and for running show/store callbacks (configfs),
 * and cuts the group off the journal; open files fail with -ENODEV from
 * now on.  The group itself is freed on its last reference.  Takes
 * configfs's s_vfs_rename_mutex, the group's and then the subsystem
 * directory's inode lock; the caller holds none of them.  May sleep.
 */
void jbd2tune_configfs_remove(struct jbd2tune_journal *jt)
{
	struct jbd2tune_cfs *cfs = jt->cfs;
	struct dentry *dentry;
	struct super_block *sb;

	if (!cfs)
		return;
	/* the group locked while configfs empties it: see the file's head */
	dentry = dget(cfs->group.cg_item.ci_dentry);
	sb = dentry->d_sb;
	mutex_lock(&sb->s_vfs_rename_mutex);
	inode_lock_nested(d_inode(dentry), I_MUTEX_XATTR);
	configfs_unregister_group(&cfs->group);
	/* emptied: configfs's operations again, none of this module's */
	if (d_inode(dentry)->i_fop == &jbd2tune_cfs_group_dir_fops)
		WRITE_ONCE(d_inode(dentry)->i_fop, jbd2tune_cfs_dir_ops);
	inode_unlock(d_inode(dentry));
	mutex_unlock(&sb->s_vfs_rename_mutex);
	dput(dentry);
	mutex_lock(&cfs->lock);
	cfs->jt = NULL;
	mutex_unlock(&cfs->lock);
	jt->cfs = NULL;
	config_group_put(&cfs->group);
}

/**
 * jbd2tune_configfs_init() - register the "jbd2" configfs subsystem
 *
 * Return: 0 or a negative errno.
 */
int jbd2tune_configfs_init(void)
{
	struct inode *root;
	int err;

	config_group_init(&jbd2tune_subsys.su_group);
	mutex_init(&jbd2tune_subsys.su_mutex);
	err = configfs_register_subsystem(&jbd2tune_subsys);
	if (err)
		return err;
	/*
	 * rmdir(2) of a group fails with EPERM either way; S_APPEND makes it
	 * fail before the VFS locks the group (see the head of the file).
	 */
	root = d_inode(jbd2tune_subsys.su_group.cg_item.ci_dentry);
	inode_lock(root);
	root->i_flags |= S_APPEND;
	inode_unlock(root);
	/* configfs_dir_operations: every configfs directory has them */
	jbd2tune_cfs_dir_ops = root->i_fop;
	jbd2tune_cfs_registered = true;
	return 0;
}

/**
 * jbd2tune_configfs_exit() - unregister the subsystem
 *
 * Called at module exit, when no journal and so no group is left: the
 * locking of jbd2tune_configfs_remove() is not needed here.
 */
void jbd2tune_configfs_exit(void)
{
	if (jbd2tune_cfs_registered)
		configfs_unregister_subsystem(&jbd2tune_subsys);
	jbd2tune_cfs_registered = false;
}
