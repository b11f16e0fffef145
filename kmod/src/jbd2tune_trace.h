/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jbd2tune_trace.h - tracepoints of the jbd2-tune waits
 *
 * One event per finished wait, with the journal's file system device and
 * the duration in microseconds, e.g.
 *   bpftrace -e 'tracepoint:jbd2tune:jbd2tune_shadow_wait
 *                { @us = hist(args->duration_us); }'
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM jbd2tune

#if !defined(_JBD2TUNE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _JBD2TUNE_TRACE_H

#include <linux/tracepoint.h>

DECLARE_EVENT_CLASS(jbd2tune_wait,
		    TP_PROTO(dev_t dev, u64 duration_us),
		    TP_ARGS(dev, duration_us),
		    TP_STRUCT__entry(__field(dev_t, dev)
				     __field(u64, duration_us)),
		    TP_fast_assign(__entry->dev = dev;
				   __entry->duration_us = duration_us;),
		    TP_printk("dev %d,%d duration_us %llu",
			      MAJOR(__entry->dev), MINOR(__entry->dev),
			      __entry->duration_us)
);

DEFINE_EVENT(jbd2tune_wait, jbd2tune_shadow_wait,
	     TP_PROTO(dev_t dev, u64 duration_us),
	     TP_ARGS(dev, duration_us));

DEFINE_EVENT(jbd2tune_wait, jbd2tune_space_wait,
	     TP_PROTO(dev_t dev, u64 duration_us),
	     TP_ARGS(dev, duration_us));

DEFINE_EVENT(jbd2tune_wait, jbd2tune_locked_wait,
	     TP_PROTO(dev_t dev, u64 duration_us),
	     TP_ARGS(dev, duration_us));

DEFINE_EVENT(jbd2tune_wait, jbd2tune_commit_wait,
	     TP_PROTO(dev_t dev, u64 duration_us),
	     TP_ARGS(dev, duration_us));

DEFINE_EVENT(jbd2tune_wait, jbd2tune_commit,
	     TP_PROTO(dev_t dev, u64 duration_us),
	     TP_ARGS(dev, duration_us));

DEFINE_EVENT(jbd2tune_wait, jbd2tune_lock_delay,
	     TP_PROTO(dev_t dev, u64 duration_us),
	     TP_ARGS(dev, duration_us));

DEFINE_EVENT(jbd2tune_wait, jbd2tune_checkpoint_commit_wait,
	     TP_PROTO(dev_t dev, u64 duration_us),
	     TP_ARGS(dev, duration_us));

#endif /* _JBD2TUNE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE jbd2tune_trace
#include <trace/define_trace.h>
