// SPDX-License-Identifier: GPL-2.0
/*
 * module/fairmath.h: wake_wide's rule, task_h_load's scaling and
 * wake_affine_weight's comparison, on hand-worked cases and, for the
 * overflow checks, against the same formulas in 128-bit arithmetic.
 */
#include "fairmath.h"
#include "tap.h"

static void test_wide(void)
{
	/* An LLC of 8: wide when both flip >= 8 and one >= 8 x the other. */
	ok(!wp_wide(0, 0, 8), "no flips: affine");
	ok(!wp_wide(8, 8, 8), "8 and 8: the ratio is 1");
	ok(wp_wide(64, 8, 8), "64 and 8: 8 times, both >= 8");
	ok(wp_wide(8, 64, 8), "the order of the partners does not matter");
	ok(!wp_wide(63, 8, 8), "63 and 8: under 8 times");
	ok(!wp_wide(1000, 7, 8), "the smaller one under the LLC size");
	ok(wp_wide(1, 1, 1), "an LLC of one CPU: any two flippers");
	ok(!wp_wide(5, 0, 1), "an LLC of one CPU: a partner that never flips");
	ok(wp_wide(0xffffffff, 0xffffffff, 1), "U32_MAX flips, an LLC of 1");
	/*
	 * The product is an unsigned int, as in the kernel's wake_wide():
	 * 2^31 * 2 wraps to 0, so these two count as wide.
	 */
	ok(wp_wide(0x80000000U, 0x80000000U, 2),
	   "2^31 * 2 wraps as in the kernel");
}

static void test_scale(void)
{
	is_u(wp_load_scale(1024, 512, 1023), 512, "1024 * 512 / 1024");
	is_u(wp_load_scale(0, 88761, 0), 0, "no load");
	is_u(wp_load_scale(1000, 1000, 0), 1000000, "an empty parent: / 1");
	is_u(wp_load_scale(10, 1, 2), 3, "rounds down: 10 / 3");
	/* A nice -20 task's load under an h_load of 2^40: no overflow. */
	is_u(wp_load_scale(88761, 1ULL << 40, (1ULL << 40) - 1), 88761,
	     "88761 * 2^40 / 2^40 exact");
	is_u(wp_load_scale(1ULL << 32, 1ULL << 31, (1ULL << 31) - 1),
	     1ULL << 32, "2^63 / 2^31");
}

/* The comparison in 128 bits, from its description. */
static int ref_weight(__int128 this_load, __int128 prev_load, __int128 task,
		      __int128 this_cap, __int128 prev_cap, int bias,
		      unsigned int pct, int sync)
{
	__int128 t = (this_load + task) * (bias ? 100 : 1) * prev_cap;
	__int128 p = (prev_load - task) * (bias ? 100 + (pct - 100) / 2 : 1) *
		     this_cap;

	return t < p + (sync ? 1 : 0);
}

/*
 * Worked by hand: this + task against prev - task, each times the other's
 * capacity, with WA_BIAS 100 against 100 + (pct - 100) / 2.
 */
static const struct wcase {
	s64 this_eff, prev_eff;
	unsigned long task, this_cap, prev_cap;
	bool bias;
	unsigned int pct;
	bool sync, this_wins;
	const char *why;
} wcases[] = {
	{ 0, 0, 100, 1024, 1024, false, 117, false, false,
	  "both idle: prev (it loses the task, this gains it)" },
	{ 100, 1000, 100, 1024, 1024, false, 117, false, true,
	  "200 against 900: this" },
	{ 1000, 100, 100, 1024, 1024, false, 117, false, false,
	  "1100 against 0: prev" },
	{ 400, 600, 100, 1024, 1024, false, 117, false, false,
	  "500 against 500: a tie is prev's" },
	{ 400, 600, 100, 1024, 1024, false, 117, true, true,
	  "500 against 500, sync: this" },
	{ 401, 600, 100, 1024, 1024, false, 117, true, false,
	  "501 against 500, sync: prev" },
	{ 400, 600, 100, 1024, 1024, true, 117, false, true,
	  "bias 117: 500 x 100 against 500 x 108" },
	{ 439, 600, 100, 1024, 1024, true, 117, false, true,
	  "bias 117: 53900 against 54000" },
	{ 440, 600, 100, 1024, 1024, true, 117, false, false,
	  "bias 117: 54000 against 54000" },
	{ 406, 600, 100, 1024, 1024, true, 110, false, true,
	  "bias 110 (105): 50600 against 52500" },
	{ 425, 600, 100, 1024, 1024, true, 110, false, false,
	  "bias 110: 52500 against 52500" },
	{ 424, 600, 100, 1024, 1024, true, 110, false, true,
	  "bias 110: 52400 against 52500" },
	{ 400, 600, 100, 1024, 1024, true, 100, false, false,
	  "bias 100: no margin, a tie is prev's" },
	{ 100, 400, 100, 512, 1024, false, 117, false, false,
	  "this at half capacity: 200 x 1024 against 300 x 512" },
	{ 100, 400, 100, 1024, 512, false, 117, false, true,
	  "prev at half capacity: 200 x 512 against 300 x 1024" },
	{ 0, 50, 100, 1024, 1024, false, 117, true, false,
	  "prev lighter than the task: negative, prev" },
	{ 0, 0, 0, 0, 0, false, 117, false, false,
	  "all zero: 0 against 0, prev" },
	{ 0, 0, 0, 0, 0, false, 117, true, true,
	  "all zero, sync: this" },
};

static void test_weight(void)
{
	unsigned int i, j, k, bad = 0, n = 0;

	for (i = 0; i < sizeof(wcases) / sizeof(wcases[0]); i++) {
		const struct wcase *c = &wcases[i];

		ok(wp_wa_weight(c->this_eff, c->prev_eff, c->task, c->this_cap,
				c->prev_cap, c->bias, c->pct, c->sync) ==
		   c->this_wins, "%s", c->why);
	}

	/*
	 * Loads far above any real one (a CPU's load_avg is its tasks'
	 * weights, 88761 at most each): up to 2^44 with capacities up to
	 * 1024 and WA_BIAS the products stay within s64.
	 */
	for (i = 0; i <= 44; i += 4)
		for (j = 0; j <= 44; j += 4)
			for (k = 0; k <= 40; k += 8) {
				s64 tl = (1LL << i) - 1, pl = 1LL << j;
				unsigned long task = 1UL << k;
				int b = (i + j + k) & 1, s = (i ^ j) & 1;

				n++;
				if (wp_wa_weight(tl, pl, task, 1024, 1000, b,
						 125, s) !=
				    ref_weight(tl, pl, task, 1024, 1000, b,
					       125, s))
					bad++;
			}
	ok(!bad, "%u of %u cases up to 2^44 differ from 128-bit math", bad, n);
}

int main(void)
{
	test_wide();
	test_scale();
	test_weight();
	return tap_done();
}
