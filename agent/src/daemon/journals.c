// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The manager's journals: found (added, with their mounts, identity and
 * the state an earlier process saved), their policy resolved, what they
 * learned saved, their trial cut short, removed.  journal_fs_info() is
 * the journal-size advice's callback.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>

#include "bus.h"
#include "log.h"
#include "manager.h"
#include "manager-internal.h"
#include "mounts.h"

void journal_free(struct jt_journal *j)
{
	unsigned int i;

	for (i = 0; j->mounts[i]; i++)
		free(j->mounts[i]);
	free(j->mount_source);
	free(j->mount_fstype);
	free(j->object_path);
	free(j);
}

struct jt_journal *jt_manager_find(struct jt_manager *m, const char *name)
{
	struct jt_journal *j;

	for (j = m->journals; j; j = j->next)
		if (strcmp(j->name, name) == 0)
			return j;
	return NULL;
}

const char *jt_journal_mode(const struct jt_journal *j, enum jt_knob knob)
{
	if (j->state.knob[knob].seen && !j->state.knob[knob].managed)
		return "manual";
	return jt_mode_name(jt_knob_mode(&j->policy, knob));
}

/* Policy of @j: the files' sections, then SetMode overrides. */
void journal_resolve(struct jt_manager *m, struct jt_journal *j)
{
	unsigned int k;

	jt_policy_resolve(&m->policy, j->name, (const char *const *)j->mounts, &j->policy);
	for (k = 0; k < JT_KNOBS; k++)
		if (j->has_mode_override[k])
			jt_knob_set_mode(&j->policy, (enum jt_knob)k, j->mode_override[k]);
}

void journal_set_mounts(struct jt_journal *j, const struct jt_mount_table *t)
{
	const char *mp[JT_MOUNTS_MAX + 1];
	const struct jt_mount *first;
	size_t i, n;

	for (i = 0; j->mounts[i]; i++) {
		free(j->mounts[i]);
		j->mounts[i] = NULL;
	}
	free(j->mount_source);
	free(j->mount_fstype);
	j->mount_source = j->mount_fstype = NULL;
	n = jt_mounts_of_journal(t, j->name, mp, JT_MOUNTS_MAX + 1);
	for (i = 0; i < n; i++)
		j->mounts[i] = strdup(mp[i]);	/* NULL on OOM just ends the list */
	first = jt_mounts_first(t, j->name);
	if (first && j->mounts[0]) {
		j->mount_source = strdup(first->source);
		j->mount_fstype = strdup(first->fstype);
	}
	j->block_size = 0;
	if (j->mounts[0]) {
		struct statvfs v;

		/* ext4's journal blocks are its file system blocks */
		if (statvfs(j->mounts[0], &v) == 0)
			j->block_size = v.f_frsize ? v.f_frsize : v.f_bsize;
	}
}

/*
 * What the advice needs to know of @userdata's (a journal's) file system:
 * statvfs of its first mount point (block size, free blocks), the mount's
 * type, and the device to name: the mount source when it is a device node
 * (not the kernel's "/dev/root" alias), else /dev/ and the device part of
 * the journal's name.  Called only when an advice is made.
 */
int journal_fs_info(void *userdata, struct jt_fs_info *out)
{
	struct jt_journal *j = userdata;
	const char *dash = strrchr(j->name, '-');
	struct statvfs v;

	memset(out, 0, sizeof(*out));
	if (!j->mounts[0] || !dash)
		return 0;
	out->mount_point = j->mounts[0];
	out->fstype = j->mount_fstype && *j->mount_fstype ? j->mount_fstype : NULL;
	if (j->mount_source && strncmp(j->mount_source, "/dev/", 5) == 0 &&
	    strcmp(j->mount_source, "/dev/root") != 0) {
		out->device = j->mount_source;
	} else {
		snprintf(j->advice_device, sizeof(j->advice_device), "/dev/%.*s",
			 (int)(dash - j->name), j->name);
		out->device = j->advice_device;
	}
	if (statvfs(j->mounts[0], &v) == 0) {
		out->block_size = v.f_frsize ? v.f_frsize : v.f_bsize;
		out->free_blocks = v.f_bfree;
	}
	return 0;
}

/* Whether what was learned is kept in files (not in --dry-run or --once). */
static bool keeps_state(const struct jt_manager *m)
{
	return m->opt.state_dir && *m->opt.state_dir && !m->opt.dry_run && !m->opt.once;
}

/* First line of @path into @buf without its newline; false if unreadable. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/*
 * The identity of @j's file system, which survives a remount: the
 * journal's name, the device number of its device part
 * (/sys/class/block/DEV/dev; $JBD2_TUNED_SYS_CLASS_BLOCK moves that root
 * for the tests) and the ext4 UUID udev recorded for it (ID_FS_UUID in
 * /run/udev/data/bMAJ:MIN; $JBD2_TUNED_UDEV_DATA); the parts not found are
 * "-".  A state file of another identity (the device was formatted anew)
 * is not used.  udev records the UUID of a new file system some time after
 * mkfs, and a mount can come first (the system test's mkfs + mount, seen
 * there with qemu 10: the journal found with the old UUID, the state file
 * of the restarted agent then "of another file system"), so
 * journal_save() reads it again each time.
 */
static void journal_identity(struct jt_journal *j)
{
	const char *dash = strrchr(j->name, '-');
	const char *sys = getenv("JBD2_TUNED_SYS_CLASS_BLOCK");
	char path[PATH_MAX], dev[32] = "-", uuid[64] = "-", line[256];
	int n = dash ? (int)(dash - j->name) : (int)strlen(j->name);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%.*s/dev", sys ? sys : "/sys/class/block", n, j->name);
	if (!read_line(path, dev, sizeof(dev)) || !dev[0])
		snprintf(dev, sizeof(dev), "-");
	snprintf(path, sizeof(path), "%s/b%s",
		 getenv("JBD2_TUNED_UDEV_DATA") ? getenv("JBD2_TUNED_UDEV_DATA") : "/run/udev/data",
		 dev);
	f = strcmp(dev, "-") ? fopen(path, "re") : NULL;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "E:ID_FS_UUID=", 13) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(uuid, sizeof(uuid), "%.63s", line + 13);
			break;
		}
	if (f)
		fclose(f);
	snprintf(j->identity, sizeof(j->identity), "%s %s %s", j->name, dev, uuid);
	snprintf(j->fs_uuid, sizeof(j->fs_uuid), "%s", strcmp(uuid, "-") ? uuid : "");
}

/* Write what @j learned to its state file; a failure is said once per errno. */
void journal_save(struct jt_manager *m, struct jt_journal *j)
{
	struct jt_persist p;
	unsigned int k;
	int r;

	if (!keeps_state(m))
		return;
	journal_identity(j);	/* udev may have caught up with a new file system */
	memset(&p, 0, sizeof(p));
	snprintf(p.identity, sizeof(p.identity), "%s", j->identity);
	jt_persist_from_state(&j->state, now_us(CLOCK_MONOTONIC), now_us(CLOCK_REALTIME), &p);
	for (k = 0; k < JT_KNOBS; k++) {
		p.knob[k].has_override = j->has_mode_override[k];
		p.knob[k].override = j->mode_override[k];
	}
	r = jt_persist_write(m->opt.state_dir, j->name, &p);
	if (r < 0 && r != j->save_error)
		log_warning("%s: cannot keep what was learned in %s: %s", j->name, m->opt.state_dir,
			    strerror(-r));
	j->save_error = r < 0 ? r : 0;
}

/* Take back what an earlier process learned about @j (before its policy is resolved). */
static void journal_restore(struct jt_manager *m, struct jt_journal *j)
{
	uint64_t mono = now_us(CLOCK_MONOTONIC), real = now_us(CLOCK_REALTIME);
	struct jt_persist p;
	unsigned int line, k;
	int r;

	if (!keeps_state(m))
		return;
	r = jt_persist_read(m->opt.state_dir, j->name, &p, &line);
	if (r == -ENOENT)
		return;
	if (r < 0) {
		log_warning("%s: state file %s/%s.state unusable (%s%s%u), starting afresh", j->name,
			    m->opt.state_dir, j->name, strerror(-r), line ? " at line " : "",
			    line);
		return;
	}
	if (strcmp(p.identity, j->identity) != 0) {
		log_notice("%s: the state file is of another file system (%s, now %s): not used",
			   j->name, p.identity, j->identity);
		jt_persist_remove(m->opt.state_dir, j->name);
		return;
	}
	jt_persist_to_state(&p, mono, real, &j->state);
	for (k = 0; k < JT_KNOBS; k++) {
		const struct jt_knob_state *ks = &j->state.knob[k];

		j->has_mode_override[k] = p.knob[k].has_override;
		j->mode_override[k] = p.knob[k].override;
		if (!p.knob[k].seen)
			continue;
		log_info("%s: %s: restored what was learned (saved %.0f s ago): found %lld%s%s%s%s",
			 j->name, jt_knob_name(k),
			 real > p.saved_realtime_us ? (double)(real - p.saved_realtime_us) / 1e6 : 0.0,
			 (long long)ks->found, ks->managed ? "" : ", taken over by an administrator",
			 ks->kept ? ", a kept change" : "",
			 ks->blocked_until_us > mono ? ", held back for a while" : "",
			 j->has_mode_override[k] ? ", a SetMode() override" : "");
		if (ks->blocked_until_us > mono)
			j->retry_realtime_us[k] = real + (ks->blocked_until_us - mono);
	}
}

/*
 * The seed of a journal's trial order: $JBD2_TUNED_SEED when set (the
 * integration tests fix the order with it), else the clock, mixed with
 * the name so that journals do not switch in step.
 */
static uint64_t journal_seed(const char *name)
{
	const char *env = getenv("JBD2_TUNED_SEED");
	uint64_t h = env && *env ? strtoull(env, NULL, 0) : now_ns(CLOCK_REALTIME);
	const char *p;

	for (p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001B3ULL;
	return h ? h : 1;
}

struct jt_journal *journal_add(struct jt_manager *m, const char *name)
{
	struct jt_journal *j = calloc(1, sizeof(*j)), **p;
	struct jt_mount_table t;

	if (!j)
		return NULL;
	snprintf(j->name, sizeof(j->name), "%s", name);
	j->cause = -1;
	j->pending_cause = -1;
	j->object_path = jt_bus_journal_path(name);
	if (!j->object_path) {
		free(j);
		return NULL;
	}
	jt_journal_state_init(&j->state);
	jt_policy_seed(&j->state, journal_seed(name));
	jt_advice_init(&j->advice_state);
	if (jt_mounts_load(&t) == 0) {
		journal_set_mounts(j, &t);
		jt_mounts_free(&t);
	}
	journal_identity(j);
	journal_restore(m, j);
	journal_resolve(m, j);
	for (p = &m->journals; *p && strcmp((*p)->name, name) < 0; p = &(*p)->next)
		;
	j->next = *p;
	*p = j;
	m->n_journals++;
	if (j->mounts[0])
		log_info("%s: journal found, mounted on %s", name, j->mounts[0]);
	else
		log_info("%s: journal found", name);
	m->said_no_journals = false;
	return j;
}

/*
 * A trial on @j cannot go on (@why): cut it short and write its value
 * before back now, without waiting for a sample (statistics that cannot
 * be read, a journal that drops out of the dump).  A refused write is
 * decided again at the next step or the next call, until a sample reads
 * the value back (jt_policy_undo()).  Returns -ENOENT when the knob's
 * group is gone.
 */
int journal_cut_short(struct jt_manager *m, struct jt_journal *j, const char *why)
{
	struct jt_decision d[JT_KNOBS];
	unsigned int n, i;
	int r = 0;

	jt_policy_cut_short(&j->state, why);
	n = jt_policy_undo(&j->policy, &j->state, now_us(CLOCK_MONOTONIC), !writes_knobs(m), d);
	for (i = 0; i < n && r == 0; i++)
		r = apply(m, j, &d[i]);
	if (n)
		journal_save(m, j);
	return r;
}

void journal_remove(struct jt_manager *m, struct jt_journal *j)
{
	struct jt_journal **p;

	/* a journal that only dropped out of a dump still has its knob: put it back */
	journal_cut_short(m, j, "the journal dropped out of the statistics");
	log_info("%s: journal gone", j->name);
	jt_bus_journal_removed(m, j);
	for (p = &m->journals; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			break;
		}
	m->n_journals--;
	journal_free(j);
}
