/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jbd2-tunectl's reading of org.jbd2tune1: the properties of an object
 * (GetAll) and the journals (ListJournals), and the error message of a
 * failed call.  Used by tunectl.c.
 */
#ifndef JT_TUNECTL_BUS_H
#define JT_TUNECTL_BUS_H

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "tunectl-fmt.h"

#define BUS_NAME	"org.jbd2tune1"
#define MANAGER_PATH	"/org/jbd2tune1"
#define MANAGER_IFACE	"org.jbd2tune1.Manager"
#define JOURNAL_IFACE	"org.jbd2tune1.Journal"

/* One property as GetAll returned it; containers are kept as text lists. */
struct prop {
	char *name;
	char type[8];		/* D-Bus signature: s b u t d as a{sd} a{ss} */
	char *s;		/* s */
	uint64_t u;		/* b u t */
	double d;		/* d */
	char **keys, **vals;	/* as (vals only), a{sd}, a{ss}; NULL-terminated */
	double *dvals;		/* a{sd} */
	size_t n;
};

struct props {
	struct prop *v;
	size_t n;
};

/* Free the properties in @p and empty it. */
void props_free(struct props *p);
/* The property @name in @p, or NULL. */
const struct prop *prop_get(const struct props *p, const char *name);
/* The string property @name, or @dflt. */
const char *prop_str(const struct props *p, const char *name, const char *dflt);
/* The b, u or t property @name, or 0. */
uint64_t prop_u(const struct props *p, const char *name);
/* a{sd} value by key, or -1 */
double prop_dict_d(const struct props *p, const char *name, const char *key);
/* Say why @what failed (@r, @e) on stderr; returns a negative errno. */
int fail(const char *what, int r, const sd_bus_error *e);
/* GetAll of @iface on @path into @out. */
int get_all(sd_bus *bus, const char *path, const char *iface, struct props *out);
/* Free @n journals of @v and @v. */
void journals_free(struct jt_ctl_journal *v, size_t n);
/* ListJournals() into *@out (*@n_out entries). */
int list_journals(sd_bus *bus, struct jt_ctl_journal **out, size_t *n_out);

#endif
