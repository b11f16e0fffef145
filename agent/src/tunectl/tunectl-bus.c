// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jbd2-tunectl's reading of org.jbd2tune1 over sd-bus: GetAll of an
 * object's properties into a list of values (containers kept as text
 * lists), ListJournals(), and what a failed call says on stderr.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "tunectl-bus.h"

void props_free(struct props *p)
{
	size_t i, k;

	for (i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].s);
		for (k = 0; k < p->v[i].n; k++) {
			if (p->v[i].keys)
				free(p->v[i].keys[k]);
			free(p->v[i].vals[k]);
		}
		free(p->v[i].keys);
		free(p->v[i].vals);
		free(p->v[i].dvals);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

const struct prop *prop_get(const struct props *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->v[i].name, name) == 0)
			return &p->v[i];
	return NULL;
}

const char *prop_str(const struct props *p, const char *name, const char *dflt)
{
	const struct prop *x = prop_get(p, name);

	return x && x->s ? x->s : dflt;
}

uint64_t prop_u(const struct props *p, const char *name)
{
	const struct prop *x = prop_get(p, name);

	return x ? x->u : 0;
}

/* a{sd} value by key, or -1 */
double prop_dict_d(const struct props *p, const char *name, const char *key)
{
	const struct prop *x = prop_get(p, name);
	size_t i;

	for (i = 0; x && x->dvals && i < x->n; i++)
		if (strcmp(x->keys[i], key) == 0)
			return x->dvals[i];
	return -1;
}

int fail(const char *what, int r, const sd_bus_error *e)
{
	if (e && sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED))
		fprintf(stderr, "jbd2-tunectl: %s: access denied (root only)\n", what);
	else if (e && sd_bus_error_is_set(e))
		fprintf(stderr, "jbd2-tunectl: %s: %s\n", what, e->message ? e->message : e->name);
	else
		fprintf(stderr, "jbd2-tunectl: %s: %s\n", what, strerror(-r));
	return r < 0 ? r : -EIO;
}

/* Read the variant at the message's position into @x (type known from its signature). */
static int read_variant(sd_bus_message *m, struct prop *x)
{
	const char *sig = NULL;
	char type;
	int r;

	r = sd_bus_message_peek_type(m, &type, &sig);
	if (r < 0)
		return r;
	snprintf(x->type, sizeof(x->type), "%s", sig ? sig : "?");
	r = sd_bus_message_enter_container(m, 'v', sig);
	if (r < 0)
		return r;
	if (strcmp(sig, "s") == 0 || strcmp(sig, "o") == 0) {
		const char *s;

		r = sd_bus_message_read_basic(m, sig[0], &s);
		if (r >= 0 && !(x->s = strdup(s)))
			r = -ENOMEM;
	} else if (strcmp(sig, "b") == 0) {
		int b;

		r = sd_bus_message_read_basic(m, 'b', &b);
		x->u = b != 0;
	} else if (strcmp(sig, "u") == 0) {
		uint32_t u;

		r = sd_bus_message_read_basic(m, 'u', &u);
		x->u = u;
	} else if (strcmp(sig, "t") == 0) {
		r = sd_bus_message_read_basic(m, 't', &x->u);
	} else if (strcmp(sig, "d") == 0) {
		r = sd_bus_message_read_basic(m, 'd', &x->d);
	} else if (strcmp(sig, "as") == 0 || strcmp(sig, "ao") == 0 ||
		   strcmp(sig, "a{sd}") == 0 || strcmp(sig, "a{ss}") == 0) {
		bool dict = sig[1] == '{';
		bool dd = dict && sig[3] == 'd';	/* a{sd} */
		size_t cap = 0;

		r = sd_bus_message_enter_container(m, 'a', sig + 1);
		while (r >= 0) {
			const char *k = NULL, *v = NULL;
			double d = 0;

			if (dict) {
				r = sd_bus_message_enter_container(m, 'e', dd ? "sd" : "ss");
				if (r <= 0)
					break;
				r = sd_bus_message_read_basic(m, 's', &k);
				if (r >= 0)
					r = dd ? sd_bus_message_read_basic(m, 'd', &d) :
							    sd_bus_message_read_basic(m, 's', &v);
				if (r >= 0)
					r = sd_bus_message_exit_container(m);
			} else {
				r = sd_bus_message_read_basic(m, sig[1], &v);
				if (r <= 0)
					break;
			}
			if (r < 0)
				break;
			if (x->n + 1 >= cap) {
				cap = cap ? 2 * cap : 8;
				x->vals = realloc(x->vals, cap * sizeof(char *));
				x->keys = dict ? realloc(x->keys, cap * sizeof(char *)) : NULL;
				x->dvals = dd ? realloc(x->dvals, cap * sizeof(double)) : NULL;
				if (!x->vals || (dict && !x->keys) || (dd && !x->dvals))
					return -ENOMEM;
			}
			if (dict)
				x->keys[x->n] = strdup(k);
			if (dd) {
				char t[32];

				snprintf(t, sizeof(t), "%g", d);
				x->dvals[x->n] = d;
				x->vals[x->n] = strdup(t);
			} else {
				x->vals[x->n] = strdup(v);
			}
			x->n++;
			x->vals[x->n] = NULL;
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	} else {
		r = sd_bus_message_skip(m, sig);
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	return r;
}

/* GetAll of @iface on @path into @out. */
int get_all(sd_bus *bus, const char *path, const char *iface, struct props *out)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	size_t cap = 0;
	int r;

	r = sd_bus_call_method(bus, BUS_NAME, path, "org.freedesktop.DBus.Properties", "GetAll",
			       &e, &reply, "s", iface);
	if (r < 0) {
		r = fail(path, r, &e);
		sd_bus_error_free(&e);
		return r;
	}
	r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	while (r >= 0) {
		const char *name;
		struct prop *x;

		r = sd_bus_message_enter_container(reply, 'e', "sv");
		if (r <= 0)
			break;
		r = sd_bus_message_read_basic(reply, 's', &name);
		if (r < 0)
			break;
		if (out->n == cap) {
			struct prop *v = realloc(out->v, (cap = cap ? 2 * cap : 32) * sizeof(*v));

			if (!v) {
				r = -ENOMEM;
				break;
			}
			out->v = v;
		}
		x = &out->v[out->n++];
		memset(x, 0, sizeof(*x));
		x->name = strdup(name);
		r = read_variant(reply, x);
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
	}
	sd_bus_message_unref(reply);
	return r < 0 ? fail("reading properties", r, NULL) : 0;
}

void journals_free(struct jt_ctl_journal *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].mount);
		free(v[i].path);
	}
	free(v);
}

int list_journals(sd_bus *bus, struct jt_ctl_journal **out, size_t *n_out)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	struct jt_ctl_journal *v = NULL;
	size_t n = 0, cap = 0;
	int r;

	r = sd_bus_call_method(bus, BUS_NAME, MANAGER_PATH, MANAGER_IFACE, "ListJournals", &e,
			       &reply, NULL);
	if (r < 0) {
		r = fail("ListJournals", r, &e);
		sd_bus_error_free(&e);
		return r;
	}
	r = sd_bus_message_enter_container(reply, 'a', "(sso)");
	while (r >= 0) {
		const char *name, *mount, *path;

		r = sd_bus_message_read(reply, "(sso)", &name, &mount, &path);
		if (r <= 0)
			break;
		if (n == cap) {
			struct jt_ctl_journal *nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (!nv) {
				r = -ENOMEM;
				break;
			}
			v = nv;
		}
		v[n].name = strdup(name);
		v[n].mount = strdup(mount);
		v[n].path = strdup(path);
		n++;
	}
	sd_bus_message_unref(reply);
	if (r < 0) {
		journals_free(v, n);
		return fail("ListJournals", r, NULL);
	}
	*out = v;
	*n_out = n;
	return 0;
}
