/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Generic netlink adapter (libnl-genl-3) for family "jbd2tune": a dump of
 * all journals as samples, and the "events" multicast group on the sd-event
 * loop.  Attribute numbers come from the kmod UAPI header.
 */
#ifndef JT_NETLINK_H
#define JT_NETLINK_H

#include <systemd/sd-event.h>

#include "sample.h"

struct jt_netlink;

/*
 * An event: @cmd is JBD2TUNE_CMD_JOURNAL_ADD/_REMOVE/SPACE_LOW/STALL,
 * @timestamp_ns the kernel's CLOCK_MONOTONIC time of it (0 if absent).
 */
typedef void (*jt_netlink_event_fn)(void *userdata, int cmd, const char *journal,
				    uint64_t timestamp_ns);
/* One journal of a dump. */
typedef void (*jt_netlink_sample_fn)(void *userdata, const char *journal,
				     const struct jt_sample *s);

/*
 * jt_netlink_open - resolve the family, join "events", watch it on @event.
 * Returns 0 and *@out, -ENOENT when the family is not registered (module
 * not loaded: the caller polls configfs), or another negative errno.
 */
int jt_netlink_open(sd_event *event, jt_netlink_event_fn fn, void *userdata,
		    struct jt_netlink **out);

/*
 * jt_netlink_dump - GET_JOURNAL dump; @fn is called once per journal with a
 * sample (time_us left 0).  Returns 0, -EINTR when the kernel flagged the
 * dump interrupted (a journal came or went: some may be missing from it),
 * or another negative errno.
 */
int jt_netlink_dump(struct jt_netlink *nl, jt_netlink_sample_fn fn, void *userdata);

/*
 * jt_netlink_get - GET_JOURNAL for one journal (doit); @fn is called once
 * with its sample (time_us left 0).  Returns 0, -ENOENT when the kernel
 * knows no such journal (it went away), or another negative errno.
 */
int jt_netlink_get(struct jt_netlink *nl, const char *journal, jt_netlink_sample_fn fn,
		   void *userdata);

void jt_netlink_free(struct jt_netlink *nl);

struct nl_msg;
/*
 * jt_netlink_parse_record - decode one GET_JOURNAL reply or event: the
 * journal name into @name, the figures into @out (time_us 0; histograms of
 * the wrong size and missing attributes read as 0; has_commit_stats,
 * has_reclaim_limits and has_logged_blocks tell whether the commit, limit
 * and logged-blocks attributes were there, an older module sends none).
 * Returns the message's
 * command (>= 0), or -EINVAL when it does not parse or has no valid name
 * (@name/@out untouched).
 */
int jt_netlink_parse_record(struct nl_msg *msg, char name[JT_NAME_MAX], struct jt_sample *out);

#endif
