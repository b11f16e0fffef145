// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * jbd2tune generic netlink adapter.  Two sockets: one for synchronous dumps,
 * one joined to the "events" group and watched by sd-event (sequence checks
 * off, since multicast messages carry none of ours).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>

#include "netlink.h"

#define JT_NETLINK_BUF_SIZE	32768

struct jt_netlink {
	struct nl_sock *req;		/* dumps */
	struct nl_sock *events;		/* multicast "events" */
	int family;
	sd_event_source *io;
	jt_netlink_event_fn event_fn;
	void *event_userdata;
	jt_netlink_sample_fn sample_fn;
	void *sample_userdata;
};

static struct nla_policy attr_policy[JBD2TUNE_ATTR_MAX + 1] = {
	[JBD2TUNE_ATTR_NAME] = { .type = NLA_NUL_STRING, .maxlen = JBD2TUNE_NAME_MAX },
	[JBD2TUNE_ATTR_FORCE_COPY] = { .type = NLA_U8 },
	[JBD2TUNE_ATTR_RECLAIM_WATERMARK_PCT] = { .type = NLA_U8 },
	[JBD2TUNE_ATTR_LOG_BLOCKS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_FREE_BLOCKS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_MAX_TRANSACTION_BLOCKS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_SHADOW_WAITS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_SHADOW_WAIT_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_SHADOW_WAIT_MAX_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_SPACE_WAITS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_SPACE_WAIT_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_SPACE_WAIT_MAX_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_LOCKED_WAITS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_LOCKED_WAIT_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_LOCKED_WAIT_MAX_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_COPYOUTS_FORCED] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_RECLAIM_RUNS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_RECLAIM_BLOCKS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_SHADOW_WAIT_HIST] = { .type = NLA_UNSPEC },
	[JBD2TUNE_ATTR_SPACE_WAIT_HIST] = { .type = NLA_UNSPEC },
	[JBD2TUNE_ATTR_LOCKED_WAIT_HIST] = { .type = NLA_UNSPEC },
	[JBD2TUNE_ATTR_STALL_KIND] = { .type = NLA_U8 },
	[JBD2TUNE_ATTR_STALL_MAX_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_THRESHOLD_BLOCKS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_TIMESTAMP_NS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_COMMIT_WAITS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_COMMIT_WAIT_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_COMMIT_WAIT_MAX_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_COMMIT_WAIT_HIST] = { .type = NLA_UNSPEC },
	[JBD2TUNE_ATTR_COMMITS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_COMMIT_TIME_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_COMMIT_TIME_MAX_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_COMMIT_TIME_HIST] = { .type = NLA_UNSPEC },
	[JBD2TUNE_ATTR_RECLAIM_WATERMARK_MIN_PCT] = { .type = NLA_U8 },
	[JBD2TUNE_ATTR_RECLAIM_WATERMARK_MAX_PCT] = { .type = NLA_U8 },
	[JBD2TUNE_ATTR_LOGGED_BLOCKS] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_LOCK_DELAY_MAX_MS] = { .type = NLA_U32 },
	[JBD2TUNE_ATTR_SHADOW_WAITS_AVOIDED] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_US] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_LOCKED_WAITS_AVOIDED] = { .type = NLA_U64 },
	[JBD2TUNE_ATTR_LOCKED_WAIT_AVOIDED_US] = { .type = NLA_U64 },
};

/* Attributes of each kind: count, total us, max us, histogram. */
static const int kind_attrs[JT_WAIT_KINDS][4] = {
	[JT_WAIT_SHADOW] = { JBD2TUNE_ATTR_SHADOW_WAITS, JBD2TUNE_ATTR_SHADOW_WAIT_US,
			     JBD2TUNE_ATTR_SHADOW_WAIT_MAX_US, JBD2TUNE_ATTR_SHADOW_WAIT_HIST },
	[JT_WAIT_SPACE] = { JBD2TUNE_ATTR_SPACE_WAITS, JBD2TUNE_ATTR_SPACE_WAIT_US,
			    JBD2TUNE_ATTR_SPACE_WAIT_MAX_US, JBD2TUNE_ATTR_SPACE_WAIT_HIST },
	[JT_WAIT_LOCKED] = { JBD2TUNE_ATTR_LOCKED_WAITS, JBD2TUNE_ATTR_LOCKED_WAIT_US,
			     JBD2TUNE_ATTR_LOCKED_WAIT_MAX_US, JBD2TUNE_ATTR_LOCKED_WAIT_HIST },
	[JT_WAIT_COMMIT] = { JBD2TUNE_ATTR_COMMIT_WAITS, JBD2TUNE_ATTR_COMMIT_WAIT_US,
			     JBD2TUNE_ATTR_COMMIT_WAIT_MAX_US, JBD2TUNE_ATTR_COMMIT_WAIT_HIST },
	[JT_WAIT_COMMIT_DURATION] = { JBD2TUNE_ATTR_COMMITS, JBD2TUNE_ATTR_COMMIT_TIME_US,
				      JBD2TUNE_ATTR_COMMIT_TIME_MAX_US, JBD2TUNE_ATTR_COMMIT_TIME_HIST },
};

static uint64_t get_u64(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

static uint8_t get_u8(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u8(tb[a]) : 0;
}

static uint32_t get_u32(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u32(tb[a]) : 0;
}

static void get_hist(struct nlattr **tb, int a, uint64_t *hist)
{
	if (tb[a] && nla_len(tb[a]) == (int)(JT_HIST_BUCKETS * sizeof(uint64_t)))
		memcpy(hist, nla_data(tb[a]), JT_HIST_BUCKETS * sizeof(uint64_t));
}

static int parse_msg(struct nl_msg *msg, struct nlattr **tb, uint8_t *cmd)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	int r = genlmsg_parse(nlmsg_hdr(msg), 0, tb, JBD2TUNE_ATTR_MAX, attr_policy);

	*cmd = gh->cmd;
	return r;
}

int jt_netlink_parse_record(struct nl_msg *msg, char name[JT_NAME_MAX], struct jt_sample *out)
{
	struct nlattr *tb[JBD2TUNE_ATTR_MAX + 1];
	struct jt_sample s;
	unsigned int k;
	uint8_t cmd;

	if (parse_msg(msg, tb, &cmd) < 0 || !tb[JBD2TUNE_ATTR_NAME])
		return -EINVAL;
	if (strlen(nla_get_string(tb[JBD2TUNE_ATTR_NAME])) >= JT_NAME_MAX)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.knob[JT_KNOB_FORCE_COPY] = get_u8(tb, JBD2TUNE_ATTR_FORCE_COPY);
	s.knob[JT_KNOB_RECLAIM] = get_u8(tb, JBD2TUNE_ATTR_RECLAIM_WATERMARK_PCT);
	s.has_lock_delay = tb[JBD2TUNE_ATTR_LOCK_DELAY_MAX_MS] != NULL;
	s.knob[JT_KNOB_LOCK_DELAY] = get_u32(tb, JBD2TUNE_ATTR_LOCK_DELAY_MAX_MS);
	s.log_blocks = get_u64(tb, JBD2TUNE_ATTR_LOG_BLOCKS);
	s.free_blocks = get_u64(tb, JBD2TUNE_ATTR_FREE_BLOCKS);
	s.max_transaction_blocks = get_u64(tb, JBD2TUNE_ATTR_MAX_TRANSACTION_BLOCKS);
	for (k = 0; k < JT_WAIT_KINDS; k++) {
		s.wait[k].waits = get_u64(tb, kind_attrs[k][0]);
		s.wait[k].wait_us = get_u64(tb, kind_attrs[k][1]);
		s.wait[k].wait_max_us = get_u64(tb, kind_attrs[k][2]);
		get_hist(tb, kind_attrs[k][3], s.wait[k].hist);
	}
	/* an older module sends no commit attributes at all */
	s.has_commit_stats = tb[JBD2TUNE_ATTR_COMMIT_WAITS] != NULL;
	s.has_reclaim_limits = tb[JBD2TUNE_ATTR_RECLAIM_WATERMARK_MIN_PCT] &&
			       tb[JBD2TUNE_ATTR_RECLAIM_WATERMARK_MAX_PCT];
	s.reclaim_watermark_min_pct = get_u8(tb, JBD2TUNE_ATTR_RECLAIM_WATERMARK_MIN_PCT);
	s.reclaim_watermark_max_pct = get_u8(tb, JBD2TUNE_ATTR_RECLAIM_WATERMARK_MAX_PCT);
	s.has_logged_blocks = tb[JBD2TUNE_ATTR_LOGGED_BLOCKS] != NULL;
	s.logged_blocks = get_u64(tb, JBD2TUNE_ATTR_LOGGED_BLOCKS);
	s.copyouts_forced = get_u64(tb, JBD2TUNE_ATTR_COPYOUTS_FORCED);
	s.reclaim_runs = get_u64(tb, JBD2TUNE_ATTR_RECLAIM_RUNS);
	s.reclaim_blocks = get_u64(tb, JBD2TUNE_ATTR_RECLAIM_BLOCKS);
	/* what the knobs spared; an older module sends none of these */
	s.has_avoided = tb[JBD2TUNE_ATTR_SHADOW_WAITS_AVOIDED] != NULL;
	s.shadow_avoided = get_u64(tb, JBD2TUNE_ATTR_SHADOW_WAITS_AVOIDED);
	s.shadow_avoided_us = get_u64(tb, JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_US);
	s.locked_avoided = get_u64(tb, JBD2TUNE_ATTR_LOCKED_WAITS_AVOIDED);
	s.locked_avoided_us = get_u64(tb, JBD2TUNE_ATTR_LOCKED_WAIT_AVOIDED_US);
	strcpy(name, nla_get_string(tb[JBD2TUNE_ATTR_NAME]));
	*out = s;
	return cmd;
}

static int dump_cb(struct nl_msg *msg, void *arg)
{
	struct jt_netlink *nl = arg;
	char name[JT_NAME_MAX];
	struct jt_sample s;

	if (jt_netlink_parse_record(msg, name, &s) < 0)
		return NL_SKIP;
	nl->sample_fn(nl->sample_userdata, name, &s);
	return NL_OK;
}

static int event_cb(struct nl_msg *msg, void *arg)
{
	struct jt_netlink *nl = arg;
	struct nlattr *tb[JBD2TUNE_ATTR_MAX + 1];
	uint8_t cmd;

	if (parse_msg(msg, tb, &cmd) < 0 || !tb[JBD2TUNE_ATTR_NAME])
		return NL_SKIP;
	nl->event_fn(nl->event_userdata, cmd, nla_get_string(tb[JBD2TUNE_ATTR_NAME]),
		     get_u64(tb, JBD2TUNE_ATTR_TIMESTAMP_NS));
	return NL_OK;
}

static int on_events(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct jt_netlink *nl = userdata;

	(void)s;
	(void)fd;
	(void)revents;
	/* non-blocking socket: returns -NLE_AGAIN once drained */
	nl_recvmsgs_default(nl->events);
	return 0;
}

static int nl_errno(int nlerr)
{
	return nlerr == -NLE_OBJ_NOTFOUND ? -ENOENT : -EIO;
}

int jt_netlink_open(sd_event *event, jt_netlink_event_fn fn, void *userdata,
		    struct jt_netlink **out)
{
	struct jt_netlink *nl = calloc(1, sizeof(*nl));
	int r, grp;

	if (!nl)
		return -ENOMEM;
	nl->event_fn = fn;
	nl->event_userdata = userdata;
	nl->req = nl_socket_alloc();
	nl->events = nl_socket_alloc();
	if (!nl->req || !nl->events) {
		r = -ENOMEM;
		goto fail;
	}
	if (genl_connect(nl->req) < 0 || genl_connect(nl->events) < 0) {
		r = -EIO;
		goto fail;
	}
	nl->family = genl_ctrl_resolve(nl->req, JBD2TUNE_GENL_NAME);
	if (nl->family < 0) {
		r = nl->family == -NLE_OBJ_NOTFOUND ? -ENOENT : -EIO;
		goto fail;
	}
	grp = genl_ctrl_resolve_grp(nl->req, JBD2TUNE_GENL_NAME, JBD2TUNE_MCGRP_EVENTS);
	if (grp < 0) {
		r = nl_errno(grp);
		goto fail;
	}
	/* a doit then answers with its reply alone, no trailing ACK to drain */
	nl_socket_disable_auto_ack(nl->req);
	/*
	 * One recvmsg per reply, not a peek and a read: the kernel fills each
	 * dump message up to the reader's buffer, and 32 KiB holds the records
	 * of about 30 journals (~1 KiB each).
	 */
	if (nl_socket_set_msg_buf_size(nl->req, JT_NETLINK_BUF_SIZE) < 0 ||
	    nl_socket_set_msg_buf_size(nl->events, JT_NETLINK_BUF_SIZE) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	nl_socket_disable_msg_peek(nl->req);
	nl_socket_disable_msg_peek(nl->events);	/* an event is one message, ~850 bytes */
	nl_socket_disable_seq_check(nl->events);
	nl_socket_modify_cb(nl->events, NL_CB_VALID, NL_CB_CUSTOM, event_cb, nl);
	if (nl_socket_add_membership(nl->events, grp) < 0 ||
	    nl_socket_set_nonblocking(nl->events) < 0) {
		r = -EIO;
		goto fail;
	}
	r = sd_event_add_io(event, &nl->io, nl_socket_get_fd(nl->events), EPOLLIN, on_events, nl);
	if (r < 0)
		goto fail;
	*out = nl;
	return 0;
fail:
	jt_netlink_free(nl);
	return r;
}

/* Send GET_JOURNAL (a dump when @journal is NULL) and read the answer. */
static int request(struct jt_netlink *nl, const char *journal, jt_netlink_sample_fn fn,
		   void *userdata)
{
	struct nl_msg *msg = nlmsg_alloc();
	int r;

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, journal ? 0 : NLM_F_DUMP,
			 JBD2TUNE_CMD_GET_JOURNAL, JBD2TUNE_GENL_VERSION) ||
	    (journal && nla_put_string(msg, JBD2TUNE_ATTR_NAME, journal) < 0)) {
		nlmsg_free(msg);
		return journal ? -ENAMETOOLONG : -ENOMEM;
	}
	nl->sample_fn = fn;
	nl->sample_userdata = userdata;
	nl_socket_modify_cb(nl->req, NL_CB_VALID, NL_CB_CUSTOM, dump_cb, nl);
	r = nl_send_auto(nl->req, msg);
	nlmsg_free(msg);
	if (r < 0)
		return -EIO;
	r = nl_recvmsgs_default(nl->req);
	if (r == -NLE_DUMP_INTR)
		return -EINTR;	/* journals came or went meanwhile: some were skipped */
	return r < 0 ? nl_errno(r) : 0;
}

int jt_netlink_dump(struct jt_netlink *nl, jt_netlink_sample_fn fn, void *userdata)
{
	return request(nl, NULL, fn, userdata);
}

int jt_netlink_get(struct jt_netlink *nl, const char *journal, jt_netlink_sample_fn fn,
		   void *userdata)
{
	return request(nl, journal, fn, userdata);
}

void jt_netlink_free(struct jt_netlink *nl)
{
	if (!nl)
		return;
	sd_event_source_disable_unref(nl->io);
	if (nl->req)
		nl_socket_free(nl->req);
	if (nl->events)
		nl_socket_free(nl->events);
	free(nl);
}
