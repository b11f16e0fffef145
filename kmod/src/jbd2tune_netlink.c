// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_netlink.c - generic netlink family "jbd2tune"
 *
 * One request, JBD2TUNE_CMD_GET_JOURNAL: with JBD2TUNE_ATTR_NAME it
 * answers for that journal (doit), as a dump it answers for every live
 * journal.  Anyone may ask: the figures are the ones configfs shows to
 * every user.  The family also owns the multicast group "events", whose
 * messages jbd2tune_netlink_events.c decides on and jbd2tune_nl_notify()
 * sends.
 *
 * Every reply and event carries the whole record of a journal, built from
 * one jbd2tune_snapshot() (see jbd2tune_nl_fill()).  The family lives in
 * the initial network namespace only (netnsok is not set): journals are
 * not network objects, and the agent runs there.
 *
 * Requests are parsed strictly (no GENL_DONT_VALIDATE_* flag, reserved
 * header field checked since resv_start_op is 0): the only attribute a
 * request may carry is the NUL-terminated name, at most
 * JBD2TUNE_NAME_MAX - 1 bytes; anything else is -EINVAL with an extack
 * message, set by the genetlink core before our handlers run.
 */

#include <linux/atomic.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "jbd2tune.h"

enum jbd2tune_nl_mcgrp {
	JBD2TUNE_NL_MCGRP_EVENTS,
};

static const struct nla_policy jbd2tune_nl_policy[JBD2TUNE_ATTR_NAME + 1] = {
	[JBD2TUNE_ATTR_NAME] = { .type = NLA_NUL_STRING,
				 .len = JBD2TUNE_NAME_MAX - 1 },
};

static const struct genl_multicast_group jbd2tune_nl_mcgrps[] = {
	[JBD2TUNE_NL_MCGRP_EVENTS] = { .name = JBD2TUNE_MCGRP_EVENTS },
};

/*
 * Bumped whenever a journal joins or leaves the registry; a dump that
 * takes more than one message marks its parts NLM_F_DUMP_INTR when it
 * changed in between (genl_dump_check_consistent()), because resuming by
 * index may then skip or repeat a journal.
 */
static atomic_t jbd2tune_nl_generation = ATOMIC_INIT(1);

static struct genl_family jbd2tune_nl_family;

static int jbd2tune_nl_put_hist(struct sk_buff *skb, int attr,
				const struct jbd2tune_wait_snapshot *ws)
{
	return nla_put(skb, attr, sizeof(ws->hist), ws->hist);
}

static int jbd2tune_nl_put_u64(struct sk_buff *skb, int attr, u64 val)
{
	return nla_put_u64_64bit(skb, attr, val, JBD2TUNE_ATTR_PAD);
}

/* The attributes every reply and event carries; -EMSGSIZE when full. */
static int jbd2tune_nl_put_snapshot(struct sk_buff *skb,
				    const struct jbd2tune_snapshot *s)
{
	static const struct {
		u16 attr[3];
	} wait_attrs[JBD2TUNE_NR_WAITS] = {
		[JBD2TUNE_WAIT_SHADOW] = { { JBD2TUNE_ATTR_SHADOW_WAITS,
					     JBD2TUNE_ATTR_SHADOW_WAIT_US,
					     JBD2TUNE_ATTR_SHADOW_WAIT_MAX_US } },
		[JBD2TUNE_WAIT_SPACE] = { { JBD2TUNE_ATTR_SPACE_WAITS,
					    JBD2TUNE_ATTR_SPACE_WAIT_US,
					    JBD2TUNE_ATTR_SPACE_WAIT_MAX_US } },
		[JBD2TUNE_WAIT_LOCKED] = { { JBD2TUNE_ATTR_LOCKED_WAITS,
					     JBD2TUNE_ATTR_LOCKED_WAIT_US,
					     JBD2TUNE_ATTR_LOCKED_WAIT_MAX_US } },
		[JBD2TUNE_WAIT_COMMIT_WAIT] = {
			{ JBD2TUNE_ATTR_COMMIT_WAITS,
			  JBD2TUNE_ATTR_COMMIT_WAIT_US,
			  JBD2TUNE_ATTR_COMMIT_WAIT_MAX_US } },
		[JBD2TUNE_WAIT_COMMIT] = { { JBD2TUNE_ATTR_COMMITS,
					     JBD2TUNE_ATTR_COMMIT_TIME_US,
					     JBD2TUNE_ATTR_COMMIT_TIME_MAX_US } },
		[JBD2TUNE_WAIT_LOCK_DELAY] = {
			{ JBD2TUNE_ATTR_LOCK_DELAYS,
			  JBD2TUNE_ATTR_LOCK_DELAY_US,
			  JBD2TUNE_ATTR_LOCK_DELAY_MAX_US } },
		[JBD2TUNE_WAIT_CHECKPOINT_COMMIT] = {
			{ JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAITS,
			  JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAIT_US,
			  JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAIT_MAX_US } },
		[JBD2TUNE_WAIT_SHADOW_AVOIDED] = {
			{ JBD2TUNE_ATTR_SHADOW_WAITS_AVOIDED,
			  JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_US,
			  JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_MAX_US } },
	};
	static const u16 hist_attrs[JBD2TUNE_NR_WAITS] = {
		[JBD2TUNE_WAIT_SHADOW] = JBD2TUNE_ATTR_SHADOW_WAIT_HIST,
		[JBD2TUNE_WAIT_SPACE] = JBD2TUNE_ATTR_SPACE_WAIT_HIST,
		[JBD2TUNE_WAIT_LOCKED] = JBD2TUNE_ATTR_LOCKED_WAIT_HIST,
		[JBD2TUNE_WAIT_COMMIT_WAIT] = JBD2TUNE_ATTR_COMMIT_WAIT_HIST,
		[JBD2TUNE_WAIT_COMMIT] = JBD2TUNE_ATTR_COMMIT_TIME_HIST,
		[JBD2TUNE_WAIT_LOCK_DELAY] = JBD2TUNE_ATTR_LOCK_DELAY_HIST,
		[JBD2TUNE_WAIT_CHECKPOINT_COMMIT] =
			JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAIT_HIST,
		[JBD2TUNE_WAIT_SHADOW_AVOIDED] =
			JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_HIST,
	};
	int k;

	if (nla_put_string(skb, JBD2TUNE_ATTR_NAME, s->name) ||
	    nla_put_u8(skb, JBD2TUNE_ATTR_FORCE_COPY, s->force_copy) ||
	    nla_put_u8(skb, JBD2TUNE_ATTR_RECLAIM_WATERMARK_PCT,
		       s->reclaim_watermark_pct) ||
	    nla_put_u32(skb, JBD2TUNE_ATTR_LOCK_DELAY_MAX_MS,
			s->lock_delay_max_ms) ||
	    nla_put_u8(skb, JBD2TUNE_ATTR_RECLAIM_WATERMARK_MIN_PCT,
		       s->reclaim_watermark_min_pct) ||
	    nla_put_u8(skb, JBD2TUNE_ATTR_RECLAIM_WATERMARK_MAX_PCT,
		       s->reclaim_watermark_max_pct) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_LOG_BLOCKS, s->log_blocks) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_FREE_BLOCKS,
				s->free_blocks) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_MAX_TRANSACTION_BLOCKS,
				s->max_transaction_blocks))
		return -EMSGSIZE;
	for (k = 0; k < JBD2TUNE_NR_WAITS; k++) {
		const struct jbd2tune_wait_snapshot *ws = &s->waits[k];

		if (jbd2tune_nl_put_u64(skb, wait_attrs[k].attr[0], ws->count) ||
		    jbd2tune_nl_put_u64(skb, wait_attrs[k].attr[1],
					ws->total_us) ||
		    jbd2tune_nl_put_u64(skb, wait_attrs[k].attr[2], ws->max_us) ||
		    jbd2tune_nl_put_hist(skb, hist_attrs[k], ws))
			return -EMSGSIZE;
	}
	if (jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_COPYOUTS_FORCED,
				s->copyouts_forced) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_COPYOUTS_FORCED_FAILED,
				s->copyouts_forced_failed) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_RECLAIM_RUNS,
				s->reclaim_runs) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_RECLAIM_BLOCKS,
				s->reclaim_blocks) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_LOGGED_BLOCKS,
				s->logged_blocks) ||
	    nla_put_u32(skb, JBD2TUNE_ATTR_FORCE_COPY_MAX_KIB,
			s->force_copy_max_kib) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_FORCE_COPY_BYTES,
				s->force_copy_bytes) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_FORCE_COPY_BYTES_PEAK,
				s->force_copy_bytes_peak) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_FORCE_COPY_STOPS,
				s->force_copy_stops) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_COPYOUTS_FORCED_CAPPED,
				s->copyouts_forced_capped) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_SHADOW_WAITS_AVOIDED_UNTIMED,
				s->shadow_waits_avoided_untimed) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_LOCKED_WAITS_AVOIDED,
				s->locked_waits_avoided) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_LOCKED_WAIT_AVOIDED_US,
				s->locked_wait_avoided_us) ||
	    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_LOCKED_WAITS_AVOIDED_UNTIMED,
				s->locked_waits_avoided_untimed))
		return -EMSGSIZE;
	return 0;
}

/* Size of a message from jbd2tune_nl_fill(), event attributes included. */
static size_t jbd2tune_nl_msg_size(void)
{
	size_t u64_attrs = 3 + 3 * JBD2TUNE_NR_WAITS + 5 + 3 + 4 + 4;

	return nla_total_size(JBD2TUNE_NAME_MAX) +	/* name */
	       2 * nla_total_size(sizeof(u8)) +		/* knobs */
	       2 * nla_total_size(sizeof(u32)) +	/* lock_delay, cap */
	       2 * nla_total_size(sizeof(u8)) +		/* watermark range */
	       nla_total_size(sizeof(u8)) +		/* stall kind */
	       u64_attrs * nla_total_size_64bit(sizeof(u64)) +
	       JBD2TUNE_NR_WAITS *
	       nla_total_size(JBD2TUNE_HIST_BUCKETS * sizeof(u64));
}

/*
 * One message: a genetlink header with @cmd, the journal's record and, for
 * an event (@ev not NULL), the event's own attributes.
 */
static int jbd2tune_nl_fill(struct sk_buff *skb, u32 portid, u32 seq,
			    int flags, u8 cmd,
			    const struct jbd2tune_snapshot *snap,
			    const struct jbd2tune_event *ev,
			    struct netlink_callback *cb)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &jbd2tune_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (jbd2tune_nl_put_snapshot(skb, snap))
		goto cancel;
	if (ev) {
		if (jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_TIMESTAMP_NS,
					ev->timestamp_ns))
			goto cancel;
		if (cmd == JBD2TUNE_CMD_STALL &&
		    (nla_put_u8(skb, JBD2TUNE_ATTR_STALL_KIND, ev->stall_kind) ||
		     jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_STALL_MAX_US,
					 ev->stall_max_us)))
			goto cancel;
		if (cmd == JBD2TUNE_CMD_SPACE_LOW &&
		    jbd2tune_nl_put_u64(skb, JBD2TUNE_ATTR_THRESHOLD_BLOCKS,
					ev->threshold_blocks))
			goto cancel;
	}
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Must hold jbd2tune_lock. */
static struct jbd2tune_journal *jbd2tune_nl_find(const char *name)
{
	struct jbd2tune_journal *jt;

	lockdep_assert_held(&jbd2tune_lock);
	list_for_each_entry(jt, &jbd2tune_journals, node)
		if (!strcmp(jt->journal.j_devname, name))
			return jt;
	return NULL;
}

static int jbd2tune_nl_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct jbd2tune_snapshot *snap;
	struct jbd2tune_journal *jt;
	struct sk_buff *msg;
	struct nlattr *attr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, JBD2TUNE_ATTR_NAME))
		return -EINVAL;
	attr = info->attrs[JBD2TUNE_ATTR_NAME];

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	mutex_lock(&jbd2tune_lock);
	jt = jbd2tune_nl_find(nla_data(attr));
	if (jt)
		jbd2tune_snapshot(jt, snap);
	mutex_unlock(&jbd2tune_lock);
	if (!jt) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "no such journal");
		err = -ENOENT;
		goto out;
	}

	err = -ENOMEM;
	msg = genlmsg_new(jbd2tune_nl_msg_size(), GFP_KERNEL);
	if (!msg)
		goto out;
	err = jbd2tune_nl_fill(msg, info->snd_portid, info->snd_seq, 0,
			       JBD2TUNE_CMD_GET_JOURNAL, snap, NULL, NULL);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	err = genlmsg_reply(msg, info);
out:
	kfree(snap);
	return err;
}

/*
 * cb->args[0] is the index in jbd2tune_journals of the next journal to
 * send.  The registry is walked under jbd2tune_lock, so no journal goes
 * away while we read it; between two parts of the dump the list may change,
 * which cb->seq reports to the caller.
 */
static int jbd2tune_nl_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct jbd2tune_snapshot *snap;
	struct jbd2tune_journal *jt;
	long idx = 0, start = cb->args[0];
	int err = 0;

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	mutex_lock(&jbd2tune_lock);
	cb->seq = atomic_read(&jbd2tune_nl_generation);
	list_for_each_entry(jt, &jbd2tune_journals, node) {
		if (idx++ < start)
			continue;
		jbd2tune_snapshot(jt, snap);
		err = jbd2tune_nl_fill(skb, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI,
				       JBD2TUNE_CMD_GET_JOURNAL, snap, NULL,
				       cb);
		if (err) {
			idx--;
			break;
		}
	}
	mutex_unlock(&jbd2tune_lock);
	kfree(snap);
	cb->args[0] = idx;

	/* A record that does not fit an empty message would loop forever. */
	if (err && !skb->len)
		return err;
	return skb->len;
}

static const struct genl_small_ops jbd2tune_nl_ops[] = {
	{
		.cmd = JBD2TUNE_CMD_GET_JOURNAL,
		.doit = jbd2tune_nl_get_doit,
		.dumpit = jbd2tune_nl_get_dumpit,
	},
};

static struct genl_family jbd2tune_nl_family __ro_after_init = {
	.name = JBD2TUNE_GENL_NAME,
	.version = JBD2TUNE_GENL_VERSION,
	.maxattr = JBD2TUNE_ATTR_NAME,
	.policy = jbd2tune_nl_policy,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.small_ops = jbd2tune_nl_ops,
	.n_small_ops = ARRAY_SIZE(jbd2tune_nl_ops),
	.resv_start_op = 0,
	.mcgrps = jbd2tune_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(jbd2tune_nl_mcgrps),
};

/**
 * jbd2tune_nl_registry_changed() - a journal joined or left the registry
 *
 * Lets dumps in progress notice; lock-free.
 */
void jbd2tune_nl_registry_changed(void)
{
	atomic_inc(&jbd2tune_nl_generation);
}

/**
 * jbd2tune_nl_notify() - multicast an event about a journal
 * @jt: the journal; alive for the duration of the call
 * @ev: the event (command and its own figures)
 *
 * Builds the journal's record with jbd2tune_snapshot(), so it takes
 * j_state_lock for reading and allocates with GFP_KERNEL: call it from
 * process context (a work item, mount or umount), never from a wait path
 * or with j_state_lock held.  Does nothing when nobody listens.
 */
void jbd2tune_nl_notify(struct jbd2tune_journal *jt,
			const struct jbd2tune_event *ev)
{
	struct jbd2tune_snapshot *snap;
	struct sk_buff *msg;

	if (!genl_has_listeners(&jbd2tune_nl_family, &init_net,
				JBD2TUNE_NL_MCGRP_EVENTS))
		return;
	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return;
	jbd2tune_snapshot(jt, snap);
	msg = genlmsg_new(jbd2tune_nl_msg_size(), GFP_KERNEL);
	if (!msg)
		goto out;
	if (jbd2tune_nl_fill(msg, 0, 0, 0, ev->cmd, snap, ev, NULL)) {
		nlmsg_free(msg);
		goto out;
	}
	/* -ESRCH when the last listener just left: nothing to do */
	genlmsg_multicast(&jbd2tune_nl_family, msg, 0,
			  JBD2TUNE_NL_MCGRP_EVENTS, GFP_KERNEL);
out:
	kfree(snap);
}

/**
 * jbd2tune_netlink_init() - register the generic netlink family
 *
 * Called last from jbd2tune_init(): requests may arrive as soon as it
 * returns.
 *
 * Return: 0 or a negative errno.
 */
int jbd2tune_netlink_init(void)
{
	return genl_register_family(&jbd2tune_nl_family);
}

/**
 * jbd2tune_netlink_exit() - unregister the family
 *
 * Called first from jbd2tune_exit(); waits for requests in progress.
 */
void jbd2tune_netlink_exit(void)
{
	genl_unregister_family(&jbd2tune_nl_family);
}
