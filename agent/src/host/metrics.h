/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Optional Prometheus text file ([agent] metrics_file), replaced atomically. */
#ifndef JT_METRICS_H
#define JT_METRICS_H

struct jt_manager;

/* Write all journals' figures to @path via "@path.tmp" + rename(2). Returns 0 or -errno. */
int jt_metrics_write(const struct jt_manager *m, const char *path);

#endif
