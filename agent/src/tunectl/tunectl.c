// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jbd2-tunectl: what jbd2-tuned is doing, for people.  A D-Bus client of
 * org.jbd2tune1 (sd-bus): status, show, history, set, reload; --json on the
 * read commands.  Properties are read with GetAll, so a property a newer
 * agent adds (Trial, Hold, Diagnosis, ...) shows up here as soon as it
 * exists and "-" before.  Formatting helpers: tunectl-fmt.c; reading the
 * properties and the journals over the bus: tunectl-bus.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <systemd/sd-bus.h>

#include "tunectl-bus.h"
#include "tunectl-fmt.h"

static bool json;
static const char *bus_arg = "system";

static uint64_t now_realtime_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* the JSON value of one property */
static void json_prop(const struct prop *x)
{
	size_t i;

	if (x->s) {
		jt_ctl_json_string(stdout, x->s);
	} else if (strcmp(x->type, "b") == 0) {
		fputs(x->u ? "true" : "false", stdout);
	} else if (strcmp(x->type, "u") == 0 || strcmp(x->type, "t") == 0) {
		printf("%llu", (unsigned long long)x->u);
	} else if (strcmp(x->type, "d") == 0) {
		jt_ctl_json_double(stdout, x->d);
	} else if (x->keys) {
		putchar('{');
		for (i = 0; i < x->n; i++) {
			if (i)
				putchar(',');
			jt_ctl_json_string(stdout, x->keys[i]);
			putchar(':');
			if (x->dvals)
				jt_ctl_json_double(stdout, x->dvals[i]);
			else
				jt_ctl_json_string(stdout, x->vals[i]);
		}
		putchar('}');
	} else if (x->type[0] == 'a') {
		putchar('[');
		for (i = 0; i < x->n; i++) {
			if (i)
				putchar(',');
			jt_ctl_json_string(stdout, x->vals[i]);
		}
		putchar(']');
	} else {
		fputs("null", stdout);
	}
}

static void json_props(const struct props *p)
{
	size_t i;

	putchar('{');
	for (i = 0; i < p->n; i++) {
		if (i)
			putchar(',');
		jt_ctl_json_string(stdout, p->v[i].name);
		putchar(':');
		json_prop(&p->v[i]);
	}
	putchar('}');
}

/* the text of one property for `show` */
static void text_prop(const struct prop *x, uint64_t now)
{
	size_t i;

	if (x->s) {
		printf("%s", x->s[0] ? x->s : "-");
	} else if (strcmp(x->type, "b") == 0) {
		printf("%s", x->u ? "yes" : "no");
	} else if (strcmp(x->type, "u") == 0 || strcmp(x->type, "t") == 0) {
		size_t l = strlen(x->name);

		printf("%llu", (unsigned long long)x->u);
		/* a CLOCK_REALTIME time: say when, too */
		if (l > 4 && strcmp(x->name + l - 4, "Usec") == 0 && x->u > 1000000000000000ULL) {
			char t[32];

			if (x->u > now)
				jt_ctl_fmt_left(now, x->u, t, sizeof(t));
			else
				jt_ctl_fmt_ago(now, x->u, t, sizeof(t));
			printf(" (%s%s)", x->u > now ? "in " : "", t);
		}
	} else if (strcmp(x->type, "d") == 0) {
		printf("%.6g", x->d);
	} else if (x->type[0] == 'a') {
		for (i = 0; i < x->n; i++) {
			if (x->keys)
				printf("%s%s=%s", i ? " " : "", x->keys[i], x->vals[i]);
			else
				printf("%s%s", i ? "\n    " : "", x->vals[i]);
		}
		if (!x->n)
			printf("-");
	} else {
		printf("(%s)", x->type);
	}
}

/*
 * What `status` shows in TRIAL: of the agent's Trial ("force_copy 0->1,
 * pair 2 of 3..10, on block") the change and the block now, and the most
 * time left (TrialDeadlineUsec): "force_copy 0->1 on <=1m42s"; "-" for none.
 */
static void fmt_trial(const struct props *p, uint64_t now, char *buf, size_t len)
{
	const char *t = prop_str(p, "Trial", "");
	const char *comma = strchr(t, ',');
	const char *block = strstr(t, ", on block") ? "on" : strstr(t, ", off block") ? "off" : "";
	char left[32];

	if (!*t) {
		snprintf(buf, len, "-");
		return;
	}
	jt_ctl_fmt_left(now, prop_u(p, "TrialDeadlineUsec"), left, sizeof(left));
	snprintf(buf, len, "%.*s%s%s%s%s", comma ? (int)(comma - t) : (int)strlen(t), t,
		 *block ? " " : "", block, strcmp(left, "-") ? " <=" : "",
		 strcmp(left, "-") ? left : "");
}

/* HOLD: the agent's Hold property if any, else the back-off after a revert */
static void fmt_hold(const struct props *p, uint64_t now, char *buf, size_t len)
{
	static const char *const retry[][2] = {
		{ "fc", "ForceCopyRetryUsec" },
		{ "rc", "ReclaimRetryUsec" },
		{ "ld", "LockDelayRetryUsec" },
	};
	const char *h = prop_str(p, "Hold", "");
	char left[32];
	size_t at = 0, i;

	if (*h) {
		snprintf(buf, len, "%s", h);
		return;
	}
	snprintf(buf, len, "-");
	for (i = 0; i < sizeof(retry) / sizeof(retry[0]) && at < len; i++) {
		jt_ctl_fmt_left(now, prop_u(p, retry[i][1]), left, sizeof(left));
		if (!strcmp(left, "-"))
			continue;
		snprintf(buf + at, len - at, "%s%s %s", at ? ", " : "", retry[i][0], left);
		at += strlen(buf + at);
	}
}

static void fmt_rate(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", v);
}

static int connect_bus(sd_bus **out)
{
	sd_bus *bus = NULL;
	int r;

	if (strcmp(bus_arg, "system") == 0) {
		r = sd_bus_open_system(&bus);
	} else if (strcmp(bus_arg, "user") == 0) {
		r = sd_bus_open_user(&bus);
	} else {
		r = sd_bus_new(&bus);
		if (r >= 0)
			r = sd_bus_set_address(bus, bus_arg);
		if (r >= 0)
			r = sd_bus_set_bus_client(bus, 1);
		if (r >= 0)
			r = sd_bus_start(bus);
	}
	if (r < 0) {
		sd_bus_unref(bus);
		fprintf(stderr, "jbd2-tunectl: cannot connect to the %s bus: %s\n", bus_arg,
			strerror(-r));
		return r;
	}
	*out = bus;
	return 0;
}

static int cmd_status(sd_bus *bus)
{
	struct jt_ctl_journal *js = NULL;
	struct props mgr = { 0 };
	uint64_t now = now_realtime_us();
	char why[512];
	size_t n = 0, i;
	int r, patched;

	r = get_all(bus, MANAGER_PATH, MANAGER_IFACE, &mgr);
	if (r >= 0)
		r = list_journals(bus, &js, &n);
	if (r < 0) {
		props_free(&mgr);
		return r;
	}
	{
		struct utsname u;

		uname(&u);
		patched = jt_ctl_module_state("", u.release, why, sizeof(why));
	}
	if (json) {
		printf("{\"module\":{\"patched\":%s,\"why\":",
		       patched == 1 ? "true" : "false");
		jt_ctl_json_string(stdout, why);
		printf("},\"manager\":");
		json_props(&mgr);
		printf(",\"journals\":[");
	} else {
		if (patched == 1)
			printf("module: jbd2-tune's jbd2 is loaded\n");
		else
			printf("module: %s%s\n", patched == 0 ? "the stock jbd2 is loaded: " : "", why);
		const struct prop *files = prop_get(&mgr, "PolicyFiles");

		printf("jbd2-tuned %s%s, policy from %zu file%s%s\n",
		       prop_str(&mgr, "Version", "?"),
		       prop_u(&mgr, "DryRun") ? " in dry-run (observing, writing no knob)" : "",
		       files ? files->n : 0, files && files->n == 1 ? "" : "s",
		       n ? "" : "; no journal (is the jbd2-tune module loaded? ls /sys/kernel/config/jbd2)");
		if (n)
			printf("%-10s %-12s %-16s %-10s %-10s %-14s %8s %8s %8s %8s %-27s %-14s %s\n",
			       "JOURNAL", "DEVICE", "MOUNT", "FORCE_COPY", "RECLAIM", "LOCK_DELAY", "SHADOW/s",
			       "SPACE/s", "LOCKED/s", "COMMIT/s", "TRIAL", "HOLD", "LAST DECISION");
	}
	for (i = 0; i < n; i++) {
		struct props p = { 0 };
		char fc[32], rc[32], ld[32], w[4][16], trial[96], hold[96], ago[32];
		static const char *const kinds[] = { "shadow", "space", "locked", "commit" };
		unsigned int k;

		r = get_all(bus, js[i].path, JOURNAL_IFACE, &p);
		if (r < 0)
			continue;	/* gone meanwhile: said on stderr */
		if (json) {
			if (i)
				putchar(',');
			json_props(&p);
			props_free(&p);
			continue;
		}
		jt_ctl_fmt_knob(prop_str(&p, "ForceCopyMode", "?"), prop_u(&p, "ForceCopy"), NULL,
				fc, sizeof(fc));
		jt_ctl_fmt_knob(prop_str(&p, "ReclaimMode", "?"), prop_u(&p, "ReclaimWatermarkPct"),
				"%", rc, sizeof(rc));
		jt_ctl_fmt_knob(prop_str(&p, "LockDelayMode", "?"), prop_u(&p, "LockDelayMs"),
				"ms", ld, sizeof(ld));
		for (k = 0; k < 4; k++)
			fmt_rate(prop_dict_d(&p, "WaitsPerSec", kinds[k]), w[k], sizeof(w[k]));
		fmt_trial(&p, now, trial, sizeof(trial));
		fmt_hold(&p, now, hold, sizeof(hold));
		jt_ctl_fmt_ago(now, prop_u(&p, "LastDecisionUsec"), ago, sizeof(ago));
		printf("%-10s %-12s %-16s %-10s %-10s %-14s %8s %8s %8s %8s %-27s %-14s %s%s%s\n",
		       js[i].name, *prop_str(&p, "Device", "") ? prop_str(&p, "Device", "") : "-",
		       *js[i].mount ? js[i].mount : "-", fc, rc, ld, w[0], w[1], w[2], w[3], trial, hold,
		       prop_u(&p, "LastDecisionUsec") ? ago : "-",
		       prop_u(&p, "LastDecisionUsec") ? ": " : "",
		       prop_u(&p, "LastDecisionUsec") ? prop_str(&p, "LastDecision", "") : "");
		props_free(&p);
	}
	if (json)
		printf("]}\n");
	journals_free(js, n);
	props_free(&mgr);
	return 0;
}

/* resolve @arg to a journal's object path and name; says why not */
static int resolve(sd_bus *bus, const char *arg, char **path, char **name)
{
	struct jt_ctl_journal *js = NULL;
	size_t n = 0, i;
	int r, idx;

	r = list_journals(bus, &js, &n);
	if (r < 0)
		return r;
	idx = jt_ctl_find(js, n, arg);
	if (idx < 0) {
		fprintf(stderr, "jbd2-tunectl: no journal %s '%s'; journals:", arg[0] == '/' ?
			"mounted on" : "named", arg);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %s%s%s%s", js[i].name, *js[i].mount ? " (" : "",
				js[i].mount, *js[i].mount ? ")" : "");
		fprintf(stderr, "%s\n", n ? "" : " none");
		journals_free(js, n);
		return -ENOENT;
	}
	*path = strdup(js[idx].path);
	*name = strdup(js[idx].name);
	journals_free(js, n);
	return *path && *name ? 0 : -ENOMEM;
}

static int cmd_show(sd_bus *bus, const char *arg)
{
	struct props p = { 0 }, mgr = { 0 };
	char *path = NULL, *name = NULL;
	uint64_t now = now_realtime_us();
	size_t i;
	int r;

	r = resolve(bus, arg, &path, &name);
	if (r >= 0)
		r = get_all(bus, path, JOURNAL_IFACE, &p);
	if (r >= 0)
		r = get_all(bus, MANAGER_PATH, MANAGER_IFACE, &mgr);
	if (r >= 0 && json) {
		printf("{\"journal\":");
		json_props(&p);
		printf(",\"manager\":");
		json_props(&mgr);
		printf("}\n");
	} else if (r >= 0) {
		printf("%s (%s)\n", name, path);
		for (i = 0; i < p.n; i++) {
			printf("  %-24s ", p.v[i].name);
			text_prop(&p.v[i], now);
			putchar('\n');
		}
		if (!prop_get(&p, "Diagnosis"))
			printf("  %-24s -\n", "Diagnosis");
		printf("  %-24s %s\n", "DryRun", prop_u(&mgr, "DryRun") ? "yes" : "no");
		printf("  %-24s ", "PolicyFiles");
		if (prop_get(&mgr, "PolicyFiles"))
			text_prop(prop_get(&mgr, "PolicyFiles"), now);
		putchar('\n');
	}
	props_free(&p);
	props_free(&mgr);
	free(path);
	free(name);
	return r;
}

static int cmd_history(sd_bus *bus, const char *arg)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	char *path = NULL, *name = NULL;
	bool first = true;
	int r;

	r = resolve(bus, arg, &path, &name);
	if (r < 0)
		return r;
	r = sd_bus_call_method(bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "History", &e, &reply,
			       "s", name);
	if (r < 0) {
		if (sd_bus_error_has_name(&e, SD_BUS_ERROR_UNKNOWN_METHOD))
			fprintf(stderr, "jbd2-tunectl: this jbd2-tuned keeps no history; see journalctl -u jbd2-tuned --grep '^%s: '\n",
				name);
		else
			fail("History", r, &e);
		sd_bus_error_free(&e);
		goto out;
	}
	if (json)
		printf("[");
	r = sd_bus_message_enter_container(reply, 'a', "(tss)");
	while (r >= 0) {
		const char *kind, *text;
		uint64_t us;
		char when[32];
		time_t t;
		struct tm tm;

		r = sd_bus_message_read(reply, "(tss)", &us, &kind, &text);
		if (r <= 0)
			break;
		if (json) {
			printf("%s{\"time_usec\":%llu,\"kind\":", first ? "" : ",",
			       (unsigned long long)us);
			jt_ctl_json_string(stdout, kind);
			printf(",\"text\":");
			jt_ctl_json_string(stdout, text);
			putchar('}');
		} else {
			t = (time_t)(us / 1000000);
			localtime_r(&t, &tm);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
			printf("%s  %-8s  %s\n", when, kind, text);
		}
		first = false;
	}
	if (json)
		printf("]\n");
	else if (first && r >= 0)
		printf("no decision for %s since jbd2-tuned started\n", name);
	if (r < 0)
		fail("History", r, NULL);
out:
	sd_bus_message_unref(reply);
	free(path);
	free(name);
	return r < 0 ? r : 0;
}

static int cmd_set(sd_bus *bus, const char *arg, const char *knob, const char *mode)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *path = NULL, *name = NULL;
	int r;

	r = resolve(bus, arg, &path, &name);
	if (r < 0)
		return r;
	r = sd_bus_call_method(bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "SetMode", &e, NULL,
			       "sss", name, knob, mode);
	if (r < 0)
		fail("SetMode", r, &e);
	else
		printf("%s: %s mode %s (until the next reload)\n", name, knob, mode);
	sd_bus_error_free(&e);
	free(path);
	free(name);
	return r;
}

static int cmd_reload(sd_bus *bus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	r = sd_bus_call_method(bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "Reload", &e, NULL,
			       NULL);
	if (r < 0)
		fail("reload refused", r, &e);
	else
		printf("policy reloaded\n");
	sd_bus_error_free(&e);
	return r;
}

static void help(void)
{
	printf("Usage: jbd2-tunectl [OPTION]... COMMAND [ARG]...\n"
	       "Show and steer jbd2-tuned, the jbd2 journal tuning daemon.\n\n"
	       "Commands:\n"
	       "  status                     every journal: knobs, waits/s, trial, hold, last decision\n"
	       "  show JOURNAL               every property of one journal, its policy and sections\n"
	       "  history JOURNAL            its decisions, verdicts and advice since the agent started\n"
	       "  set JOURNAL KNOB MODE      KNOB force_copy|reclaim|lock_delay, MODE on|off|auto\n"
	       "                             (kept until a reload changes the journal's policy)\n"
	       "  reload                     re-read the policy files (fails with file:line: key: why)\n\n"
	       "JOURNAL is a name as in /sys/kernel/config/jbd2/ (vda-8) or a mount point (/).\n\n"
	       "Options:\n"
	       "      --json                 JSON output (status, show, history)\n"
	       "      --bus system|user|ADDRESS  D-Bus connection (default system)\n"
	       "      --version              print the version\n"
	       "  -h, --help                 this text\n\n"
	       "See jbd2-tunectl(8).\n");
}

int main(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_BUS, OPT_VERSION };
	static const struct option options[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "bus", required_argument, NULL, OPT_BUS },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *cmd;
	sd_bus *bus = NULL;
	int c, r, nargs;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (c) {
		case OPT_JSON: json = true; break;
		case OPT_BUS: bus_arg = optarg; break;
		case OPT_VERSION:
			printf("jbd2-tunectl %s\n", JT_VERSION);
			return 0;
		case 'h':
			help();
			return 0;
		default:
			fprintf(stderr, "Try 'jbd2-tunectl --help'.\n");
			return 2;
		}
	}
	cmd = optind < argc ? argv[optind] : "status";
	nargs = optind < argc ? argc - optind - 1 : 0;
	if (!((strcmp(cmd, "status") == 0 && nargs == 0) ||
	      (strcmp(cmd, "show") == 0 && nargs == 1) ||
	      (strcmp(cmd, "history") == 0 && nargs == 1) ||
	      (strcmp(cmd, "set") == 0 && nargs == 3) ||
	      (strcmp(cmd, "reload") == 0 && nargs == 0))) {
		fprintf(stderr, "jbd2-tunectl: bad command line: '%s' with %d argument%s\n"
			"Try 'jbd2-tunectl --help'.\n", cmd, nargs, nargs == 1 ? "" : "s");
		return 2;
	}
	if (json && (strcmp(cmd, "set") == 0 || strcmp(cmd, "reload") == 0)) {
		fprintf(stderr, "jbd2-tunectl: --json is for status, show and history\n");
		return 2;
	}
	if (connect_bus(&bus) < 0)
		return 1;
	if (strcmp(cmd, "status") == 0)
		r = cmd_status(bus);
	else if (strcmp(cmd, "show") == 0)
		r = cmd_show(bus, argv[optind + 1]);
	else if (strcmp(cmd, "history") == 0)
		r = cmd_history(bus, argv[optind + 1]);
	else if (strcmp(cmd, "set") == 0)
		r = cmd_set(bus, argv[optind + 1], argv[optind + 2], argv[optind + 3]);
	else
		r = cmd_reload(bus);
	sd_bus_flush_close_unref(bus);
	return r < 0 ? 1 : 0;
}
