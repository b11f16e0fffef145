// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Histogram math for jbd2-tuned.  See hist.h for shapes and units, and
 * Documentation/agent-policy.md for why the interpolation is linear.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#include "hist.h"

int jt_hist_parse(const char *text, uint64_t out[JT_HIST_BUCKETS])
{
	uint64_t tmp[JT_HIST_BUCKETS];
	const char *p = text;
	unsigned int i;

	for (i = 0; i < JT_HIST_BUCKETS; i++) {
		uint64_t v = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		while (isdigit((unsigned char)*p)) {
			unsigned int d = (unsigned int)(*p - '0');

			if (v > (UINT64_MAX - d) / 10)
				return -EINVAL;
			v = v * 10 + d;
			p++;
		}
		if (*p && *p != ' ' && *p != '\t' && *p != '\n')
			return -EINVAL;
		tmp[i] = v;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	memcpy(out, tmp, sizeof(tmp));
	return 0;
}

bool jt_hist_diff(const uint64_t now[JT_HIST_BUCKETS],
		  const uint64_t then[JT_HIST_BUCKETS],
		  uint64_t out[JT_HIST_BUCKETS])
{
	unsigned int i;

	for (i = 0; i < JT_HIST_BUCKETS; i++) {
		if (now[i] < then[i])
			return false;
		out[i] = now[i] - then[i];
	}
	return true;
}

double jt_hist_bucket_lo_us(unsigned int i)
{
	return i == 0 ? 0.0 : (double)(1ULL << i);
}

double jt_hist_bucket_hi_us(unsigned int i)
{
	return (double)(1ULL << (i + 1));
}

uint64_t jt_hist_total(const uint64_t hist[JT_HIST_BUCKETS])
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < JT_HIST_BUCKETS; i++)
		n += hist[i];
	return n;
}

double jt_hist_percentile_us(const uint64_t hist[JT_HIST_BUCKETS], double pct,
			     uint64_t max_us)
{
	uint64_t n = jt_hist_total(hist), before = 0;
	double k, lo, hi, v;
	unsigned int i;

	if (n == 0 || pct <= 0.0)
		return 0.0;
	if (pct > 100.0)
		pct = 100.0;
	k = pct / 100.0 * (double)n;
	for (i = 0; i < JT_HIST_BUCKETS; i++) {
		if (hist[i] == 0)
			continue;
		if ((double)(before + hist[i]) >= k)
			break;
		before += hist[i];
	}
	if (i == JT_HIST_BUCKETS)	/* rounding: take the last non-empty */
		for (i = JT_HIST_BUCKETS; i-- > 0 && hist[i] == 0;)
			;
	lo = jt_hist_bucket_lo_us(i);
	hi = jt_hist_bucket_hi_us(i);
	v = lo + (hi - lo) * (k - (double)before) / (double)hist[i];
	if (v < lo)
		v = lo;
	if (max_us && (double)max_us >= lo && (double)max_us < hi && v > (double)max_us)
		v = (double)max_us;
	return v;
}
