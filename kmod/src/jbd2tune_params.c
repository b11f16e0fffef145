// SPDX-License-Identifier: GPL-2.0
/*
 * jbd2tune_params.c - module parameters: knob defaults for new journals
 *
 * /sys/module/jbd2/parameters/force_copy_default,
 * reclaim_watermark_pct_default and lock_delay_max_ms_default are copied
 * into every journal set up
 * after they change (jbd2tune_journal_alloc()), so a value set before a
 * mount is in effect from the journal's first transaction.  Writes are
 * validated exactly like the configfs knobs (jbd2tune_parse_uint()).
 */

#include <linux/moduleparam.h>
#include <linux/string.h>

#include "jbd2tune.h"

static unsigned int force_copy_default;
static unsigned int reclaim_watermark_pct_default;
static unsigned int lock_delay_max_ms_default;

static int jbd2tune_param_set(const char *val, const struct kernel_param *kp,
			      unsigned int max)
{
	unsigned int v;
	int err;

	err = jbd2tune_parse_uint(val, strlen(val), max, &v);
	if (err)
		return err;
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static int jbd2tune_force_copy_set(const char *val,
				   const struct kernel_param *kp)
{
	return jbd2tune_param_set(val, kp, 1);
}

static int jbd2tune_watermark_set(const char *val,
				  const struct kernel_param *kp)
{
	return jbd2tune_param_set(val, kp, JBD2TUNE_WATERMARK_PCT_MAX);
}

static int jbd2tune_lock_delay_set(const char *val,
				   const struct kernel_param *kp)
{
	return jbd2tune_param_set(val, kp, JBD2TUNE_LOCK_DELAY_MS_MAX);
}

static const struct kernel_param_ops jbd2tune_lock_delay_ops = {
	.set = jbd2tune_lock_delay_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops jbd2tune_force_copy_ops = {
	.set = jbd2tune_force_copy_set,
	.get = param_get_uint,
};

static const struct kernel_param_ops jbd2tune_watermark_ops = {
	.set = jbd2tune_watermark_set,
	.get = param_get_uint,
};

module_param_cb(force_copy_default, &jbd2tune_force_copy_ops,
		&force_copy_default, 0644);
MODULE_PARM_DESC(force_copy_default,
		 "force_copy of journals set up from now on (0/1, default 0)");
module_param_cb(reclaim_watermark_pct_default, &jbd2tune_watermark_ops,
		&reclaim_watermark_pct_default, 0644);
MODULE_PARM_DESC(reclaim_watermark_pct_default,
		 "reclaim_watermark_pct of journals set up from now on (0 off, 1..90, default 0)");
module_param_cb(lock_delay_max_ms_default, &jbd2tune_lock_delay_ops,
		&lock_delay_max_ms_default, 0644);
MODULE_PARM_DESC(lock_delay_max_ms_default,
		 "lock_delay_max_ms of journals set up from now on (0 off, 1..10000, default 0)");

/**
 * jbd2tune_force_copy_default() - current force_copy_default
 *
 * Return: 0 or 1.
 */
unsigned int jbd2tune_force_copy_default(void)
{
	return READ_ONCE(force_copy_default);
}

/**
 * jbd2tune_reclaim_watermark_pct_default() - current watermark default
 *
 * Return: 0..JBD2TUNE_WATERMARK_PCT_MAX, percent.
 */
unsigned int jbd2tune_reclaim_watermark_pct_default(void)
{
	return READ_ONCE(reclaim_watermark_pct_default);
}

/**
 * jbd2tune_lock_delay_max_ms_default() - current lock_delay_max_ms default
 *
 * Return: 0..JBD2TUNE_LOCK_DELAY_MS_MAX.
 */
unsigned int jbd2tune_lock_delay_max_ms_default(void)
{
	return READ_ONCE(lock_delay_max_ms_default);
}
