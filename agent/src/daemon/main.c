// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jbd2-tuned: policy daemon for the jbd2-tune journal knobs.
 * This file is only options and the loop; see manager.c.
 */
#include <getopt.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manager.h"

static void help(void)
{
	printf("Usage: jbd2-tuned [OPTION]...\n"
	       "Tune jbd2 journals (force_copy, reclaim_watermark_pct, lock_delay_max_ms) from their wait\n"
	       "statistics.\n\n"
	       "  -c, --config FILE         policy file (default /etc/jbd2-tuned.conf, then FILE.d/*.conf)\n"
	       "  -n, --dry-run             decide and report, never write a knob\n"
	       "      --once                one sample, print what would be decided, write nothing, exit\n"
	       "      --apply               with --once: write those decisions\n"
	       "      --configfs-root DIR   journal groups (default /sys/kernel/config/jbd2)\n"
	       "      --state-dir DIR       what was learned, per journal (default /run/jbd2-tuned/state;\n"
	       "                            \"\" keeps nothing)\n"
	       "      --bus system|user|none|ADDRESS  D-Bus connection (default system)\n"
	       "      --no-netlink          poll configfs, ignore the jbd2tune netlink family\n"
	       "  -v, --verbose             debug messages\n"
	       "      --version             print the version\n"
	       "  -h, --help                this text\n\n"
	       "See jbd2-tuned(8) and jbd2-tuned.conf(5).\n");
}

int main(int argc, char **argv)
{
	enum { OPT_ONCE = 256, OPT_CONFIGFS_ROOT, OPT_BUS, OPT_NO_NETLINK, OPT_VERSION, OPT_APPLY,
	       OPT_STATE_DIR };
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "apply", no_argument, NULL, OPT_APPLY },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "configfs-root", required_argument, NULL, OPT_CONFIGFS_ROOT },
		{ "bus", required_argument, NULL, OPT_BUS },
		{ "no-netlink", no_argument, NULL, OPT_NO_NETLINK },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct jt_options opt = {
		.config_file = "/etc/jbd2-tuned.conf",
		.configfs_root = "/sys/kernel/config/jbd2",
		.bus = "system",
		.state_dir = "/run/jbd2-tuned/state",
	};
	struct jt_manager *m = NULL;
	char err[1024], *config_abs = NULL;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:nvh", options, NULL)) >= 0) {
		switch (c) {
		case 'c': opt.config_file = optarg; break;
		case 'n': opt.dry_run = true; break;
		case OPT_ONCE: opt.once = true; break;
		case OPT_APPLY: opt.apply = true; break;
		case OPT_STATE_DIR: opt.state_dir = optarg; break;
		case OPT_CONFIGFS_ROOT: opt.configfs_root = optarg; break;
		case OPT_BUS: opt.bus = optarg; break;
		case OPT_NO_NETLINK: opt.no_netlink = true; break;
		case 'v': opt.verbose = true; break;
		case OPT_VERSION:
			printf("jbd2-tuned %s\n", JT_VERSION);
			return 0;
		case 'h':
			help();
			return 0;
		default:
			fprintf(stderr, "Try 'jbd2-tuned --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "jbd2-tuned: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (opt.apply && !opt.once) {
		fprintf(stderr, "jbd2-tuned: --apply goes with --once only\n");
		return 2;
	}
	if (!*opt.bus) {
		fprintf(stderr, "jbd2-tuned: --bus needs system, user, none or an address\n");
		return 2;
	}
	/* the integration tests keep each run's state apart */
	if (getenv("JBD2_TUNED_STATE_DIR"))
		opt.state_dir = getenv("JBD2_TUNED_STATE_DIR");
	/* ... and never write the host's textfile directory */
	if (getenv("JBD2_TUNED_METRICS_DIR"))
		opt.metrics_dir = getenv("JBD2_TUNED_METRICS_DIR");
	jt_log_setup(opt.verbose);
	/* absolute, so PolicyFiles and reload messages name the file wherever we run */
	config_abs = realpath(opt.config_file, NULL);
	if (config_abs)
		opt.config_file = config_abs;
	r = jt_manager_new(&opt, &m, err, sizeof(err));
	if (r < 0) {
		if (err[0])
			jt_log_event(LOG_ERR, JT_LOG_POLICY_REFUSED, NULL, NULL, NULL, NULL, err, "%s",
				     err);
		else
			log_error("cannot start");
		free(config_abs);
		return 1;
	}
	/* only jbd2-tune's jbd2 makes this tree (SPEC 1): say at start which one runs */
	if (access(opt.configfs_root, F_OK) == 0)
		log_info("jbd2-tune's jbd2 module is loaded (%s)", opt.configfs_root);
	else
		log_notice("no %s: the stock jbd2 module is loaded, which has no knobs; waiting for jbd2-tune's (jbd2-tunectl status says why it is not loaded)",
			   opt.configfs_root);
	r = opt.once ? jt_manager_run_once(m) : jt_manager_run(m);
	jt_manager_free(m);
	free(config_abs);
	return r;
}
