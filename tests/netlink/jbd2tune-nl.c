// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune-nl - test client of the jbd2tune generic netlink family
 *
 *   jbd2tune-nl dump [--repeat N] [--duration-ms T]
 *                                   one record per journal; with --repeat,
 *                                   N dumps (or as many as fit in T ms)
 *                                   and a summary line only
 *   jbd2tune-nl get NAME [--repeat N] [--duration-ms T]
 *                                   the record of one journal; repeated:
 *                                   a summary, ENOENT counted apart
 *   jbd2tune-nl listen [--count N] [--timeout-ms T]
 *                                   one line per event
 *   jbd2tune-nl fuzz N [--seed S]   N malformed requests, error counts
 *   jbd2tune-nl now                 CLOCK_MONOTONIC in microseconds
 *   jbd2tune-nl mount DEV DIR [FSTYPE]
 *                                   mount(2) (default ext4), printing
 *                                   CLOCK_MONOTONIC before and after the
 *                                   call: for measuring event latency
 *
 * A record is a block of key=value lines, keys named like the configfs
 * files (name=, force_copy=, ..., shadow_wait_hist=<24 counts>), ended
 * by an empty line.  An event is one line: t_us= (CLOCK_MONOTONIC when
 * received), event=, kernel_us= (when the kernel built it), then the
 * record's and the event's own fields.
 *
 * Errors go to stderr as "error: <op>: <errno name> (<extack message>)";
 * exit status 0 on success, 1 on an error, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/jbd2tune.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct field {
	int attr;
	const char *key;
};

/* the u8 knobs and limits, in configfs file names */
static const struct field u8_fields[] = {
	{ JBD2TUNE_ATTR_FORCE_COPY, "force_copy" },
	{ JBD2TUNE_ATTR_RECLAIM_WATERMARK_PCT, "reclaim_watermark_pct" },
	{ JBD2TUNE_ATTR_RECLAIM_WATERMARK_MIN_PCT, "reclaim_watermark_min_pct" },
	{ JBD2TUNE_ATTR_RECLAIM_WATERMARK_MAX_PCT, "reclaim_watermark_max_pct" },
};

/* the u32 knobs, in configfs file names */
static const struct field u32_fields[] = {
	{ JBD2TUNE_ATTR_LOCK_DELAY_MAX_MS, "lock_delay_max_ms" },
	{ JBD2TUNE_ATTR_FORCE_COPY_MAX_KIB, "force_copy_max_kib" },
};

/* the u64 figures, in configfs file names */
static const struct field u64_fields[] = {
	{ JBD2TUNE_ATTR_LOG_BLOCKS, "log_blocks" },
	{ JBD2TUNE_ATTR_FREE_BLOCKS, "free_blocks" },
	{ JBD2TUNE_ATTR_MAX_TRANSACTION_BLOCKS, "max_transaction_blocks" },
	{ JBD2TUNE_ATTR_SHADOW_WAITS, "shadow_waits" },
	{ JBD2TUNE_ATTR_SHADOW_WAIT_US, "shadow_wait_us" },
	{ JBD2TUNE_ATTR_SHADOW_WAIT_MAX_US, "shadow_wait_max_us" },
	{ JBD2TUNE_ATTR_SPACE_WAITS, "space_waits" },
	{ JBD2TUNE_ATTR_SPACE_WAIT_US, "space_wait_us" },
	{ JBD2TUNE_ATTR_SPACE_WAIT_MAX_US, "space_wait_max_us" },
	{ JBD2TUNE_ATTR_LOCKED_WAITS, "locked_waits" },
	{ JBD2TUNE_ATTR_LOCKED_WAIT_US, "locked_wait_us" },
	{ JBD2TUNE_ATTR_LOCKED_WAIT_MAX_US, "locked_wait_max_us" },
	{ JBD2TUNE_ATTR_COPYOUTS_FORCED, "copyouts_forced" },
	{ JBD2TUNE_ATTR_COPYOUTS_FORCED_FAILED, "copyouts_forced_failed" },
	{ JBD2TUNE_ATTR_LOGGED_BLOCKS, "logged_blocks" },
	{ JBD2TUNE_ATTR_COMMIT_WAITS, "commit_waits" },
	{ JBD2TUNE_ATTR_COMMIT_WAIT_US, "commit_wait_us" },
	{ JBD2TUNE_ATTR_COMMIT_WAIT_MAX_US, "commit_wait_max_us" },
	{ JBD2TUNE_ATTR_COMMITS, "commits" },
	{ JBD2TUNE_ATTR_COMMIT_TIME_US, "commit_time_us" },
	{ JBD2TUNE_ATTR_COMMIT_TIME_MAX_US, "commit_time_max_us" },
	{ JBD2TUNE_ATTR_RECLAIM_RUNS, "reclaim_runs" },
	{ JBD2TUNE_ATTR_RECLAIM_BLOCKS, "reclaim_blocks" },
	{ JBD2TUNE_ATTR_THRESHOLD_BLOCKS, "threshold_blocks" },
	{ JBD2TUNE_ATTR_STALL_MAX_US, "stall_max_us" },
	{ JBD2TUNE_ATTR_LOCK_DELAYS, "lock_delays" },
	{ JBD2TUNE_ATTR_LOCK_DELAY_US, "lock_delay_us" },
	{ JBD2TUNE_ATTR_LOCK_DELAY_MAX_US, "lock_delay_max_us" },
	{ JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAITS, "checkpoint_commit_waits" },
	{ JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAIT_US, "checkpoint_commit_wait_us" },
	{ JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAIT_MAX_US, "checkpoint_commit_wait_max_us" },
	{ JBD2TUNE_ATTR_FORCE_COPY_BYTES, "force_copy_bytes" },
	{ JBD2TUNE_ATTR_FORCE_COPY_BYTES_PEAK, "force_copy_bytes_peak" },
	{ JBD2TUNE_ATTR_FORCE_COPY_STOPS, "force_copy_stops" },
	{ JBD2TUNE_ATTR_COPYOUTS_FORCED_CAPPED, "copyouts_forced_capped" },
	{ JBD2TUNE_ATTR_SHADOW_WAITS_AVOIDED, "shadow_waits_avoided" },
	{ JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_US, "shadow_wait_avoided_us" },
	{ JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_MAX_US, "shadow_wait_avoided_max_us" },
	{ JBD2TUNE_ATTR_SHADOW_WAITS_AVOIDED_UNTIMED, "shadow_waits_avoided_untimed" },
	{ JBD2TUNE_ATTR_LOCKED_WAITS_AVOIDED, "locked_waits_avoided" },
	{ JBD2TUNE_ATTR_LOCKED_WAIT_AVOIDED_US, "locked_wait_avoided_us" },
	{ JBD2TUNE_ATTR_LOCKED_WAITS_AVOIDED_UNTIMED, "locked_waits_avoided_untimed" },
};

static const struct field hist_fields[] = {
	{ JBD2TUNE_ATTR_SHADOW_WAIT_HIST, "shadow_wait_hist" },
	{ JBD2TUNE_ATTR_SPACE_WAIT_HIST, "space_wait_hist" },
	{ JBD2TUNE_ATTR_LOCKED_WAIT_HIST, "locked_wait_hist" },
	{ JBD2TUNE_ATTR_COMMIT_WAIT_HIST, "commit_wait_hist" },
	{ JBD2TUNE_ATTR_COMMIT_TIME_HIST, "commit_time_hist" },
	{ JBD2TUNE_ATTR_LOCK_DELAY_HIST, "lock_delay_hist" },
	{ JBD2TUNE_ATTR_CHECKPOINT_COMMIT_WAIT_HIST, "checkpoint_commit_wait_hist" },
	{ JBD2TUNE_ATTR_SHADOW_WAIT_AVOIDED_HIST, "shadow_wait_avoided_hist" },
};

static const char *const cmd_names[] = {
	[JBD2TUNE_CMD_GET_JOURNAL] = "GET_JOURNAL",
	[JBD2TUNE_CMD_JOURNAL_ADD] = "JOURNAL_ADD",
	[JBD2TUNE_CMD_JOURNAL_REMOVE] = "JOURNAL_REMOVE",
	[JBD2TUNE_CMD_SPACE_LOW] = "SPACE_LOW",
	[JBD2TUNE_CMD_STALL] = "STALL",
};

static struct nla_policy policy[JBD2TUNE_ATTR_MAX + 1];

static int family_id;
static const char *prog = "jbd2tune-nl";

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void init_policy(void)
{
	size_t i;

	for (i = 0; i < sizeof(u64_fields) / sizeof(u64_fields[0]); i++)
		policy[u64_fields[i].attr].type = NLA_U64;
	for (i = 0; i < sizeof(hist_fields) / sizeof(hist_fields[0]); i++)
		policy[hist_fields[i].attr].minlen =
			JBD2TUNE_HIST_BUCKETS * sizeof(uint64_t);
	policy[JBD2TUNE_ATTR_NAME].type = NLA_STRING;
	policy[JBD2TUNE_ATTR_NAME].maxlen = JBD2TUNE_NAME_MAX;
	for (i = 0; i < sizeof(u8_fields) / sizeof(u8_fields[0]); i++)
		policy[u8_fields[i].attr].type = NLA_U8;
	for (i = 0; i < sizeof(u32_fields) / sizeof(u32_fields[0]); i++)
		policy[u32_fields[i].attr].type = NLA_U32;
	policy[JBD2TUNE_ATTR_STALL_KIND].type = NLA_U8;
	policy[JBD2TUNE_ATTR_TIMESTAMP_NS].type = NLA_U64;
}

/* --- errors with their extack message ------------------------------------ */

struct reply_state {
	int err;		/* 0, or the negative errno of NLMSG_ERROR */
	int done;
	char msg[256];		/* extack message */
	unsigned long records;
	int intr;		/* a part carried NLM_F_DUMP_INTR */
	int print;
};

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct reply_state *st = arg;
	size_t off = sizeof(*e);	/* NETLINK_CAP_ACK: header only */
	struct nlattr *tlv;
	int rem;

	(void)nla;
	st->err = e->error;
	st->done = 1;
	st->msg[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (NLMSG_HDRLEN + off >= nlh->nlmsg_len)
		return NL_STOP;
	rem = nlh->nlmsg_len - NLMSG_HDRLEN - off;
	nla_for_each_attr(tlv, (struct nlattr *)((char *)e + off), rem, rem) {
		if (nla_type(tlv) == NLMSGERR_ATTR_MSG && nla_len(tlv) > 0)
			snprintf(st->msg, sizeof(st->msg), "%.*s",
				 nla_len(tlv), (char *)nla_data(tlv));
	}
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct reply_state *st = arg;

	(void)msg;
	st->done = 1;
	return NL_STOP;
}

static int on_finish(struct nl_msg *msg, void *arg)
{
	struct reply_state *st = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		st->intr = 1;
	st->done = 1;
	return NL_STOP;
}

static const char *errname(int err)
{
	const char *n = strerrorname_np(err < 0 ? -err : err);

	return n ? n : "E?";
}

/* --- printing records ---------------------------------------------------- */

static void print_hist(FILE *f, const char *sep, const char *key,
		       struct nlattr *a)
{
	uint64_t v[JBD2TUNE_HIST_BUCKETS];
	int i;

	memcpy(v, nla_data(a), sizeof(v));
	fprintf(f, "%s%s=", sep, key);
	/* on an event line the counts are joined with commas */
	for (i = 0; i < JBD2TUNE_HIST_BUCKETS; i++)
		fprintf(f, "%s%" PRIu64, i ? (*sep == ' ' ? "," : " ") : "",
			v[i]);
}

/*
 * sep "\n": a record, one key=value per line; sep " ": all on one line
 * (events).
 */
static void print_attrs(FILE *f, struct nlattr **tb, const char *sep)
{
	size_t i;
	const char *s = "";

	if (tb[JBD2TUNE_ATTR_NAME]) {
		fprintf(f, "name=%s", nla_get_string(tb[JBD2TUNE_ATTR_NAME]));
		s = sep;
	}
	for (i = 0; i < sizeof(u8_fields) / sizeof(u8_fields[0]); i++) {
		if (!tb[u8_fields[i].attr])
			continue;
		fprintf(f, "%s%s=%u", s, u8_fields[i].key,
			nla_get_u8(tb[u8_fields[i].attr]));
		s = sep;
	}
	for (i = 0; i < sizeof(u32_fields) / sizeof(u32_fields[0]); i++) {
		if (!tb[u32_fields[i].attr])
			continue;
		fprintf(f, "%s%s=%u", s, u32_fields[i].key,
			nla_get_u32(tb[u32_fields[i].attr]));
		s = sep;
	}
	if (tb[JBD2TUNE_ATTR_STALL_KIND]) {
		unsigned int k = nla_get_u8(tb[JBD2TUNE_ATTR_STALL_KIND]);

		fprintf(f, "%sstall_kind=%s%s%s", s,
			k & JBD2TUNE_STALL_SHADOW ? "shadow" : "",
			(k & JBD2TUNE_STALL_SHADOW) &&
			(k & JBD2TUNE_STALL_SPACE) ? "," : "",
			k & JBD2TUNE_STALL_SPACE ? "space" : "");
		s = sep;
	}
	for (i = 0; i < sizeof(u64_fields) / sizeof(u64_fields[0]); i++) {
		if (!tb[u64_fields[i].attr])
			continue;
		fprintf(f, "%s%s=%" PRIu64, s, u64_fields[i].key,
			(uint64_t)nla_get_u64(tb[u64_fields[i].attr]));
		s = sep;
	}
	for (i = 0; i < sizeof(hist_fields) / sizeof(hist_fields[0]); i++) {
		if (!tb[hist_fields[i].attr])
			continue;
		print_hist(f, s, hist_fields[i].key, tb[hist_fields[i].attr]);
		s = sep;
	}
	fputc('\n', f);
}

static int parse(struct nl_msg *msg, struct nlattr **tb, uint8_t *cmd)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gh;
	int err;

	if (nlh->nlmsg_type != family_id)
		return -NLE_MSGTYPE_NOSUPPORT;
	gh = genlmsg_hdr(nlh);
	*cmd = gh->cmd;
	err = genlmsg_parse(nlh, 0, tb, JBD2TUNE_ATTR_MAX, policy);
	if (err)
		return err;
	if (!tb[JBD2TUNE_ATTR_NAME])
		return -NLE_MISSING_ATTR;
	return 0;
}

static int on_record(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[JBD2TUNE_ATTR_MAX + 1];
	struct reply_state *st = arg;
	uint8_t cmd;
	int err;

	if (nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP_INTR)
		st->intr = 1;
	err = parse(msg, tb, &cmd);
	if (err) {
		fprintf(stderr, "%s: bad record: %s\n", prog, nl_geterror(err));
		st->err = -EBADMSG;
		return NL_SKIP;
	}
	st->records++;
	if (st->print) {
		print_attrs(stdout, tb, "\n");
		fputc('\n', stdout);
	}
	return NL_OK;
}

/* --- socket -------------------------------------------------------------- */

static struct nl_sock *open_sock(struct reply_state *st)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1;

	if (!sk)
		die("out of memory");
	if (genl_connect(sk))
		die("cannot open a generic netlink socket");
	family_id = genl_ctrl_resolve(sk, JBD2TUNE_GENL_NAME);
	if (family_id < 0)
		die("family %s not found (is our jbd2.ko loaded?): %s",
		    JBD2TUNE_GENL_NAME, nl_geterror(family_id));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one,
		   sizeof(one));
	if (st) {
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_record,
				    st);
		nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, on_finish,
				    st);
		nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, on_ack, st);
		nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_error, st);
	}
	return sk;
}

/* Send a GET_JOURNAL and read the answer; returns 0 or a negative errno. */
static int request(struct nl_sock *sk, struct reply_state *st,
		   const char *name, int dump)
{
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	if (!msg)
		die("out of memory");
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family_id, 0,
			 NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0),
			 JBD2TUNE_CMD_GET_JOURNAL, JBD2TUNE_GENL_VERSION))
		die("genlmsg_put");
	if (name && nla_put_string(msg, JBD2TUNE_ATTR_NAME, name))
		die("name too long for a message");
	st->err = 0;
	st->done = 0;
	st->intr = 0;
	st->msg[0] = '\0';
	err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		die("send: %s", nl_geterror(err));
	while (!st->done) {
		err = nl_recvmsgs_default(sk);
		if (err < 0 && !st->done) {
			/* libnl maps NLM_F_DUMP_INTR to NLE_DUMP_INTR */
			if (err == -NLE_DUMP_INTR) {
				st->intr = 1;
				return 0;
			}
			die("receive: %s", nl_geterror(err));
		}
	}
	return st->err;
}

static void report(const char *op, struct reply_state *st)
{
	fprintf(stderr, "error: %s: %s (%s)\n", op, errname(st->err),
		st->msg[0] ? st->msg : "no message");
}

/* CLOCK_MONOTONIC us after which repeated requests stop; 0: never */
static uint64_t deadline;

static int expired(void)
{
	return deadline && now_us() >= deadline;
}

static int cmd_get(const char *name, unsigned long repeat)
{
	struct reply_state st = { .print = repeat == 1 && !deadline };
	struct nl_sock *sk = open_sock(&st);
	unsigned long i, ok = 0, gone = 0, errors = 0;
	int err;

	for (i = 0; i < repeat && !expired(); i++) {
		err = request(sk, &st, name, 0);
		if (!err) {
			ok++;
		} else if (err == -ENOENT && !st.print) {
			gone++;
		} else {
			errors++;
			report("get", &st);
		}
	}
	nl_socket_free(sk);
	if (!st.print)
		printf("gets=%lu answered=%lu enoent=%lu errors=%lu\n",
		       ok + gone + errors, ok, gone, errors);
	return errors ? 1 : 0;
}

/*
 * One dump; an interrupted one (a journal came or went between two parts)
 * is retried a few times.  With repeat > 1, prints one summary line.
 */
static int cmd_dump(unsigned long repeat, int print)
{
	struct reply_state st = { .print = print && repeat == 1 && !deadline };
	struct nl_sock *sk = open_sock(&st);
	unsigned long i, intr = 0, errors = 0, records = 0;
	int tries, err;

	for (i = 0; i < repeat && !expired(); i++) {
		for (tries = 0; tries < 5; tries++) {
			st.records = 0;
			err = request(sk, &st, NULL, 1);
			if (err || !st.intr)
				break;
			intr++;
		}
		if (err) {
			errors++;
			report("dump", &st);
		}
		records += st.records;
	}
	nl_socket_free(sk);
	if (repeat > 1 || deadline)
		printf("dumps=%lu records=%lu interrupted=%lu errors=%lu\n",
		       i, records, intr, errors);
	return errors ? 1 : 0;
}

/* --- events -------------------------------------------------------------- */

struct listen_state {
	unsigned long events;
};

static int on_event(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[JBD2TUNE_ATTR_MAX + 1];
	struct listen_state *ls = arg;
	uint64_t t = now_us();
	uint8_t cmd;
	int err;

	err = parse(msg, tb, &cmd);
	if (err) {
		printf("# bad event: %s\n", nl_geterror(err));
		fflush(stdout);
		return NL_SKIP;
	}
	printf("t_us=%" PRIu64 " event=%s", t,
	       cmd < sizeof(cmd_names) / sizeof(cmd_names[0]) &&
	       cmd_names[cmd] ? cmd_names[cmd] : "UNKNOWN");
	if (tb[JBD2TUNE_ATTR_TIMESTAMP_NS])
		printf(" kernel_us=%" PRIu64,
		       (uint64_t)nla_get_u64(tb[JBD2TUNE_ATTR_TIMESTAMP_NS]) /
		       1000);
	fputc(' ', stdout);
	print_attrs(stdout, tb, " ");
	fflush(stdout);
	ls->events++;
	return NL_OK;
}

static int cmd_listen(unsigned long count, long timeout_ms)
{
	struct listen_state ls = { 0 };
	struct nl_sock *sk = open_sock(NULL);
	uint64_t deadline = timeout_ms >= 0 ?
			    now_us() + (uint64_t)timeout_ms * 1000 : 0;
	int grp, err;

	grp = genl_ctrl_resolve_grp(sk, JBD2TUNE_GENL_NAME,
				    JBD2TUNE_MCGRP_EVENTS);
	if (grp < 0)
		die("group %s: %s", JBD2TUNE_MCGRP_EVENTS, nl_geterror(grp));
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_event, &ls);
	nl_socket_set_buffer_size(sk, 4 << 20, 0);
	err = nl_socket_add_membership(sk, grp);
	if (err)
		die("join group: %s", nl_geterror(err));
	printf("# listening\n");
	fflush(stdout);

	while (!count || ls.events < count) {
		struct pollfd pfd = { nl_socket_get_fd(sk), POLLIN, 0 };
		int wait = -1;

		if (deadline) {
			uint64_t now = now_us();

			if (now >= deadline)
				break;
			wait = (deadline - now + 999) / 1000;
		}
		err = poll(&pfd, 1, wait);
		if (err < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		if (err <= 0)
			continue;
		err = nl_recvmsgs_default(sk);
		if (err == -NLE_NOMEM) {
			/* ENOBUFS: the socket overflowed, events were lost */
			printf("# overrun\n");
			fflush(stdout);
		} else if (err < 0) {
			die("receive: %s", nl_geterror(err));
		}
	}
	printf("# events=%lu\n", ls.events);
	nl_socket_free(sk);
	return 0;
}

/* --- fuzz ---------------------------------------------------------------- */

static uint32_t rnd_state = 1;

static uint32_t rnd(void)
{
	/* xorshift32: reproducible from --seed */
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static void fill_random(void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len--)
		*p++ = rnd();
}

/* Append one attribute, type and payload as given; returns the new length. */
static size_t put_attr(char *buf, size_t len, size_t cap, uint16_t type,
		       const void *data, uint16_t dlen)
{
	struct nlattr *a = (struct nlattr *)(buf + len);
	size_t total = NLA_ALIGN(NLA_HDRLEN + dlen);

	if (len + total > cap)
		return len;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + dlen;
	memcpy((char *)a + NLA_HDRLEN, data, dlen);
	memset((char *)a + NLA_HDRLEN + dlen, 0, total - NLA_HDRLEN - dlen);
	return len + total;
}

enum fuzz_kind {
	FUZZ_UNKNOWN_CMD,
	FUZZ_MISSING_NAME,
	FUZZ_OVERSIZED_NAME,
	FUZZ_UNTERMINATED_NAME,
	FUZZ_WRONG_TYPE,
	FUZZ_UNKNOWN_ATTR,
	FUZZ_BAD_VERSION_RESERVED,
	FUZZ_TRUNCATED_ATTR,
	FUZZ_RANDOM_PAYLOAD,
	FUZZ_RANDOM_DUMP,
	FUZZ_UNKNOWN_NAME,
	FUZZ_NR,
};

static const char *const fuzz_names[FUZZ_NR] = {
	"unknown_cmd", "missing_name", "oversized_name", "unterminated_name",
	"wrong_type", "unknown_attr", "bad_version_reserved", "truncated_attr",
	"random_payload", "random_dump", "unknown_name",
};

/* Builds one bad request of @kind into @buf; returns its length. */
static size_t fuzz_build(char *buf, size_t cap, enum fuzz_kind kind,
			 uint32_t seq)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct genlmsghdr *gh = (struct genlmsghdr *)(buf + NLMSG_HDRLEN);
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	char name[512];
	uint64_t v64 = rnd();
	uint16_t n;

	memset(buf, 0, len);
	nlh->nlmsg_type = family_id;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	gh->cmd = JBD2TUNE_CMD_GET_JOURNAL;
	gh->version = JBD2TUNE_GENL_VERSION;

	switch (kind) {
	case FUZZ_UNKNOWN_CMD:
		/* 0, the event commands, and numbers beyond the last one */
		gh->cmd = rnd() % 2 ? rnd() % (JBD2TUNE_CMD_MAX + 1) : rnd();
		if (gh->cmd == JBD2TUNE_CMD_GET_JOURNAL)
			gh->cmd = JBD2TUNE_CMD_STALL;
		len = put_attr(buf, len, cap, JBD2TUNE_ATTR_NAME, "vda-8", 6);
		if (rnd() % 2)
			nlh->nlmsg_flags |= NLM_F_DUMP;
		break;
	case FUZZ_MISSING_NAME:
		break;
	case FUZZ_OVERSIZED_NAME:
		n = JBD2TUNE_NAME_MAX + rnd() % 400;
		memset(name, 'a' + rnd() % 26, n - 1);
		name[n - 1] = '\0';
		len = put_attr(buf, len, cap, JBD2TUNE_ATTR_NAME, name, n);
		break;
	case FUZZ_UNTERMINATED_NAME:
		n = 1 + rnd() % 32;
		memset(name, 'v', n);
		len = put_attr(buf, len, cap, JBD2TUNE_ATTR_NAME, name, n);
		break;
	case FUZZ_WRONG_TYPE:
		/* a knob or counter attribute in a request, or NAME as u64 */
		if (rnd() % 2) {
			len = put_attr(buf, len, cap, JBD2TUNE_ATTR_NAME, &v64,
				       sizeof(v64));
		} else {
			len = put_attr(buf, len, cap, JBD2TUNE_ATTR_NAME,
				       "vda-8", 6);
			len = put_attr(buf, len, cap,
				       JBD2TUNE_ATTR_FORCE_COPY +
				       rnd() % (JBD2TUNE_ATTR_MAX -
						JBD2TUNE_ATTR_FORCE_COPY + 1),
				       &v64, rnd() % 9);
		}
		break;
	case FUZZ_UNKNOWN_ATTR:
		len = put_attr(buf, len, cap, JBD2TUNE_ATTR_NAME, "vda-8", 6);
		len = put_attr(buf, len, cap,
			       JBD2TUNE_ATTR_MAX + 1 + rnd() % 1000, &v64,
			       sizeof(v64));
		if (rnd() % 2)
			nlh->nlmsg_flags |= NLM_F_DUMP;
		break;
	case FUZZ_BAD_VERSION_RESERVED:
		gh->reserved = 1 + rnd() % 65535;
		if (rnd() % 2)
			nlh->nlmsg_flags |= NLM_F_DUMP;
		break;
	case FUZZ_TRUNCATED_ATTR:
		/* an attribute header claiming more than the message holds */
		len = put_attr(buf, len, cap, JBD2TUNE_ATTR_NAME, "vda-8", 6);
		((struct nlattr *)(buf + NLMSG_HDRLEN + GENL_HDRLEN))->nla_len =
			200 + rnd() % 1000;
		break;
	case FUZZ_RANDOM_PAYLOAD:
	case FUZZ_RANDOM_DUMP:
		n = rnd() % 512;
		if (len + n > cap)
			n = cap - len;
		fill_random(buf + NLMSG_HDRLEN, GENL_HDRLEN + n);
		len += n;
		if (kind == FUZZ_RANDOM_DUMP)
			nlh->nlmsg_flags |= NLM_F_DUMP;
		break;
	case FUZZ_UNKNOWN_NAME:
		snprintf(name, sizeof(name), "nosuch-%u", rnd());
		len = put_attr(buf, len, cap, JBD2TUNE_ATTR_NAME, name,
			       strlen(name) + 1);
		break;
	default:
		break;
	}
	nlh->nlmsg_len = len;
	return len;
}

/*
 * Read the answers to request @seq: records, then NLMSG_DONE or
 * NLMSG_ERROR.  Returns 0 (ack or finished dump), a negative errno, or 1
 * when nothing came within the socket timeout.
 */
static int fuzz_wait(int fd, uint32_t seq)
{
	static char buf[65536];
	ssize_t n;

	for (;;) {
		struct nlmsghdr *nlh;
		int rem;

		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return errno == EAGAIN ? 1 : -errno;
		rem = n;
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, rem);
		     nlh = NLMSG_NEXT(nlh, rem)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
		}
	}
}

static int cmd_fuzz(unsigned long n, uint32_t seed)
{
	static const int errs[] = { EINVAL, EOPNOTSUPP, ENOENT, ERANGE,
				    EMSGSIZE, EPERM };
	unsigned long per_kind_ok[FUZZ_NR] = { 0 };
	unsigned long by_err[sizeof(errs) / sizeof(errs[0])] = { 0 };
	unsigned long ok = 0, other = 0, noreply = 0, errors = 0;
	struct nl_sock *sk = open_sock(NULL);
	struct timeval tv = { 2, 0 };
	int fd = nl_socket_get_fd(sk);
	char buf[2048];
	unsigned long i;
	size_t j;

	rnd_state = seed ? seed : 1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (i = 0; i < n; i++) {
		enum fuzz_kind kind = rnd() % FUZZ_NR;
		uint32_t seq = 0x10000 + i;
		size_t len = fuzz_build(buf, sizeof(buf), kind, seq);
		int err;

		if (nl_sendto(sk, buf, len) < 0) {
			errors++;
			continue;
		}
		err = fuzz_wait(fd, seq);
		if (err == 1) {
			noreply++;
		} else if (!err) {
			/* random payloads may happen to be valid dumps */
			ok++;
			per_kind_ok[kind]++;
		} else {
			errors++;
			for (j = 0; j < sizeof(errs) / sizeof(errs[0]); j++)
				if (-err == errs[j])
					break;
			if (j < sizeof(errs) / sizeof(errs[0]))
				by_err[j]++;
			else
				other++;
		}
	}
	nl_socket_free(sk);

	printf("sent=%lu errors=%lu ok=%lu noreply=%lu", n, errors, ok,
	       noreply);
	for (j = 0; j < sizeof(errs) / sizeof(errs[0]); j++)
		printf(" %s=%lu", errname(errs[j]), by_err[j]);
	printf(" other=%lu\n", other);
	for (j = 0; j < FUZZ_NR; j++)
		if (per_kind_ok[j])
			printf("# accepted %s: %lu\n", fuzz_names[j],
			       per_kind_ok[j]);
	/* the family must still answer properly */
	return cmd_dump(1, 0) || noreply;
}

static int cmd_mount(const char *dev, const char *dir, const char *type)
{
	uint64_t t0, t1;

	t0 = now_us();
	if (mount(dev, dir, type, 0, NULL)) {
		fprintf(stderr, "error: mount %s %s: %s\n", dev, dir,
			strerror(errno));
		return 1;
	}
	t1 = now_us();
	printf("mount_start_us=%" PRIu64 " mount_end_us=%" PRIu64 "\n", t0, t1);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s dump [--repeat N] [--duration-ms T]\n"
		"       %s get NAME [--repeat N] [--duration-ms T]\n"
		"       %s listen [--count N] [--timeout-ms T]\n"
		"       %s fuzz N [--seed S]\n"
		"       %s now\n"
		"       %s mount DEV DIR [FSTYPE]\n",
		prog, prog, prog, prog, prog, prog);
	exit(2);
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	int i;

	init_policy();
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "now")) {
		printf("%" PRIu64 "\n", now_us());
		return 0;
	}
	if (!strcmp(argv[1], "mount")) {
		if (argc != 4 && argc != 5)
			usage();
		return cmd_mount(argv[2], argv[3], argc == 5 ? argv[4] : "ext4");
	}
	if (!strcmp(argv[1], "get") || !strcmp(argv[1], "dump")) {
		int get = !strcmp(argv[1], "get");
		unsigned long repeat = 1;

		if (get && argc < 3)
			usage();
		for (i = 2 + get; i < argc; i++) {
			if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
				repeat = num(argv[++i]);
			else if (!strcmp(argv[i], "--duration-ms") &&
				 i + 1 < argc)
				deadline = now_us() + num(argv[++i]) * 1000;
			else
				usage();
		}
		if (!repeat)
			repeat = 1;
		return get ? cmd_get(argv[2], repeat) : cmd_dump(repeat, 1);
	}
	if (!strcmp(argv[1], "listen")) {
		unsigned long count = 0;
		long timeout = -1;

		for (i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "--count") && i + 1 < argc)
				count = num(argv[++i]);
			else if (!strcmp(argv[i], "--timeout-ms") &&
				 i + 1 < argc)
				timeout = num(argv[++i]);
			else
				usage();
		}
		return cmd_listen(count, timeout);
	}
	if (!strcmp(argv[1], "fuzz")) {
		uint32_t seed = 1;

		if (argc < 3)
			usage();
		for (i = 3; i < argc; i++) {
			if (!strcmp(argv[i], "--seed") && i + 1 < argc)
				seed = num(argv[++i]);
			else
				usage();
		}
		return cmd_fuzz(num(argv[2]), seed);
	}
	usage();
	return 2;
}
