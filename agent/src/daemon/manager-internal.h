/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the manager's files share among themselves (manager.c,
 * journals.c, decisions.c), and nothing else includes: the interface to
 * the rest of the daemon is manager.h.
 */
#ifndef JT_MANAGER_INTERNAL_H
#define JT_MANAGER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "advice.h"
#include "manager.h"
#include "mounts.h"
#include "policy.h"

/* manager.c */

/* @clock now, in ns. */
uint64_t now_ns(clockid_t clock);
/* @clock now, in µs. */
uint64_t now_us(clockid_t clock);
/* The name of netlink event @cmd, for the log. */
const char *event_name(int cmd);
/* The policy core's interval and window, from the [agent] policy. */
struct jt_timing timing(const struct jt_manager *m);

/* journals.c */

/* Free @j and what it owns. */
void journal_free(struct jt_journal *j);
/* Policy of @j: the files' sections, then SetMode overrides. */
void journal_resolve(struct jt_manager *m, struct jt_journal *j);
/* @j's mount points, source, type and block size from mount table @t. */
void journal_set_mounts(struct jt_journal *j, const struct jt_mount_table *t);
/* The journal-size advice's callback: what it needs of @userdata's (a journal's) file system. */
int journal_fs_info(void *userdata, struct jt_fs_info *out);
/* Write what @j learned to its state file; a failure is said once per errno. */
void journal_save(struct jt_manager *m, struct jt_journal *j);
/* A new journal @name: its mounts, identity, saved state and policy; NULL on OOM. */
struct jt_journal *journal_add(struct jt_manager *m, const char *name);
/* Cut @j's trial short (@why) and write its value before back now; -ENOENT when gone. */
int journal_cut_short(struct jt_manager *m, struct jt_journal *j, const char *why);
/* Drop @j (its trial cut short first), announcing it on the bus. */
void journal_remove(struct jt_manager *m, struct jt_journal *j);

/* decisions.c */

/* Whether decisions are written: not in --dry-run, and in --once only with --apply. */
bool writes_knobs(const struct jt_manager *m);
/* Log, write and announce one decision.  Returns -ENOENT when the journal is gone. */
int apply(struct jt_manager *m, struct jt_journal *j, const struct jt_decision *d);
/* Run the policy core on one sample of @j.  Returns -ENOENT when the journal went away. */
int journal_evaluate(struct jt_manager *m, struct jt_journal *j, const struct jt_sample *s);

#endif
