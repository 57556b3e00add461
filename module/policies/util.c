// SPDX-License-Identifier: GPL-2.0
/*
 * util: scan depth from the LLC's utilisation, the SIS_UTIL idea.  The
 * kernel recomputes sd_llc_shared->nr_idle_scan from the LLC's summed
 * utilisation at load balance (deeper when the LLC is idle, zero when it
 * is overloaded); this policy scales that depth by scale_pct and keeps at
 * least min_depth, and has no idle-core pass.
 */
#include "../fair.h"

enum { UTIL_SCALE, UTIL_MIN };

static struct wp_tunable util_tun[] = {
	[UTIL_SCALE] = WP_TUNABLE("scale_pct", 0, 1000, 100),
	[UTIL_MIN] = WP_TUNABLE("min_depth", 0, 1024, 0),
};

static notrace int util_select(struct wp_wakeup *w)
{
	struct sched_domain *sd;
	int i, held, depth;

	i = wp_sis_fast_checks(w, &held);
	if (i >= 0)
		return i;
	sd = wp_sd_llc(w->target);
	if (sd) {
		depth = wp_sis_util_depth(w->target);
		if (depth != INT_MAX)
			depth = (depth - 1) * READ_ONCE(util_tun[UTIL_SCALE].val) /
				100;
		depth = max(depth, READ_ONCE(util_tun[UTIL_MIN].val));
		if (depth > 0) {
			i = wp_select_idle_cpu(w, sd, false, w->target,
					       depth == INT_MAX ? depth :
					       depth + 1);
			if (i >= 0) {
				w->outcome = WP_OUT_SCAN;
				return i;
			}
		}
	}
	return wp_sis_none(w, held);
}

/*
 * For the docs (scripts/gen-docs):
 * search: scan depth from the LLC's utilisation, scaled
 * idea: SIS_UTIL (v6.0)
 * tunable scale_pct: percent applied to the SIS_UTIL scan depth
 * tunable min_depth: scan at least this many CPUs
 */
struct wakeplace_policy wp_policy_util = {
	.name = "util",
	.description = "LLC scan as deep as the LLC's utilisation allows (SIS_UTIL), scaled by scale_pct",
	.select_cpu = util_select,
	.tunables = util_tun,
	.nr_tunables = ARRAY_SIZE(util_tun),
};
