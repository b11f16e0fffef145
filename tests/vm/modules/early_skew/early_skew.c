// SPDX-License-Identifier: GPL-2.0
/*
 * early_skew.c - a test's fault: one open early handle too many
 *
 * For tests/vm/tests/kmod-early-reset.sh (issue 22, item 4).  Our jbd2.ko
 * counts, per journal, the open handles a commit's lock delay waits for
 * (lock_early_updates).  At T_SWITCH no handle is open, so the count
 * must be 0 there; jbd2tune_lock_delay_done() warns once when it is not
 * and starts again from 0, since a count left over would make every later
 * commit wait its journal's whole lock_delay_max_ms.  No load can leave
 * the count wrong (that would be the bug the check is there for), so
 * this module makes it wrong: a kprobe on jbd2tune_lock_delay_done()
 * adds one to the count of the first journal that counts, once, and says
 * so in the kernel log.
 *
 * Built by tests/vm/run (# vm-test-module: early_skew) against the
 * kernel's headers and our module tree's jbd2tune.h, which gives the
 * layout of struct jbd2tune_journal.  Never shipped.
 */

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>

#include "jbd2tune.h"

/* 1 until the fault has been injected */
static atomic_t early_skew_left = ATOMIC_INIT(1);

/* before jbd2tune_lock_delay_done(journal): j_state_lock is held */
static int early_skew_pre(struct kprobe *kp, struct pt_regs *regs)
{
	journal_t *journal = (journal_t *)regs_get_kernel_argument(regs, 0);
	struct jbd2tune_journal *jt = jbd2tune_of(journal);

	if (!READ_ONCE(jt->lock_counting))
		return 0;
	if (!atomic_add_unless(&early_skew_left, -1, 0))
		return 0;
	atomic_inc(&jt->lock_early_updates);
	pr_info("early_skew: %s: early-handle count set to %d at T_SWITCH\n",
		journal->j_devname, atomic_read(&jt->lock_early_updates));
	return 0;
}

static struct kprobe early_skew_kp = {
	.symbol_name = "jbd2tune_lock_delay_done",
	.pre_handler = early_skew_pre,
};

static int __init early_skew_init(void)
{
	int err;

	err = register_kprobe(&early_skew_kp);
	if (err)
		pr_err("early_skew: no kprobe on %s: %d\n",
		       early_skew_kp.symbol_name, err);
	return err;
}

static void __exit early_skew_exit(void)
{
	unregister_kprobe(&early_skew_kp);
}

module_init(early_skew_init);
module_exit(early_skew_exit);
MODULE_DESCRIPTION("jbd2-tune test fault: an early-handle count one too high");
MODULE_LICENSE("GPL");
