// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of the histogram math (hist.c): hand-computed percentiles. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hist.h"

struct pct_case {
	const char *name;
	struct { unsigned int bucket; uint64_t count; } fill[4];
	double pct;
	uint64_t max_us;
	double want_us;
};

/*
 * Expected values by hand: k = pct/100 * n; value = lo + (hi - lo) * (k - before) / count.
 */
static const struct pct_case pct_cases[] = {
	{ "empty histogram is 0", { { 0, 0 } }, 99, 0, 0.0 },
	/* 100 waits in [32,64): k = 99 -> 32 + 32 * 99/100 */
	{ "p99 inside one bucket", { { 5, 100 } }, 99, 0, 63.68 },
	/* 50 in [0,2), 50 in [1024,2048): k = 50 -> 0 + 2 * 50/50 */
	{ "p50 at the end of bucket 0", { { 0, 50 }, { 10, 50 } }, 50, 0, 2.0 },
	/* k = 99 -> 1024 + 1024 * 49/50 */
	{ "p99 in the upper bucket", { { 0, 50 }, { 10, 50 } }, 99, 0, 2027.52 },
	/* 10 in [1024,2048): k = 9.9 -> 1024 + 1024 * 0.99 = 2037.76, capped by max 1500 */
	{ "capped by the largest wait", { { 10, 10 } }, 99, 1500, 1500.0 },
	{ "max outside the bucket does not cap", { { 10, 10 } }, 99, 5000, 2037.76 },
	/* one wait in the open last bucket, taken as [2^23, 2^24) */
	{ "last bucket", { { 23, 1 } }, 100, 0, 16777216.0 },
	/* 990 in [2,4) and 10 in [2^15, 2^16): k = 990 -> exactly the end of bucket 1 */
	{ "rank on a bucket edge", { { 1, 990 }, { 15, 10 } }, 99, 0, 4.0 },
	/* k = 999 -> 32768 + 32768 * 9/10 */
	{ "p99.9 in the tail", { { 1, 990 }, { 15, 10 } }, 99.9, 0, 62259.2 },
};

static void test_percentiles(void **state)
{
	size_t i, f;

	(void)state;
	for (i = 0; i < sizeof(pct_cases) / sizeof(pct_cases[0]); i++) {
		const struct pct_case *c = &pct_cases[i];
		uint64_t h[JT_HIST_BUCKETS] = { 0 };
		double got;

		for (f = 0; f < 4; f++)
			h[c->fill[f].bucket] += c->fill[f].count;
		got = jt_hist_percentile_us(h, c->pct, c->max_us);
		print_message("# %s: got %.4f want %.4f\n", c->name, got, c->want_us);
		assert_true(got > c->want_us - 1e-6 && got < c->want_us + 1e-6);
	}
}

struct parse_case {
	const char *text;
	int want_r;
	uint64_t b0, b23;
};

static const struct parse_case parse_cases[] = {
	{ "1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 7\n", 0, 1, 7 },
	{ "  5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 18446744073709551615", 0, 5,
	  UINT64_MAX },
	{ "1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", -EINVAL, 0, 0 },	/* 23 fields */
	{ "1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", -EINVAL, 0, 0 },	/* 25 */
	{ "1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 x\n", -EINVAL, 0, 0 },
	{ "-1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", -EINVAL, 0, 0 },
	{ "1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 18446744073709551616", -EINVAL, 0, 0 },
	{ "", -EINVAL, 0, 0 },
};

static void test_parse(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];
		uint64_t h[JT_HIST_BUCKETS];

		memset(h, 0xaa, sizeof(h));
		assert_int_equal(jt_hist_parse(c->text, h), c->want_r);
		if (c->want_r == 0) {
			assert_true(h[0] == c->b0);
			assert_true(h[23] == c->b23);
		} else {
			assert_true(h[0] == 0xaaaaaaaaaaaaaaaaULL);	/* untouched on error */
		}
	}
}

static void test_diff(void **state)
{
	uint64_t now[JT_HIST_BUCKETS] = { 5, 10 }, then[JT_HIST_BUCKETS] = { 2, 10 }, d[JT_HIST_BUCKETS];

	(void)state;
	assert_true(jt_hist_diff(now, then, d));
	assert_true(d[0] == 3 && d[1] == 0);
	then[1] = 11;	/* a bucket went backwards: the journal was set up anew */
	assert_false(jt_hist_diff(now, then, d));
	assert_true(jt_hist_total(now) == 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
