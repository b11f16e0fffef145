/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The manager: owns the policy, the journals and every event source (sample
 * timer, signals, netlink, bus); runs the policy core on each sample and
 * applies its decisions through the configfs adapter.
 */
#ifndef JT_MANAGER_H
#define JT_MANAGER_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "advice.h"
#include "conf.h"
#include "persist.h"
#include "policy.h"
#include "sample.h"

#define JT_MOUNTS_MAX 8

struct jt_journal {
	char name[JT_NAME_MAX];
	char *object_path;			/* /org/jbd2tune1/journal/<escaped> */
	char *mounts[JT_MOUNTS_MAX + 1];	/* NULL-terminated, first is MountPoint */
	char *mount_source;			/* mount source of mounts[0], or NULL */
	char *mount_fstype;			/* file system type of mounts[0], or NULL */
	struct jt_journal_policy policy;	/* resolved, with SetMode overrides */
	bool has_mode_override[JT_KNOBS];
	enum jt_mode mode_override[JT_KNOBS];
	struct jt_journal_state state;
	struct jt_sample last;			/* last sample read */
	bool have_sample;
	struct jt_window_stats stats;		/* over the window, for the bus */
	char last_decision[JT_REASON_MAX + 96];
	uint64_t last_decision_realtime_us;
	char last_outcome[JT_REASON_MAX + 96];	/* last verdict on a change, for the bus */
	/* after a revert: when its change may be tried again, CLOCK_REALTIME us; 0 = none */
	uint64_t retry_realtime_us[JT_KNOBS];
	unsigned long reverts[JT_KNOBS];	/* changes undone by the outcome check */
	struct jt_advice_state advice_state;
	char advice[JT_ADVICE_MAX];		/* the standing advice, "" = none (bus: Advice) */
	char advice_device[JT_NAME_MAX + 8];	/* "/dev/" + the name's device part */
	bool seen;				/* in the current scan */
	int write_error[JT_KNOBS];		/* last failed write (-errno), said once */
	int cause;				/* enum jt_cause of the last diagnosis, -1 = none yet */
	int pending_cause;			/* a different cause seen since ..., -1 = none */
	uint64_t pending_since_us;		/* ... this sample time */
	char diagnosis[400];			/* its sentence (bus: Diagnosis) */
	char identity[JT_PERSIST_IDENTITY_MAX];	/* name, device number, ext4 UUID (state file) */
	uint64_t block_size;		/* bytes of a journal block (statvfs of mounts[0]); 0 = unknown */
	char fs_uuid[64];		/* ext4 UUID as udev recorded it (ID_FS_UUID); "" = unknown */
	int save_error;				/* last failed state write (-errno), said once */
	struct jt_journal *next;
};

struct jt_options {
	const char *config_file;	/* main policy file */
	const char *configfs_root;
	const char *bus;		/* "system", "user", "none" or an address */
	bool dry_run, once, no_netlink, verbose;
	bool apply;			/* --once --apply: write what --once decides */
	const char *state_dir;		/* what was learned, per journal; NULL or "" = not kept */
	const char *metrics_dir;	/* the default metrics file's directory (JT_METRICS_DIR_DEFAULT) */
};

struct jt_manager {
	struct jt_options opt;		/* opt.dry_run: --dry-run or [agent] dry_run */
	bool dry_run_cli;		/* --dry-run given */
	char *dropin_dir;
	struct jt_policy policy;
	sd_event *event;
	sd_event_source *timer;
	sd_bus *bus;
	struct jt_netlink *nl;
	struct jt_journal *journals;	/* sorted by name */
	unsigned int n_journals;
	bool ready;			/* READY=1 sent */
	bool said_no_journals;
	int said_metrics;		/* last state logged about the metrics file: 0, 1 written, -errno */
	char *metrics_path;		/* the file last written; removed at exit or when moved */
	bool said_no_commit_stats;	/* outcome checks unavailable: said once */
	bool exiting;
	uint64_t netlink_retry_us;	/* next attempt to find the family, 0 = none */
	int list_error;			/* last error listing the root, said once */
	char **read_failing;		/* journals whose files did not parse, said once */
	char status[640];
	char last_decision_line[JT_NAME_MAX + JT_REASON_MAX + 100];
	unsigned long decisions;
	int cause_cmd;			/* netlink event being handled, if cause_ns */
	uint64_t cause_ns;		/* its kernel CLOCK_MONOTONIC time, 0 = none */
};

/* Allocate; loads the policy (error text into @err, returns -EINVAL). */
int jt_manager_new(const struct jt_options *opt, struct jt_manager **out, char *err, size_t errlen);
void jt_manager_free(struct jt_manager *m);

/*
 * --once: one sample of every journal, print decisions on stdout; written
 * only with --apply (and never with --dry-run).  No trial can run in one
 * sample: a change is reported (and with --apply written) untried.
 */
int jt_manager_run_once(struct jt_manager *m);

/* Set up loop, signals, netlink, bus; run until SIGTERM/SIGINT or bus loss.  Returns exit status. */
int jt_manager_run(struct jt_manager *m);

/* Sample and decide for every journal now (timer, netlink events). */
void jt_manager_sample_all(struct jt_manager *m);

/*
 * jt_manager_reload - re-read the policy; on error keep the old one, log it
 * and return -EINVAL with the message in @err.  A journal whose policy
 * from the files changed forgets its SetMode overrides, administrator
 * take-overs, back-offs and kept changes; the others keep them.
 */
int jt_manager_reload(struct jt_manager *m, char *err, size_t errlen);

/*
 * jt_manager_set_mode - runtime mode of one knob of one journal (until
 * Reload).  @knob "force_copy"|"reclaim"|"lock_delay", @mode "on"|"off"|"auto".
 * Returns 0, -ENOENT (no such journal) or -EINVAL (bad knob/mode).
 */
int jt_manager_set_mode(struct jt_manager *m, const char *journal, const char *knob,
			const char *mode);

struct jt_journal *jt_manager_find(struct jt_manager *m, const char *name);

/* Mode of a knob as the bus shows it: on/off/auto, or "manual" once an admin took over. */
const char *jt_journal_mode(const struct jt_journal *j, enum jt_knob knob);

#endif
