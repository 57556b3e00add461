// SPDX-License-Identifier: GPL-2.0
/*
 * idlecore: a whole idle core first (all its SMT siblings idle in the
 * per-LLC idle mask, claimed whole, as sched_ext's default does with its
 * idle-core mask), then any idle CPU: an idle core gives the
 * wakee a core of its own instead of an SMT sibling of a busy CPU.
 * Without SMT every idle CPU is an idle core.  Finding nothing idle, it
 * spreads as idlemask does.
 */
#include "../fair.h"
#include "../idle.h"
#include "../stats.h"

static struct wp_tunable idlecore_tun[] = {
	WP_TUNABLE("max_tries", 1, 64, 4),
	WP_TUNABLE("spread", 0, 64, 0),
};
static DEFINE_PER_CPU(struct wp_spread_hits, idlecore_hits);

static notrace int idlecore_select(struct wp_wakeup *w)
{
	int tries = READ_ONCE(idlecore_tun[0].val);
	struct wp_llc *llc = wp_llc_of(w->target);

	if (!llc) {
		wp_count(WP_C_STALE);
		return WP_HANDBACK;
	}
	/* A whole idle core (target's or prev's first), then any idle CPU. */
	return wp_core_then_cpu(w, llc, tries, READ_ONCE(idlecore_tun[1].val),
				&idlecore_hits);
}

/* policies/idlecore/counters: the fallbacks' inbound and spread. */
static ssize_t idlecore_counters(char *buf)
{
	return wp_spread_show(&idlecore_hits, buf);
}

/*
 * For the docs (scripts/gen-docs):
 * search: a whole idle core first (all its siblings idle in the idle
 *	mask, the core claimed by one cmpxchg, siblings in other words of
 *	the mask checked after it), then any idle CPU; without SMT a
 *	core is a CPU and the mask is walked once; nothing idle: as
 *	`idlemask`
 * idea: sched_ext's default, SIS_CORE
 * tunable max_tries: candidates claimed and re-checked at most, as whole
 *	idle cores, then in the idle mask
 * tunable spread: as idlemask's
 */
struct wakeplace_policy wp_policy_idlecore = {
	.name = "idlecore",
	.description = "idle cores first (claimed whole from the idle mask), then idle CPUs; claim and verify",
	.select_cpu = idlecore_select,
	.needs_idle_state = true,
	.tunables = idlecore_tun,
	.nr_tunables = ARRAY_SIZE(idlecore_tun),
	.counters_show = idlecore_counters,
};
