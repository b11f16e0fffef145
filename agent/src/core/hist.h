/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Latency histogram math: parsing the kernel's 24-bucket line, windowed
 * differences and percentiles.  Pure functions, no I/O.
 */
#ifndef JT_HIST_H
#define JT_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include "sample.h"

/*
 * jt_hist_parse - parse one histogram line: exactly JT_HIST_BUCKETS
 * decimal u64 counts separated by blanks, optional trailing newline.
 * @text: NUL-terminated line.  @out: filled only on success.
 * Returns 0, or -EINVAL on too few/many fields, junk, sign or overflow.
 */
int jt_hist_parse(const char *text, uint64_t out[JT_HIST_BUCKETS]);

/*
 * jt_hist_diff - out = now - then, bucket by bucket.
 * Returns false (and leaves out unspecified) when any bucket of @now is
 * below @then: the counters went backwards (the journal was set up anew).
 */
bool jt_hist_diff(const uint64_t now[JT_HIST_BUCKETS],
		  const uint64_t then[JT_HIST_BUCKETS],
		  uint64_t out[JT_HIST_BUCKETS]);

/* Lower and upper bound of bucket @i in us: [0,2) for i=0, [2^i, 2^(i+1)). */
double jt_hist_bucket_lo_us(unsigned int i);
double jt_hist_bucket_hi_us(unsigned int i);

/*
 * jt_hist_percentile_us - the @pct percentile (0 < pct <= 100) of the waits
 * counted in @hist, in microseconds.
 *
 * The rank k = pct/100 * n (n = sum of counts) falls into the bucket i whose
 * cumulative count first reaches k; the value is interpolated linearly
 * inside that bucket: lo + (hi - lo) * (k - before) / count_i, i.e. the waits
 * of a bucket are taken as spread evenly over it.  Bucket 0 spans [0, 2) us
 * (it also holds < 1 us); the open last bucket is taken as [2^23, 2^24).
 * When @max_us (largest wait ever seen; 0 = unknown) lies inside the chosen
 * bucket the result is capped at it, since no wait was longer.
 * Returns 0 when @hist is empty.
 */
double jt_hist_percentile_us(const uint64_t hist[JT_HIST_BUCKETS], double pct,
			     uint64_t max_us);

/* Sum of all buckets. */
uint64_t jt_hist_total(const uint64_t hist[JT_HIST_BUCKETS]);

#endif
