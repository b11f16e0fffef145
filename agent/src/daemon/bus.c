// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * org.jbd2tune1 on D-Bus: the vtables, their small handlers, and the signal
 * helpers the manager calls.  Objects per journal are served by a fallback
 * vtable plus a node enumerator, so they appear and vanish with the
 * manager's list without registering anything per journal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "bus.h"
#include "log.h"

#define JT_ERROR_NO_SUCH_JOURNAL "org.jbd2tune1.Error.NoSuchJournal"
#define JT_ERROR_INVALID_POLICY	 "org.jbd2tune1.Error.InvalidPolicy"
#define MANAGER_IFACE		 "org.jbd2tune1.Manager"
#define JOURNAL_IFACE		 "org.jbd2tune1.Journal"

/* the manager whose policy PolicySections reads (journal objects' userdata is the journal) */
static struct jt_manager *jt_bus_manager;

char *jt_bus_journal_path(const char *name)
{
	char *p = NULL;

	return sd_bus_path_encode(JT_BUS_JOURNAL_PREFIX, name, &p) < 0 ? NULL : p;
}

/* Manager properties */

static int prop_version(sd_bus *bus, const char *path, const char *iface, const char *prop,
			sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append(reply, "s", JT_VERSION);
}

static int prop_dry_run(sd_bus *bus, const char *path, const char *iface, const char *prop,
			sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct jt_manager *m = userdata;

	return sd_bus_message_append(reply, "b", m->opt.dry_run);
}

/* jbd2-tune's jbd2 is loaded: its configfs tree exists (SPEC 1) */
static int prop_module_patched(sd_bus *bus, const char *path, const char *iface, const char *prop,
			       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct jt_manager *m = userdata;

	return sd_bus_message_append(reply, "b", access(m->opt.configfs_root, F_OK) == 0);
}

static int prop_policy_files(sd_bus *bus, const char *path, const char *iface, const char *prop,
			     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct jt_manager *m = userdata;
	size_t i;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "s");
	for (i = 0; r >= 0 && i < m->policy.n_files; i++)
		r = sd_bus_message_append(reply, "s", m->policy.files[i]);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int prop_journals(sd_bus *bus, const char *path, const char *iface, const char *prop,
			 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct jt_manager *m = userdata;
	struct jt_journal *j;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "o");
	for (j = m->journals; r >= 0 && j; j = j->next)
		r = sd_bus_message_append(reply, "o", j->object_path);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* Reload and SetMode: root only, whatever the bus policy let through. */
static int check_root(sd_bus_message *msg, sd_bus_error *error)
{
	sd_bus_creds *c = NULL;
	uid_t uid;
	int r;

	r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT, &c);
	if (r >= 0)
		r = sd_bus_creds_get_euid(c, &uid);
	if (r < 0) {
		sd_bus_creds_unref(c);
		r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_UID | SD_BUS_CREDS_AUGMENT, &c);
		if (r >= 0)
			r = sd_bus_creds_get_uid(c, &uid);
	}
	sd_bus_creds_unref(c);
	if (r < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
					 "Cannot tell who is calling (%s)", strerror(-r));
	if (uid != 0) {
		log_notice("denied %s() to uid %u", sd_bus_message_get_member(msg), (unsigned int)uid);
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
					 "%s() is for root only", sd_bus_message_get_member(msg));
	}
	return 0;
}

static int method_list_journals(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct jt_manager *m = userdata;
	sd_bus_message *reply = NULL;
	struct jt_journal *j;
	int r;

	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(sso)");
	for (j = m->journals; r >= 0 && j; j = j->next)
		r = sd_bus_message_append(reply, "(sso)", j->name,
					  j->mounts[0] ? j->mounts[0] : "", j->object_path);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return r;
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct jt_manager *m = userdata;
	char err[512];
	int r = check_root(msg, error);

	if (r < 0)
		return r;
	if (jt_manager_reload(m, err, sizeof(err)) < 0)
		return sd_bus_error_setf(error, JT_ERROR_INVALID_POLICY,
					 "%s; the old policy stays", err);
	return sd_bus_reply_method_return(msg, NULL);
}

static int method_set_mode(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct jt_manager *m = userdata;
	const char *journal, *knob, *mode;
	int r;

	r = sd_bus_message_read(msg, "sss", &journal, &knob, &mode);
	if (r < 0)
		return r;
	r = check_root(msg, error);
	if (r < 0)
		return r;
	r = jt_manager_set_mode(m, journal, knob, mode);
	if (r == -ENOENT)
		return sd_bus_error_setf(error, JT_ERROR_NO_SUCH_JOURNAL, "No journal '%s'", journal);
	if (r == -EINVAL)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "knob must be force_copy, reclaim or lock_delay and mode on, off or auto (got '%s', '%s')",
					 knob, mode);
	if (r < 0)
		return r;
	return sd_bus_reply_method_return(msg, NULL);
}

/* @c now, µs */
static uint64_t clock_us(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * History(): the last JT_HISTORY_MAX decisions, verdicts and advice of each
 * journal, newest last, kept here from the signal helpers below (the
 * manager calls them for each), for jbd2-tunectl history.  At most
 * JT_HISTORY_JOURNALS journals are remembered (a journal that comes back
 * after a remount keeps its history); the oldest entries go first.
 */
#define JT_HISTORY_MAX		64
#define JT_HISTORY_JOURNALS	256
#define JT_HISTORY_TEXT		(JT_REASON_MAX + 128)

struct history_entry {
	uint64_t realtime_us;
	char kind[12];			/* "decision", "outcome", "advice" */
	char text[JT_HISTORY_TEXT];
};

struct history {
	char name[JT_NAME_MAX];
	unsigned int first, n;		/* ring of JT_HISTORY_MAX entries */
	struct history_entry e[JT_HISTORY_MAX];
	struct history *next;
};

static struct history *histories;
static unsigned int n_histories;

static struct history *history_find(const char *name, bool create)
{
	struct history *h;

	for (h = histories; h; h = h->next)
		if (strcmp(h->name, name) == 0)
			return h;
	if (!create || n_histories >= JT_HISTORY_JOURNALS)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->next = histories;
	histories = h;
	n_histories++;
	return h;
}

static void history_add(const char *journal, const char *kind, const char *text)
{
	struct history *h = history_find(journal, true);
	struct history_entry *e;

	if (!h)
		return;
	if (h->n == JT_HISTORY_MAX)
		h->first = (h->first + 1) % JT_HISTORY_MAX;
	else
		h->n++;
	e = &h->e[(h->first + h->n - 1) % JT_HISTORY_MAX];
	e->realtime_us = clock_us(CLOCK_REALTIME);
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	snprintf(e->text, sizeof(e->text), "%s", text);
}

static void history_free(void)
{
	struct history *h, *next;

	for (h = histories; h; h = next) {
		next = h->next;
		free(h);
	}
	histories = NULL;
	n_histories = 0;
}

static int method_history(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct jt_manager *m = userdata;
	sd_bus_message *reply = NULL;
	const struct history *h;
	const char *journal;
	unsigned int i;
	int r;

	r = sd_bus_message_read(msg, "s", &journal);
	if (r < 0)
		return r;
	h = history_find(journal, false);
	if (!h && !jt_manager_find(m, journal))
		return sd_bus_error_setf(error, JT_ERROR_NO_SUCH_JOURNAL, "No journal '%s'", journal);
	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(tss)");
	for (i = 0; h && r >= 0 && i < h->n; i++) {
		const struct history_entry *e = &h->e[(h->first + i) % JT_HISTORY_MAX];

		r = sd_bus_message_append(reply, "(tss)", e->realtime_us, e->kind, e->text);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_send(NULL, reply, NULL);
	sd_bus_message_unref(reply);
	return r;
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", prop_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("DryRun", "b", prop_dry_run, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("PolicyFiles", "as", prop_policy_files, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("ModulePatched", "b", prop_module_patched, 0, 0),
	SD_BUS_PROPERTY("Journals", "ao", prop_journals, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_METHOD_WITH_ARGS("ListJournals", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sso)", journals),
				method_list_journals, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT,
				method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("SetMode", SD_BUS_ARGS("s", journal, "s", knob, "s", mode),
				SD_BUS_NO_RESULT, method_set_mode, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("History", SD_BUS_ARGS("s", journal),
				SD_BUS_RESULT("a(tss)", entries), method_history,
				SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL_WITH_ARGS("Decision",
				SD_BUS_ARGS("s", journal, "s", knob, "s", old_value, "s", new_value,
					    "s", reason), 0),
	SD_BUS_SIGNAL_WITH_ARGS("Advice", SD_BUS_ARGS("s", journal, "s", text), 0),
	SD_BUS_VTABLE_END
};

/* Journal objects */

static int journal_find(sd_bus *bus, const char *path, const char *iface, void *userdata,
			void **found, sd_bus_error *error)
{
	struct jt_manager *m = userdata;
	struct jt_journal *j;
	char *name = NULL;
	int r;

	r = sd_bus_path_decode(path, JT_BUS_JOURNAL_PREFIX, &name);
	if (r <= 0)
		return 0;
	j = jt_manager_find(m, name);
	free(name);
	if (!j)
		return 0;
	*found = j;
	return 1;
}

static int journal_enumerate(sd_bus *bus, const char *prefix, void *userdata, char ***nodes,
			     sd_bus_error *error)
{
	struct jt_manager *m = userdata;
	struct jt_journal *j;
	char **v = calloc(m->n_journals + 1, sizeof(char *));
	unsigned int n = 0;

	if (!v)
		return -ENOMEM;
	for (j = m->journals; j && n < m->n_journals; j = j->next) {
		v[n] = strdup(j->object_path);
		if (!v[n]) {
			while (n-- > 0)
				free(v[n]);
			free(v);
			return -ENOMEM;
		}
		n++;
	}
	*nodes = v;
	return 0;
}

#define JOURNAL_GETTER(fn, sig, expr)							\
static int fn(sd_bus *bus, const char *path, const char *iface, const char *prop,	\
	      sd_bus_message *reply, void *userdata, sd_bus_error *error)		\
{											\
	const struct jt_journal *j = userdata;						\
	return sd_bus_message_append(reply, sig, expr);					\
}

JOURNAL_GETTER(prop_name, "s", j->name)
JOURNAL_GETTER(prop_mount_point, "s", j->mounts[0] ? j->mounts[0] : "")
JOURNAL_GETTER(prop_force_copy, "b", j->last.knob[JT_KNOB_FORCE_COPY] != 0)
JOURNAL_GETTER(prop_force_copy_mode, "s", jt_journal_mode(j, JT_KNOB_FORCE_COPY))
JOURNAL_GETTER(prop_reclaim_pct, "u", (uint32_t)j->last.knob[JT_KNOB_RECLAIM])
JOURNAL_GETTER(prop_reclaim_mode, "s", jt_journal_mode(j, JT_KNOB_RECLAIM))
JOURNAL_GETTER(prop_lock_delay_ms, "u", (uint32_t)j->last.knob[JT_KNOB_LOCK_DELAY])
JOURNAL_GETTER(prop_lock_delay_mode, "s", jt_journal_mode(j, JT_KNOB_LOCK_DELAY))
JOURNAL_GETTER(prop_log_blocks, "u", (uint32_t)j->last.log_blocks)
JOURNAL_GETTER(prop_free_blocks, "u", (uint32_t)j->last.free_blocks)
JOURNAL_GETTER(prop_free_pct, "d",
	       j->last.log_blocks ? 100.0 * (double)j->last.free_blocks / (double)j->last.log_blocks : 0.0)
JOURNAL_GETTER(prop_shadow_p99, "t", (uint64_t)(j->stats.wait[JT_WAIT_SHADOW].p99_us + 0.5))
JOURNAL_GETTER(prop_space_p99, "t", (uint64_t)(j->stats.wait[JT_WAIT_SPACE].p99_us + 0.5))
JOURNAL_GETTER(prop_locked_p99, "t", (uint64_t)(j->stats.wait[JT_WAIT_LOCKED].p99_us + 0.5))
JOURNAL_GETTER(prop_shadow_waits, "t", j->last.wait[JT_WAIT_SHADOW].waits)
JOURNAL_GETTER(prop_space_waits, "t", j->last.wait[JT_WAIT_SPACE].waits)
JOURNAL_GETTER(prop_locked_waits, "t", j->last.wait[JT_WAIT_LOCKED].waits)
JOURNAL_GETTER(prop_last_decision, "s", j->last_decision)
JOURNAL_GETTER(prop_last_decision_usec, "t", j->last_decision_realtime_us)
JOURNAL_GETTER(prop_commit_waits, "t", j->last.wait[JT_WAIT_COMMIT].waits)
JOURNAL_GETTER(prop_commit_p99, "t", (uint64_t)(j->stats.wait[JT_WAIT_COMMIT].p99_us + 0.5))
JOURNAL_GETTER(prop_commits, "t", j->last.wait[JT_WAIT_COMMIT_DURATION].waits)
JOURNAL_GETTER(prop_outcome_checks, "b", j->have_sample && j->last.has_commit_stats)
JOURNAL_GETTER(prop_last_outcome, "s", j->last_outcome)
JOURNAL_GETTER(prop_reclaim_min_pct, "u", j->last.reclaim_watermark_min_pct)
JOURNAL_GETTER(prop_reclaim_max_pct, "u", j->last.reclaim_watermark_max_pct)

JOURNAL_GETTER(prop_force_copy_retry, "t", j->retry_realtime_us[JT_KNOB_FORCE_COPY])
JOURNAL_GETTER(prop_reclaim_retry, "t", j->retry_realtime_us[JT_KNOB_RECLAIM])
JOURNAL_GETTER(prop_lock_delay_retry, "t", j->retry_realtime_us[JT_KNOB_LOCK_DELAY])
JOURNAL_GETTER(prop_advice, "s", j->advice)
JOURNAL_GETTER(prop_device, "s", j->mount_source ? j->mount_source : "")

/* waits per second of each kind over the window (jbd2-tunectl status) */
static int prop_waits_per_sec(sd_bus *bus, const char *path, const char *iface, const char *prop,
			      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	static const struct { const char *name; enum jt_wait_kind kind; } kinds[] = {
		{ "shadow", JT_WAIT_SHADOW }, { "space", JT_WAIT_SPACE },
		{ "locked", JT_WAIT_LOCKED }, { "commit", JT_WAIT_COMMIT },
	};
	const struct jt_journal *j = userdata;
	double span_s = (double)j->stats.span_us / 1e6;
	unsigned int i;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "{sd}");
	for (i = 0; r >= 0 && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		r = sd_bus_message_append(reply, "{sd}", kinds[i].name,
					  span_s > 0 ? (double)j->stats.wait[kinds[i].kind].waits / span_s : 0.0);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* the resolved policy of the journal, every key as the file spells it */
static int prop_policy(sd_bus *bus, const char *path, const char *iface, const char *prop,
		       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct jt_journal *j = userdata;
	char v[32];
	unsigned int k;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "{ss}");
	for (k = 0; r >= 0 && k < JT_KEYS; k++) {
		if (!jt_key_name((enum jt_key)k))
			continue;
		jt_journal_policy_value(&j->policy, (enum jt_key)k, v, sizeof(v));
		r = sd_bus_message_append(reply, "{ss}", jt_key_name((enum jt_key)k), v);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* the sections that apply to the journal, in file order: "[mount /data] FILE:LINE" */
static int prop_policy_sections(sd_bus *bus, const char *path, const char *iface,
				const char *prop, sd_bus_message *reply, void *userdata,
				sd_bus_error *error)
{
	const struct jt_journal *j = userdata;
	const struct jt_policy *p = &jt_bus_manager->policy;
	char line[1024];
	size_t i;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "s");
	for (i = 0; r >= 0 && i < p->n_sections; i++) {
		const struct jt_section *s = &p->sections[i];

		if (!jt_section_matches(s, j->name, (const char *const *)j->mounts))
			continue;
		snprintf(line, sizeof(line), "[%s %s] %s:%u",
			 s->kind == JT_SECTION_JOURNAL ? "journal" : "mount", s->pattern,
			 s->file ? s->file : "?", s->line);
		r = sd_bus_message_append(reply, "s", line);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}
JOURNAL_GETTER(prop_diagnosis, "s", j->diagnosis)

/* Trial: the change on trial ("" = none); TrialDeadlineUsec: its latest end, realtime */
static int prop_trial(sd_bus *bus, const char *path, const char *iface, const char *prop,
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct jt_journal *j = userdata;
	char text[160];
	uint64_t deadline, mono, real = 0;

	if (jt_trial_describe(&j->policy, &j->state, text, sizeof(text), &deadline)) {
		mono = clock_us(CLOCK_MONOTONIC);
		real = clock_us(CLOCK_REALTIME) + (deadline > mono ? deadline - mono : 0);
	}
	if (strcmp(prop, "Trial") == 0)
		return sd_bus_message_append(reply, "s", text);
	return sd_bus_message_append(reply, "t", real);
}

#define EMITS SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
static const sd_bus_vtable journal_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Name", "s", prop_name, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("MountPoint", "s", prop_mount_point, 0, 0),
	SD_BUS_PROPERTY("ForceCopy", "b", prop_force_copy, 0, EMITS),
	SD_BUS_PROPERTY("ForceCopyMode", "s", prop_force_copy_mode, 0, EMITS),
	SD_BUS_PROPERTY("ReclaimWatermarkPct", "u", prop_reclaim_pct, 0, EMITS),
	SD_BUS_PROPERTY("ReclaimMode", "s", prop_reclaim_mode, 0, EMITS),
	SD_BUS_PROPERTY("LockDelayMs", "u", prop_lock_delay_ms, 0, EMITS),
	SD_BUS_PROPERTY("LockDelayMode", "s", prop_lock_delay_mode, 0, EMITS),
	SD_BUS_PROPERTY("LogBlocks", "u", prop_log_blocks, 0, 0),
	SD_BUS_PROPERTY("FreeBlocks", "u", prop_free_blocks, 0, 0),
	SD_BUS_PROPERTY("FreePct", "d", prop_free_pct, 0, 0),
	SD_BUS_PROPERTY("ShadowWaitP99Usec", "t", prop_shadow_p99, 0, 0),
	SD_BUS_PROPERTY("SpaceWaitP99Usec", "t", prop_space_p99, 0, 0),
	SD_BUS_PROPERTY("LockedWaitP99Usec", "t", prop_locked_p99, 0, 0),
	SD_BUS_PROPERTY("ShadowWaits", "t", prop_shadow_waits, 0, 0),
	SD_BUS_PROPERTY("SpaceWaits", "t", prop_space_waits, 0, 0),
	SD_BUS_PROPERTY("LockedWaits", "t", prop_locked_waits, 0, 0),
	SD_BUS_PROPERTY("LastDecision", "s", prop_last_decision, 0, EMITS),
	SD_BUS_PROPERTY("LastDecisionUsec", "t", prop_last_decision_usec, 0, EMITS),
	SD_BUS_PROPERTY("CommitWaits", "t", prop_commit_waits, 0, 0),
	SD_BUS_PROPERTY("CommitWaitP99Usec", "t", prop_commit_p99, 0, 0),
	SD_BUS_PROPERTY("Commits", "t", prop_commits, 0, 0),
	SD_BUS_PROPERTY("ReclaimWatermarkMinPct", "u", prop_reclaim_min_pct, 0, 0),
	SD_BUS_PROPERTY("ReclaimWatermarkMaxPct", "u", prop_reclaim_max_pct, 0, 0),
	SD_BUS_PROPERTY("OutcomeChecks", "b", prop_outcome_checks, 0, 0),
	SD_BUS_PROPERTY("LastOutcome", "s", prop_last_outcome, 0, EMITS),
	SD_BUS_PROPERTY("ForceCopyRetryUsec", "t", prop_force_copy_retry, 0, EMITS),
	SD_BUS_PROPERTY("ReclaimRetryUsec", "t", prop_reclaim_retry, 0, EMITS),
	SD_BUS_PROPERTY("LockDelayRetryUsec", "t", prop_lock_delay_retry, 0, EMITS),
	SD_BUS_PROPERTY("Advice", "s", prop_advice, 0, EMITS),
	SD_BUS_PROPERTY("Device", "s", prop_device, 0, 0),
	SD_BUS_PROPERTY("WaitsPerSec", "a{sd}", prop_waits_per_sec, 0, 0),
	SD_BUS_PROPERTY("Policy", "a{ss}", prop_policy, 0, 0),
	SD_BUS_PROPERTY("PolicySections", "as", prop_policy_sections, 0, 0),
	SD_BUS_PROPERTY("Diagnosis", "s", prop_diagnosis, 0, EMITS),
	SD_BUS_PROPERTY("Trial", "s", prop_trial, 0, 0),
	SD_BUS_PROPERTY("TrialDeadlineUsec", "t", prop_trial, 0, 0),
	SD_BUS_VTABLE_END
};

/* The bus went away: exit non-zero so systemd restarts us (documented). */
static int on_bus_message(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	struct jt_manager *m = userdata;

	if (!sd_bus_message_is_signal(msg, "org.freedesktop.DBus.Local", "Disconnected"))
		return 0;
	log_error("lost the D-Bus connection; stopping with status 1 so that systemd restarts us");
	sd_event_exit(m->event, 1);
	return 1;
}

int jt_bus_open(struct jt_manager *m)
{
	const char *b = m->opt.bus;
	sd_bus *bus = NULL;
	int r;

	if (strcmp(b, "system") == 0)
		r = sd_bus_open_system(&bus);
	else if (strcmp(b, "user") == 0)
		r = sd_bus_open_user(&bus);
	else {
		r = sd_bus_new(&bus);
		if (r >= 0)
			r = sd_bus_set_address(bus, b);
		if (r >= 0)
			r = sd_bus_set_bus_client(bus, 1);
		if (r >= 0)
			r = sd_bus_start(bus);
	}
	if (r < 0) {
		log_error("cannot connect to the %s bus: %s", b, strerror(-r));
		sd_bus_unref(bus);
		return r;
	}
	m->bus = bus;
	jt_bus_manager = m;
	r = sd_bus_add_filter(bus, NULL, on_bus_message, m);
	if (r >= 0)
		r = sd_bus_add_object_vtable(bus, NULL, JT_BUS_MANAGER_PATH, MANAGER_IFACE,
					     manager_vtable, m);
	if (r >= 0)
		r = sd_bus_add_fallback_vtable(bus, NULL, JT_BUS_JOURNAL_PREFIX, JOURNAL_IFACE,
					       journal_vtable, journal_find, m);
	if (r >= 0)
		r = sd_bus_add_node_enumerator(bus, NULL, JT_BUS_JOURNAL_PREFIX, journal_enumerate, m);
	if (r >= 0)
		r = sd_bus_add_object_manager(bus, NULL, JT_BUS_MANAGER_PATH);
	if (r >= 0)
		r = sd_bus_attach_event(bus, m->event, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0) {
		log_error("cannot set up D-Bus objects: %s", strerror(-r));
		return r;
	}
	r = sd_bus_request_name(bus, JT_BUS_NAME, 0);
	if (r < 0) {
		log_error("cannot own %s on the bus: %s", JT_BUS_NAME, strerror(-r));
		return r;
	}
	return 0;
}

void jt_bus_close(struct jt_manager *m)
{
	if (!m->bus)
		return;
	sd_bus_flush_close_unref(m->bus);
	m->bus = NULL;
	jt_bus_manager = NULL;
	history_free();
}

void jt_bus_journal_added(struct jt_manager *m, struct jt_journal *j)
{
	if (!m->bus)
		return;
	sd_bus_emit_object_added(m->bus, j->object_path);
	sd_bus_emit_properties_changed(m->bus, JT_BUS_MANAGER_PATH, MANAGER_IFACE, "Journals", NULL);
}

void jt_bus_journal_removed(struct jt_manager *m, struct jt_journal *j)
{
	if (!m->bus || m->exiting)
		return;
	/* still in the list: the removal signal lists its interfaces */
	sd_bus_emit_object_removed(m->bus, j->object_path);
	sd_bus_emit_properties_changed(m->bus, JT_BUS_MANAGER_PATH, MANAGER_IFACE, "Journals", NULL);
}

/* The Journal properties of each knob: its value, its retry time. */
static const char *const knob_value_props[JT_KNOBS] = {
	[JT_KNOB_FORCE_COPY] = "ForceCopy",
	[JT_KNOB_RECLAIM] = "ReclaimWatermarkPct",
	[JT_KNOB_LOCK_DELAY] = "LockDelayMs",
};
static const char *const knob_retry_props[JT_KNOBS] = {
	[JT_KNOB_FORCE_COPY] = "ForceCopyRetryUsec",
	[JT_KNOB_RECLAIM] = "ReclaimRetryUsec",
	[JT_KNOB_LOCK_DELAY] = "LockDelayRetryUsec",
};

void jt_bus_decision(struct jt_manager *m, struct jt_journal *j, enum jt_knob knob,
		     int64_t old_value, int64_t new_value, const char *reason)
{
	char o[24], n[24];

	if (!m->bus)
		return;
	snprintf(o, sizeof(o), "%lld", (long long)old_value);
	snprintf(n, sizeof(n), "%lld", (long long)new_value);
	history_add(j->name, "decision", j->last_decision);
	sd_bus_emit_signal(m->bus, JT_BUS_MANAGER_PATH, MANAGER_IFACE, "Decision", "sssss",
			   j->name, jt_knob_name(knob), o, n, reason);
	sd_bus_emit_properties_changed(m->bus, j->object_path, JOURNAL_IFACE,
				       knob_value_props[knob], "LastDecision", "LastDecisionUsec",
				       NULL);
}

void jt_bus_outcome(struct jt_manager *m, struct jt_journal *j, enum jt_knob knob)
{
	if (!m->bus)
		return;
	history_add(j->name, "outcome", j->last_outcome);
	sd_bus_emit_properties_changed(m->bus, j->object_path, JOURNAL_IFACE, "LastOutcome",
				       knob_retry_props[knob], NULL);
}

void jt_bus_modes_changed(struct jt_manager *m, struct jt_journal *j)
{
	if (!m->bus)
		return;
	/* a take-over by an administrator also changed the knob's value; a mode set forgets back-offs */
	sd_bus_emit_properties_changed(m->bus, j->object_path, JOURNAL_IFACE,
				       "ForceCopyMode", "ReclaimMode", "LockDelayMode", "ForceCopy",
				       "ReclaimWatermarkPct", "LockDelayMs", "ForceCopyRetryUsec",
				       "ReclaimRetryUsec", "LockDelayRetryUsec", NULL);
}

void jt_bus_advice(struct jt_manager *m, struct jt_journal *j)
{
	if (!m->bus)
		return;
	history_add(j->name, "advice", j->advice[0] ? j->advice : "advice withdrawn");
	sd_bus_emit_signal(m->bus, JT_BUS_MANAGER_PATH, MANAGER_IFACE, "Advice", "ss", j->name,
			   j->advice);
	sd_bus_emit_properties_changed(m->bus, j->object_path, JOURNAL_IFACE, "Advice", NULL);
}

void jt_bus_diagnosis(struct jt_manager *m, struct jt_journal *j)
{
	if (!m->bus)
		return;
	sd_bus_emit_properties_changed(m->bus, j->object_path, JOURNAL_IFACE, "Diagnosis", NULL);
}

void jt_bus_policy_changed(struct jt_manager *m)
{
	if (!m->bus)
		return;
	sd_bus_emit_properties_changed(m->bus, JT_BUS_MANAGER_PATH, MANAGER_IFACE,
				       "PolicyFiles", "DryRun", NULL);
}
