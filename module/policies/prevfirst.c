// SPDX-License-Identifier: GPL-2.0
/*
 * prevfirst: the wakee's previous CPU, if the idle mask has it idle and it
 * shares the target's LLC, before anything else; then idlecore's search (a
 * whole idle core, then any idle CPU).  idlecore takes prev only as part of
 * a whole idle core and tries target first: prevfirst keeps the wakee
 * where its cache is even when prev's SMT sibling is busy or the target is
 * idle too, and trades a core of its own for fewer migrations.
 */
#include "../fair.h"
#include "../idle.h"
#include "../stats.h"

static struct wp_tunable prevfirst_tun[] = {
	WP_TUNABLE("max_tries", 1, 64, 4),
};

static notrace int prevfirst_select(struct wp_wakeup *w)
{
	int tries = READ_ONCE(prevfirst_tun[0].val);
	struct wp_llc *llc = wp_llc_of(w->target);

	if (!llc) {
		wp_count(WP_C_STALE);
		return WP_HANDBACK;
	}
	/* prev, claimed from the mask like any candidate (wp_mask_try()). */
	if (wp_cpus_share_cache(w->prev, w->target) &&
	    wp_mask_try(w, llc, w->prev)) {
		w->outcome = WP_OUT_PREV;
		return w->prev;
	}
	return wp_core_then_cpu(w, llc, tries, 0, NULL);
}

/*
 * For the docs (scripts/gen-docs):
 * search: prev if idle in the idle mask and in target's LLC (claimed), then
 *	as `idlecore`: a whole idle core, then any idle CPU
 * idea: fewer migrations: prev's cache before a core of its own
 * tunable max_tries: as idlecore's, for the idle-core and the idle-CPU
 *	searches after prev
 */
struct wakeplace_policy wp_policy_prevfirst = {
	.name = "prevfirst",
	.description = "an idle prev in target's LLC first, then idlecore's search; claim and verify",
	.select_cpu = prevfirst_select,
	.needs_idle_state = true,
	.tunables = prevfirst_tun,
	.nr_tunables = ARRAY_SIZE(prevfirst_tun),
};
