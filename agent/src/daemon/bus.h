/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * D-Bus adapter (sd-bus): org.jbd2tune1 on the manager's sd-event loop.
 * Only the vtables, their small handlers and the signal helpers live here.
 */
#ifndef JT_BUS_H
#define JT_BUS_H

#include "manager.h"

#define JT_BUS_NAME		"org.jbd2tune1"
#define JT_BUS_MANAGER_PATH	"/org/jbd2tune1"
#define JT_BUS_JOURNAL_PREFIX	"/org/jbd2tune1/journal"

/*
 * jt_bus_open - connect to @m->opt.bus ("system", "user" or an address),
 * register objects, take the name, attach to @m->event.
 * Returns 0 or a negative errno (logged).
 */
int jt_bus_open(struct jt_manager *m);
void jt_bus_close(struct jt_manager *m);

/* Object path of a journal (malloc'd) or NULL. */
char *jt_bus_journal_path(const char *name);

/* Object appeared / is about to vanish (InterfacesAdded/Removed, Journals changed). */
void jt_bus_journal_added(struct jt_manager *m, struct jt_journal *j);
void jt_bus_journal_removed(struct jt_manager *m, struct jt_journal *j);

/* A decision: Decision signal + PropertiesChanged of knob and LastDecision. */
void jt_bus_decision(struct jt_manager *m, struct jt_journal *j, enum jt_knob knob,
		     int64_t old_value, int64_t new_value, const char *reason);

/*
 * A verdict on an earlier change of @knob (j->last_outcome): PropertiesChanged
 * of LastOutcome and the knob's RetryUsec.
 */
void jt_bus_outcome(struct jt_manager *m, struct jt_journal *j, enum jt_knob knob);

/* Mode or managed state changed: PropertiesChanged of the modes, knob values and RetryUsec. */
void jt_bus_modes_changed(struct jt_manager *m, struct jt_journal *j);

/*
 * The journal-size advice of @j changed (j->advice, "" when withdrawn):
 * the manager's Advice signal and PropertiesChanged of Advice.
 */
void jt_bus_advice(struct jt_manager *m, struct jt_journal *j);

/* The diagnosis of @j changed cause (j->diagnosis): PropertiesChanged of Diagnosis. */
void jt_bus_diagnosis(struct jt_manager *m, struct jt_journal *j);

/* PolicyFiles (and maybe DryRun, [agent] dry_run) changed after a reload. */
void jt_bus_policy_changed(struct jt_manager *m);

#endif
