// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jbd2-tuned manager: state and event sources.  Each sample of a journal
 * goes through the policy core (policy.c); the decisions that come back are
 * logged once, written through configfs (unless --dry-run) and announced on
 * the bus.  Nothing here decides anything by itself.
 *
 * This file: the manager's life (new, reload, SetMode, run, free), the
 * event sources (timer, signals, netlink, mountinfo), sampling, the
 * metrics file and the restore on exit.  The journals are in journals.c,
 * what is done with a sample's decisions in decisions.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "bus.h"
#include "configfs.h"
#include "log.h"
#include "manager.h"
#include "manager-internal.h"
#include "metrics.h"
#include "mounts.h"
#include "netlink.h"

uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t now_us(clockid_t clock)
{
	return now_ns(clock) / 1000ULL;
}

const char *event_name(int cmd)
{
	switch (cmd) {
	case JBD2TUNE_CMD_JOURNAL_ADD:
		return "JOURNAL_ADD";
	case JBD2TUNE_CMD_JOURNAL_REMOVE:
		return "JOURNAL_REMOVE";
	case JBD2TUNE_CMD_SPACE_LOW:
		return "SPACE_LOW";
	case JBD2TUNE_CMD_STALL:
		return "STALL";
	}
	return "unknown";
}

struct jt_timing timing(const struct jt_manager *m)
{
	return (struct jt_timing){
		.interval_us = (uint64_t)m->policy.agent.interval_ms * 1000ULL,
		.window_us = (uint64_t)m->policy.agent.window_s * 1000000ULL,
	};
}

int jt_manager_new(const struct jt_options *opt, struct jt_manager **out, char *err, size_t errlen)
{
	struct jt_manager *m = calloc(1, sizeof(*m));
	int r;

	if (!m)
		return -ENOMEM;
	m->opt = *opt;
	if (asprintf(&m->dropin_dir, "%s.d", opt->config_file) < 0) {
		free(m);
		return -ENOMEM;
	}
	r = jt_policy_load(opt->config_file, m->dropin_dir, &m->policy, err, errlen);
	if (r < 0) {
		free(m->dropin_dir);
		free(m);
		return r;
	}
	m->dry_run_cli = opt->dry_run;
	m->opt.dry_run = opt->dry_run || m->policy.agent.dry_run;
	*out = m;
	return 0;
}

/*
 * Remove the metrics file written last: node_exporter then drops the
 * series, and a Prometheus alert (Jbd2TunedMetricsGone) says the agent
 * stopped; a file left behind by a crash goes stale instead.
 */
static void drop_metrics(struct jt_manager *m)
{
	if (!m->metrics_path)
		return;
	if (unlink(m->metrics_path) < 0 && errno != ENOENT)
		log_debug("cannot remove %s: %s", m->metrics_path, strerror(errno));
	free(m->metrics_path);
	m->metrics_path = NULL;
}

/*
 * Write the metrics file: the policy's metrics_file, or with none given
 * JT_METRICS_FILE_NAME in opt.metrics_dir while that directory exists
 * (node_exporter installed).  Each change between written, not written
 * and the reason is logged once.
 */
static void write_metrics(struct jt_manager *m)
{
	const struct jt_agent_policy *a = &m->policy.agent;
	const char *dir = m->opt.metrics_dir ? m->opt.metrics_dir : JT_METRICS_DIR_DEFAULT;
	char path[PATH_MAX];
	int r;

	if (m->opt.once)
		return;		/* a report, not a service: nothing to scrape */
	if (a->metrics_file_set && !a->metrics_file) {
		drop_metrics(m);
		return;
	}
	if (a->metrics_file_set)
		snprintf(path, sizeof(path), "%s", a->metrics_file);
	else if (access(dir, W_OK) == 0)
		snprintf(path, sizeof(path), "%s/%s", dir, JT_METRICS_FILE_NAME);
	else {
		drop_metrics(m);
		if (m->said_metrics != -ENOENT)
			log_info("no metrics file: %s is missing (prometheus-node-exporter, whose textfile collector reads it, is not installed) or not writable (installed after the agent started: restart the agent); metrics_file in [agent] names another place",
				 dir);
		m->said_metrics = -ENOENT;
		return;
	}
	if (m->metrics_path && strcmp(m->metrics_path, path) != 0)
		drop_metrics(m);
	r = jt_metrics_write(m, path);
	if (r == 0 && !m->metrics_path)
		m->metrics_path = strdup(path);
	if (r < 0 && m->said_metrics != r)
		log_warning("cannot write the metrics file %s: %s; trying again each interval", path,
			    strerror(-r));
	else if (r == 0 && m->said_metrics != 1)
		log_info("metrics in %s, rewritten each interval", path);
	m->said_metrics = r < 0 ? r : 1;
}

void jt_manager_free(struct jt_manager *m)
{
	struct jt_journal *j, *next;

	if (!m)
		return;
	drop_metrics(m);
	for (j = m->journals; j; j = next) {
		next = j->next;
		journal_free(j);
	}
	jt_bus_close(m);
	jt_netlink_free(m->nl);
	sd_event_source_disable_unref(m->timer);
	sd_event_unref(m->event);
	jt_policy_free(&m->policy);
	jt_strv_free(m->read_failing);
	free(m->dropin_dir);
	free(m);
}

/*
 * Remember which journals' files failed to parse, so that a broken group is
 * reported once rather than every interval.  Returns true when the state of
 * @name changed (failing now, or well again).
 */
static bool note_read_failure(struct jt_manager *m, const char *name, bool failing)
{
	size_t i, n = 0;
	char **v;

	while (m->read_failing && m->read_failing[n])
		n++;
	for (i = 0; i < n && strcmp(m->read_failing[i], name) != 0; i++)
		;
	if (i < n) {		/* was failing */
		if (failing)
			return false;
		free(m->read_failing[i]);
		memmove(&m->read_failing[i], &m->read_failing[i + 1], (n - i) * sizeof(*v));
		return true;
	}
	if (!failing)
		return false;
	v = realloc(m->read_failing, (n + 2) * sizeof(*v));
	if (!v)
		return true;
	m->read_failing = v;
	v[n] = strdup(name);
	v[n + 1] = NULL;
	return true;
}

/*
 * Evaluate sample @s (time_us set) of journal @name, known as @j or NULL
 * when new: a new journal is added and announced on the bus once its first
 * sample evaluated; one whose evaluation fails is dropped.  Shared by the
 * configfs and the netlink sampling paths.
 */
static void take_sample(struct jt_manager *m, const char *name,
			struct jt_journal *j, const struct jt_sample *s)
{
	bool added = false;

	if (!j) {
		j = journal_add(m, name);
		if (!j)
			return;
		added = true;
	}
	j->seen = true;
	if (journal_evaluate(m, j, s) < 0) {
		journal_remove(m, j);
		return;
	}
	if (added)
		jt_bus_journal_added(m, j);
}

/* Read @name from configfs and evaluate it; adds/removes the journal as needed. */
static void sample_configfs_one(struct jt_manager *m, const char *name, uint64_t now)
{
	struct jt_journal *j = jt_manager_find(m, name);
	struct jt_sample s;
	int r;

	r = jt_configfs_read(m->opt.configfs_root, name, j && j->have_sample ? &j->last : NULL, &s);
	if ((r == -ENOENT || r == -ENODEV) && !(j && jt_configfs_group_exists(m->opt.configfs_root, name))) {
		if (j)
			journal_remove(m, j);
		return;
	}
	if (r < 0) {
		/* a file missing from a group that is still there: unreadable, not gone */
		if (note_read_failure(m, name, true))
			log_warning("%s: cannot read its configfs files: %s; skipping it until they read well",
				    name, strerror(-r));
		if (j) {
			j->seen = true;
			/* no sample, no verdict: a trial must not stay at its untried value */
			journal_cut_short(m, j, "its statistics cannot be read");
		}
		return;
	}
	if (note_read_failure(m, name, false))
		log_info("%s: its configfs files read well again", name);
	s.time_us = now;
	take_sample(m, name, j, &s);
}

/* Context of a netlink request: every reply is stamped with one clock read. */
struct nl_request {
	struct jt_manager *m;
	uint64_t time_us;
};

static void on_nl_sample(void *userdata, const char *name, const struct jt_sample *in)
{
	const struct nl_request *rq = userdata;
	struct jt_sample s = *in;

	s.time_us = rq->time_us;
	take_sample(rq->m, name, jt_manager_find(rq->m, name), &s);
}

static void update_status(struct jt_manager *m)
{
	char status[sizeof(m->status)];

	if (m->n_journals == 0)
		snprintf(status, sizeof(status), "No journal yet under %s%s", m->opt.configfs_root,
			 m->opt.dry_run ? " (dry-run)" : "");
	else
		snprintf(status, sizeof(status), "%u journal%s%s; last decision: %.560s", m->n_journals,
			 m->n_journals == 1 ? "" : "s", m->opt.dry_run ? " (dry-run)" : "",
			 m->decisions ? m->last_decision_line : "none");
	/* (a long decision is cut: STATUS= is a one-line summary) */
	if (strcmp(status, m->status) != 0) {
		snprintf(m->status, sizeof(m->status), "%s", status);
		if (!m->opt.once)
			sd_notifyf(0, "STATUS=%s", status);
	}
}

/* Look for a missing netlink family again this often. */
#define JT_NETLINK_RETRY_US (60ULL * 1000000ULL)

static void on_netlink_event(void *userdata, int cmd, const char *journal,
			     uint64_t timestamp_ns);

void jt_manager_sample_all(struct jt_manager *m)
{
	struct jt_journal *j, *next;
	uint64_t now = now_us(CLOCK_MONOTONIC);
	char **names = NULL;
	size_t i;
	int r;

	for (j = m->journals; j; j = j->next)
		j->seen = false;
	if (!m->nl && m->netlink_retry_us && now >= m->netlink_retry_us) {
		/* the module may have been loaded since: look for the family again */
		if (jt_netlink_open(m->event, on_netlink_event, m, &m->nl) == 0)
			log_notice("netlink family " JBD2TUNE_GENL_NAME " found: sampling through it");
		m->netlink_retry_us = m->nl ? 0 : now + JT_NETLINK_RETRY_US;
	}
	r = -1;
	if (m->nl) {
		struct nl_request rq = { .m = m, .time_us = now };

		r = jt_netlink_dump(m->nl, on_nl_sample, &rq);
		if (r == -EINTR) {
			/* incomplete: drop nobody now, the next dump (or event) tells */
			for (j = m->journals; j; j = j->next)
				j->seen = true;
			r = 0;
		} else if (r < 0) {
			log_warning("netlink dump failed: %s; reading configfs instead", strerror(-r));
		}
	}
	if (r < 0) {
		r = jt_configfs_list(m->opt.configfs_root, &names);
		if (r < 0 && r != -ENOENT && r != m->list_error)
			log_warning("cannot list %s: %s", m->opt.configfs_root, strerror(-r));
		m->list_error = r < 0 ? r : 0;
		for (i = 0; names && names[i]; i++)
			sample_configfs_one(m, names[i], now);
		jt_strv_free(names);
	}
	for (j = m->journals; j; j = next) {
		next = j->next;
		if (!j->seen)
			journal_remove(m, j);
	}
	if (m->n_journals == 0 && !m->said_no_journals) {
		log_info("no journal under %s yet; watching for one to appear", m->opt.configfs_root);
		m->said_no_journals = true;
	}
	update_status(m);
	write_metrics(m);
	if (!m->ready && !m->opt.once) {
		m->ready = true;
		sd_notify(0, "READY=1");
	}
}

int jt_manager_run_once(struct jt_manager *m)
{
	struct jt_journal *j;
	struct jt_timing t = timing(m);
	char **names = NULL;
	size_t i;
	int r;

	/*
	 * One sample has no earlier baseline, so the counters since the journal
	 * was set up stand in for the window: feed a zeroed baseline first.
	 */
	r = jt_configfs_list(m->opt.configfs_root, &names);
	if (r < 0 && r != -ENOENT) {
		log_error("cannot list %s: %s", m->opt.configfs_root, strerror(-r));
		jt_strv_free(names);
		return 1;
	}
	for (i = 0; names && names[i]; i++) {
		struct jt_sample s, zero;

		r = jt_configfs_read(m->opt.configfs_root, names[i], NULL, &s);
		if (r < 0) {
			log_warning("%s: cannot read its configfs files: %s", names[i], strerror(-r));
			continue;
		}
		j = journal_add(m, names[i]);
		if (!j)
			continue;
		s.time_us = now_us(CLOCK_MONOTONIC) + t.window_us;
		memset(&zero, 0, sizeof(zero));
		memcpy(zero.knob, s.knob, sizeof(zero.knob));
		zero.time_us = s.time_us - t.window_us;
		jt_policy_baseline(&j->state, &zero, &t);
		journal_evaluate(m, j, &s);
	}
	if (!names || !names[0])
		printf("no journal under %s\n", m->opt.configfs_root);
	jt_strv_free(names);
	return 0;
}

static void restore_knobs(struct jt_manager *m);

int jt_manager_reload(struct jt_manager *m, char *err, size_t errlen)
{
	struct jt_journal_policy *before = NULL;
	struct jt_policy p;
	struct jt_journal *j;
	unsigned int k, i;
	int r;

	r = jt_policy_load(m->opt.config_file, m->dropin_dir, &p, err, errlen);
	if (r < 0) {
		jt_log_event(LOG_ERR, JT_LOG_POLICY_REFUSED, NULL, NULL, NULL, NULL, err,
			     "reload failed, keeping the old policy: %s", err);
		return -EINVAL;
	}
	/* each journal's policy from the files before, to tell which ones changed */
	if (m->n_journals)
		before = calloc(m->n_journals, sizeof(*before));
	for (j = m->journals, i = 0; j && before; j = j->next, i++)
		jt_policy_resolve(&m->policy, j->name, (const char *const *)j->mounts, &before[i]);
	jt_policy_free(&m->policy);
	m->policy = p;
	if (m->dry_run_cli || p.agent.dry_run) {
		/* [agent] dry_run turned on: put back what we wrote, as on stop */
		if (!m->opt.dry_run) {
			restore_knobs(m);
			log_notice("dry_run = true: deciding and logging, writing no knob");
		}
		m->opt.dry_run = true;
	} else if (m->opt.dry_run) {
		/* the dry run's values were never written: start from the knobs as they are */
		for (j = m->journals; j; j = j->next)
			for (k = 0; k < JT_KNOBS; k++)
				if (j->state.knob[k].seen)
					jt_policy_write_failed(&j->state, (enum jt_knob)k,
							       j->state.knob[k].expected);
		m->opt.dry_run = false;
		log_notice("dry_run = false: writing knobs again");
	}
	for (j = m->journals, i = 0; j; j = j->next, i++) {
		struct jt_journal_policy after;

		jt_policy_resolve(&m->policy, j->name, (const char *const *)j->mounts, &after);
		if (before && memcmp(&before[i], &after, sizeof(after)) == 0) {
			journal_resolve(m, j);
			continue;	/* the same policy: everything learned still holds */
		}
		for (k = 0; k < JT_KNOBS; k++) {
			j->has_mode_override[k] = false;
			j->retry_realtime_us[k] = 0;
			jt_policy_forget(&j->state, (enum jt_knob)k);
		}
		log_info("%s: its policy changed: overrides, take-overs, back-offs and kept changes forgotten",
			 j->name);
		journal_resolve(m, j);
		jt_bus_modes_changed(m, j);
		journal_save(m, j);
	}
	free(before);
	log_info("policy reloaded from %zu file%s", m->policy.n_files,
		 m->policy.n_files == 1 ? "" : "s");
	jt_bus_policy_changed(m);
	if (m->timer)
		sd_event_source_set_time_relative(m->timer, timing(m).interval_us);
	return 0;
}

int jt_manager_set_mode(struct jt_manager *m, const char *journal, const char *knob,
			const char *mode)
{
	struct jt_journal *j = jt_manager_find(m, journal);
	unsigned int k;
	enum jt_mode md;

	for (k = 0; k < JT_KNOBS; k++)
		if (strcmp(knob, jt_knob_name((enum jt_knob)k)) == 0)
			break;
	if (k == JT_KNOBS)
		return -EINVAL;
	if (jt_mode_parse(mode, &md) < 0)
		return -EINVAL;
	if (!j)
		return -ENOENT;
	j->has_mode_override[k] = true;
	j->mode_override[k] = md;
	jt_policy_manage_again(&j->state, k);
	journal_resolve(m, j);
	journal_save(m, j);
	log_notice("%s: %s mode set to %s over D-Bus", j->name, knob, mode);
	jt_bus_modes_changed(m, j);
	/* act on it now rather than at the next tick */
	if (!m->nl)
		sample_configfs_one(m, journal, now_us(CLOCK_MONOTONIC));
	else
		jt_manager_sample_all(m);
	return 0;
}

/* Put back every knob the agent changed and still manages. */
static void restore_knobs(struct jt_manager *m)
{
	struct jt_journal *j;
	unsigned int k;

	if (m->opt.dry_run)
		return;
	for (j = m->journals; j; j = j->next) {
		for (k = 0; k < JT_KNOBS; k++) {
			struct jt_knob_state *ks = &j->state.knob[k];
			int64_t now, back = ks->found;
			int r;

			if (!ks->seen || !ks->managed || !ks->changed)
				continue;
			/*
			 * without restore_on_exit, still no value of an
			 * unfinished trial stays, nor of one cut short and not
			 * yet put back
			 */
			if (!m->policy.agent.restore_on_exit) {
				enum jt_knob tk;
				int64_t from, to;

				if (!jt_policy_undo_target(&j->state, &tk, &from, &to) ||
				    tk != k || ks->value == from)
					continue;
				back = from;
			}
			/* only the knob file: a statistic that fails to read must not stop this */
			r = jt_configfs_read_knob(m->opt.configfs_root, j->name, k, &now);
			if (r == -ENOENT)
				continue;	/* gone: nothing to restore */
			if (r < 0) {
				log_warning("%s: %s: cannot read it to restore %lld: %s", j->name,
					    jt_knob_name(k), (long long)back, strerror(-r));
				continue;
			}
			if (now == back)
				continue;
			if (now != ks->expected) {
				log_notice("%s: %s was set to %lld by someone else; not restoring",
					   j->name, jt_knob_name(k), (long long)now);
				continue;
			}
			r = jt_configfs_write_knob(m->opt.configfs_root, j->name, k, back);
			if (r < 0)
				log_warning("%s: %s: cannot restore %lld: %s", j->name,
					    jt_knob_name(k), (long long)back, strerror(-r));
			else {
				log_notice("%s: %s %lld->%lld: restored%s", j->name,
					   jt_knob_name(k), (long long)now, (long long)back,
					   m->exiting ? " on exit" : "");
				/* the state follows: the knob is back at what was found */
				jt_policy_write_failed(&j->state, (enum jt_knob)k, back);
			}
		}
	}
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct jt_manager *m = userdata;

	(void)usec;
	jt_manager_sample_all(m);
	sd_event_source_set_time_relative(s, timing(m).interval_us);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct jt_manager *m = userdata;
	char err[512];

	(void)s;
	if (si->ssi_signo == SIGHUP) {
		sd_notify(0, "RELOADING=1");
		jt_manager_reload(m, err, sizeof(err));
		sd_notify(0, "READY=1");
		return 0;
	}
	log_info("got %s, stopping", strsignal((int)si->ssi_signo));
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

/*
 * An event names one journal: ask the kernel for that journal alone (a
 * doit) and evaluate it, so a stall is acted on at once and costs one reply,
 * not a dump of every journal.  The event's own record is not used: it may
 * have been filled before the agent's last write or the last dump, and
 * would read as an administrator's write or as counters going backwards.
 */
static void on_netlink_event(void *userdata, int cmd, const char *journal,
			     uint64_t timestamp_ns)
{
	struct jt_manager *m = userdata;
	struct nl_request rq = { .m = m };
	struct jt_journal *j;
	int r;

	if (timestamp_ns)
		log_debug("netlink event %s for %s, sent %.3f ms ago", event_name(cmd), journal,
			  (double)(now_ns(CLOCK_MONOTONIC) - timestamp_ns) / 1e6);
	else
		log_debug("netlink event %s for %s", event_name(cmd), journal);
	m->cause_cmd = cmd;
	m->cause_ns = timestamp_ns;
	rq.time_us = now_us(CLOCK_MONOTONIC);
	r = jt_netlink_get(m->nl, journal, on_nl_sample, &rq);
	m->cause_ns = 0;
	if (r == -ENOENT) {
		j = jt_manager_find(m, journal);
		if (j)
			journal_remove(m, j);
	} else if (r < 0) {
		log_debug("GET_JOURNAL %s failed: %s; sampling every journal", journal, strerror(-r));
		jt_manager_sample_all(m);
		return;
	}
	update_status(m);
}

static int on_mountinfo(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct jt_manager *m = userdata;
	struct jt_mount_table t;
	struct jt_journal *j;

	(void)s;
	(void)fd;
	(void)revents;
	if (jt_mounts_load(&t) < 0)
		return 0;
	for (j = m->journals; j; j = j->next) {
		char before[256];

		snprintf(before, sizeof(before), "%s", j->mounts[0] ? j->mounts[0] : "");
		journal_set_mounts(j, &t);
		journal_resolve(m, j);
		if (strcmp(before, j->mounts[0] ? j->mounts[0] : "") != 0)
			log_info("%s: now %s%s", j->name, j->mounts[0] ? "mounted on " : "not mounted",
				 j->mounts[0] ? j->mounts[0] : "");
	}
	jt_mounts_free(&t);
	return 0;
}

int jt_manager_run(struct jt_manager *m)
{
	sd_event_source *mi_source = NULL;
	sigset_t ss;
	int r, mi_fd = -1;

	r = sd_event_default(&m->event);
	if (r < 0) {
		log_error("cannot create the event loop: %s", strerror(-r));
		return 1;
	}
	sigemptyset(&ss);
	sigaddset(&ss, SIGHUP);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	if (sd_event_add_signal(m->event, NULL, SIGHUP, on_signal, m) < 0 ||
	    sd_event_add_signal(m->event, NULL, SIGTERM, on_signal, m) < 0 ||
	    sd_event_add_signal(m->event, NULL, SIGINT, on_signal, m) < 0) {
		log_error("cannot watch signals");
		return 1;
	}
	sd_event_set_watchdog(m->event, true);

	if (m->opt.no_netlink) {
		log_info("netlink disabled (--no-netlink): polling %s every %u ms",
			 m->opt.configfs_root, m->policy.agent.interval_ms);
	} else {
		r = jt_netlink_open(m->event, on_netlink_event, m, &m->nl);
		if (r == -ENOENT)
			log_notice("netlink family " JBD2TUNE_GENL_NAME " not found (module not loaded?): polling %s every %u ms, looking for the family again every minute",
				   m->opt.configfs_root, m->policy.agent.interval_ms);
		else if (r < 0)
			log_warning("netlink unavailable (%s): polling %s every %u ms", strerror(-r),
				    m->opt.configfs_root, m->policy.agent.interval_ms);
		if (r == -ENOENT)
			m->netlink_retry_us = now_us(CLOCK_MONOTONIC) + JT_NETLINK_RETRY_US;
	}
	if (strcmp(m->opt.bus, "none") != 0 && jt_bus_open(m) < 0)
		return 1;

	if (!getenv("JBD2_TUNED_MOUNTINFO")) {
		/* mount table changes show as POLLPRI on mountinfo */
		mi_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		if (mi_fd >= 0 && sd_event_add_io(m->event, &mi_source, mi_fd, EPOLLPRI,
						   on_mountinfo, m) < 0)
			mi_source = NULL;
	}

	log_info("started%s: policy from %zu file%s, interval %u ms, window %u s",
		 m->opt.dry_run ? " in dry-run mode" : "", m->policy.n_files,
		 m->policy.n_files == 1 ? "" : "s", m->policy.agent.interval_ms,
		 m->policy.agent.window_s);
	jt_manager_sample_all(m);
	r = sd_event_add_time_relative(m->event, &m->timer, CLOCK_MONOTONIC,
				       timing(m).interval_us, 1000, on_timer, m);
	if (r < 0) {
		log_error("cannot arm the sample timer: %s", strerror(-r));
		return 1;
	}
	r = sd_event_loop(m->event);
	m->exiting = true;
	sd_notify(0, "STOPPING=1");
	restore_knobs(m);
	{
		struct jt_journal *j;

		for (j = m->journals; j; j = j->next)
			journal_save(m, j);
	}
	sd_event_source_disable_unref(mi_source);
	if (mi_fd >= 0)
		close(mi_fd);
	return r < 0 ? 1 : r;
}
