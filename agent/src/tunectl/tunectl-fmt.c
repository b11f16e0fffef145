// SPDX-License-Identifier: GPL-2.0-or-later
/* jbd2-tunectl's pure helpers; see tunectl-fmt.h. */
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tunectl-fmt.h"

/* length of @s without trailing slashes, but "/" stays "/" */
static size_t trimmed_len(const char *s)
{
	size_t n = strlen(s);

	while (n > 1 && s[n - 1] == '/')
		n--;
	return n;
}

int jt_ctl_find(const struct jt_ctl_journal *list, size_t n, const char *arg)
{
	size_t i, len;

	if (!arg || !*arg)
		return -1;
	if (arg[0] != '/') {
		for (i = 0; i < n; i++)
			if (strcmp(list[i].name, arg) == 0)
				return (int)i;
		return -1;
	}
	len = trimmed_len(arg);
	for (i = 0; i < n; i++)
		if (list[i].mount[0] && trimmed_len(list[i].mount) == len &&
		    strncmp(list[i].mount, arg, len) == 0)
			return (int)i;
	return -1;
}

void jt_ctl_fmt_left(uint64_t now_us, uint64_t until_us, char *buf, size_t len)
{
	uint64_t s;

	if (!until_us || until_us <= now_us) {
		snprintf(buf, len, "-");
		return;
	}
	s = (until_us - now_us + 999999) / 1000000;	/* a deadline: round up */
	if (s < 60)
		snprintf(buf, len, "%llus", (unsigned long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)(s / 60),
			 (unsigned long long)(s % 60));
	else
		snprintf(buf, len, "%lluh%02llum", (unsigned long long)(s / 3600),
			 (unsigned long long)(s / 60 % 60));
}

void jt_ctl_fmt_ago(uint64_t now_us, uint64_t then_us, char *buf, size_t len)
{
	uint64_t s;

	if (!then_us) {
		snprintf(buf, len, "-");
		return;
	}
	s = then_us < now_us ? (now_us - then_us) / 1000000 : 0;
	if (s < 60)
		snprintf(buf, len, "%llus ago", (unsigned long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%llum ago", (unsigned long long)(s / 60));
	else if (s < 86400)
		snprintf(buf, len, "%lluh ago", (unsigned long long)(s / 3600));
	else
		snprintf(buf, len, "%llud ago", (unsigned long long)(s / 86400));
}

void jt_ctl_fmt_knob(const char *mode, uint64_t value, const char *unit, char *buf, size_t len)
{
	if (!mode || !*mode)
		mode = "?";
	snprintf(buf, len, "%s %llu%s", mode, (unsigned long long)value, unit ? unit : "");
}

void jt_ctl_json_string(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void jt_ctl_json_double(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

/* whether @root@rel exists (a path relative to @root) */
static int exists(const char *root, const char *rel)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s%s", root, rel);
	return access(p, F_OK) == 0;
}

/* how many paths match the glob @root@pattern */
static size_t count_glob(const char *root, const char *pattern)
{
	char p[4096];
	glob_t g;
	size_t n;

	snprintf(p, sizeof(p), "%s%s", root, pattern);
	if (glob(p, 0, NULL, &g) != 0)
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

int jt_ctl_module_state(const char *root, const char *kver, char *why, size_t len)
{
	char series[32] = "", rel[512];
	const char *dot;

	snprintf(why, len, "%s", "");
	if (!exists(root, "/sys/module/jbd2")) {
		snprintf(why, len, "no jbd2 module is loaded (no ext4 file system is mounted)");
		return -1;
	}
	if (exists(root, "/sys/module/jbd2/parameters/force_copy_default"))
		return 1;
	/* the series: "6.1" of "6.1.0-57-amd64" */
	dot = strchr(kver, '.');
	if (dot && (dot = strchr(dot + 1, '.')) && (size_t)(dot - kver) < sizeof(series))
		memcpy(series, kver, (size_t)(dot - kver));
	/*
	 * our jbd2.ko for this kernel, from jbd2-tune-dkms's build or a
	 * prebuilt jbd2-tune-modules-<kver> (the same path): not loaded yet
	 */
	snprintf(rel, sizeof(rel), "/lib/modules/%s/updates/dkms/jbd2.ko*", kver);
	if (count_glob(root, rel)) {
		snprintf(why, len, "jbd2.ko is installed for %s but the stock one was loaded: reboot, or if that does not help update-initramfs -u -k %s (the initramfs loads jbd2 when / is ext4)",
			 kver, kver);
		return 0;
	}
	if (!count_glob(root, "/usr/src/jbd2-tune-*/patches")) {
		snprintf(why, len, "neither jbd2-tune-modules-%s nor jbd2-tune-dkms is installed", kver);
		return 0;
	}
	snprintf(rel, sizeof(rel), "/usr/src/jbd2-tune-*/patches/%s/series", series);
	if (!*series || !count_glob(root, rel)) {
		char have[128] = "", p[4096];
		glob_t g;
		size_t i;

		/* the series the installed source has: .../patches/<series>/series */
		snprintf(p, sizeof(p), "%s/usr/src/jbd2-tune-*/patches/*/series", root);
		if (glob(p, 0, NULL, &g) == 0) {
			for (i = 0; i < g.gl_pathc; i++) {
				char *e = strrchr(g.gl_pathv[i], '/'), *b;

				*e = 0;
				b = strrchr(g.gl_pathv[i], '/');
				if (b && !strstr(have, b + 1))
					snprintf(have + strlen(have), sizeof(have) - strlen(have), "%s%s",
						 *have ? " " : "", b + 1);
			}
			globfree(&g);
		}
		snprintf(why, len, "kernel %s: series %s has no patches (supported: %s), so the stock jbd2 stays",
			 kver, *series ? series : "?", *have ? have : "none");
		return 0;
	}
	snprintf(rel, sizeof(rel), "/lib/modules/%s/build", kver);
	if (!exists(root, rel)) {
		snprintf(why, len, "no headers for %s (apt install linux-headers-%s), so DKMS built nothing",
			 kver, kver);
		return 0;
	}
	snprintf(why, len, "the DKMS build for %s failed or did not run: see /var/lib/dkms/jbd2-tune/*/build/make.log; dpkg-reconfigure jbd2-tune-dkms tries again",
		 kver);
	return 0;
}
