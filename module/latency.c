// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeup-to-run latency and placement quality.
 *
 * Every policy is measured on the same wakeups: each is stamped at
 * sched_waking, whatever the active policy, and a policy's hook only
 * annotates the stamp of a wakeup it placed.  A tracked wakeup has a slot
 * in one global table, keyed by its task pointer (no field can be added
 * to task_struct), in four steps:
 *
 * waking	sched_waking claims a slot and stamps it: time, the active
 *		policy, its row, previous CPU.  The row is decided here, by
 *		the same rule for every policy: a wakeup that will reach
 *		select_task_rq_fair (a CFS task that is neither queued nor
 *		still on its CPU, with a choice of CPUs) starts as handback
 *		(the kernel decided: stock's, or a policy's hand-back); every
 *		other one is unplaced (queued on its CPU's wake list or woken
 *		in place, pinned, another class), a row of its own;
 * placement	the hook (a non-stock policy) sets the policy and outcome of
 *		the stamp the same CPU made a moment before;
 * arrival	sched_wakeup, under the runqueue lock of the CPU the task was
 *		queued on, notes that CPU, whether it was busy (stacked),
 *		whether it had just been given another wakee that has not
 *		run yet (a double pick) and, for a stacked wakee, whether an
 *		idle CPU it may use, idle since before the stamp, existed in
 *		that LLC (missed idle: the oracle, the same test at the same
 *		moment for every policy);
 * switch-in	sched_switch, on whatever CPU runs the task, consumes the
 *		slot and accounts it all to the slot's policy and row on
 *		that CPU's counters and histograms.
 *
 * Every change of a slot is claim (cmpxchg of the key to BUSY), write,
 * release (store of the key): two tasks colliding on a slot lose one sample
 * (lat_dropped), never mix two.  The switch-in consumes with a cmpxchg from
 * the key it read, so a slot taken over meanwhile is not accounted.  Task
 * pointers in slots are compared, never dereferenced.
 *
 * Times are local_clock(), the clock of the scheduler's own wait-time
 * statistics; across CPUs it can be off by its per-CPU drift, and a
 * negative difference counts as 0.
 */
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "registry.h"
#include "latency.h"
#include "sched.h"
#include "stats.h"
#include "trace.h"

/* Low bits of a slot key (task_structs are cache-line aligned). */
#define WP_LAT_BUSY	1UL	/* the whole key: claimed, being written */
#define WP_LAT_STACKED	2UL
#define WP_LAT_DOUBLE	4UL
#define WP_LAT_MISSED	8UL	/* stacked, and an allowed CPU was idle */
#define WP_LAT_FLAGS	15UL

/**
 * struct wp_lat_slot - one tracked wakeup.
 * @key: 0 (free), WP_LAT_BUSY, or the task pointer with flag bits.
 * @t0: local_clock() at the placement.
 * @prev: the task's previous CPU.
 * @placed: the CPU it was queued on (-1 until it arrived).
 * @pol: index of the policy in wp_policies[].
 * @outcome: enum wp_outcome of the placement, or WP_LAT_UNPLACED.
 * @cgi: the index of the task's cgroup assignment in the table it was
 *	looked up in (see wp_cg_find_serial())...
 * @cgser: ...and its serial number; 0 when the task had none.
 */
struct wp_lat_slot {
	unsigned long key;
	u64 t0;
	s32 prev;
	s32 placed;
	u16 pol;
	u8 outcome;
	u8 cgi;
	u32 cgser;
} __aligned(32);
static_assert(sizeof(struct wp_lat_slot) == 32);

/* Pairs of slots, one cache line each; a task hashes to one pair. */
static struct wp_lat_slot *wp_lat_tab;
static unsigned int wp_lat_bits;

/*
 * Histograms are kept for the policies in use (active, shadow, assigned
 * to a cgroup) and, beyond them, up to this many in all: the last ones
 * active before.  Whoever compares policies (ab,
 * switchback, autophase, auto) reads a policy's histograms while it is
 * active, and a person running `wakeplacectl stats` after a switch still
 * finds the last few; a policy evicted starts from zero when it is
 * active again.  57 KiB per online CPU each.
 */
#define WP_LAT_KEEP	4

/**
 * struct wp_lat_hists - one policy's histograms.
 * @rcu: frees it after the probes that may still account to it.
 * @base: the reset baseline (the sum at the last reset).
 * @cpu: per possible CPU, its histograms: only CPUs online when the policy
 *	was last prepared have them (the others' samples are not kept in
 *	histograms; their counters still count).  Each is published once.
 */
struct wp_lat_hists {
	struct rcu_head rcu;
	struct wp_lathist *base;
	struct wp_lathist *cpu[];
};

/**
 * struct wp_lat_pol - one policy's histogram state (wp_mutex).
 * @h: its histograms or NULL (never active with tracking, or evicted).
 * @ncpus: how many CPUs have histograms in @h.
 * @used: when it was last prepared (wp_lat_clock), for the eviction.
 */
struct wp_lat_pol {
	struct wp_lat_hists __rcu *h;
	unsigned int ncpus;
	u64 used;
};
static struct wp_lat_pol *wp_lat_pols;
static u64 wp_lat_clock;

/* Reads of the sums retry around a reset, like the stats' baselines. */
static seqcount_mutex_t wp_lat_seq;

/* Off until someone measures: stock then runs no probe at all. */
unsigned int wp_lat_period __read_mostly;
static DEFINE_PER_CPU(unsigned int, wp_lat_countdown);

/*
 * Per CPU, the last arrival there and its task while it has not run: the
 * double-pick check.  Set under that CPU's runqueue lock, by whichever CPU
 * holds it; cleared when the task runs, wherever it runs (a cmpxchg from
 * another CPU when load balancing moved it).  And since when the CPU runs
 * its idle task (written by the CPU at its switches: 0 when measuring
 * began, WP_NOT_IDLE while it runs a task), for the oracle.
 */
struct wp_arrival {
	u64 t;
	struct task_struct *pending;
	u64 idle_since;
};
#define WP_NOT_IDLE	U64_MAX
static DEFINE_PER_CPU_SHARED_ALIGNED(struct wp_arrival, wp_arrival);

static struct tracepoint *wp_tp_waking, *wp_tp_wakeup, *wp_tp_switch;
static bool wp_lat_probes;

/*
 * Slots in use (key not 0).  Only a tracked wakeup writes it, once when
 * its slot is claimed from free and once when consumed; the arrival and
 * switch-in of an untracked task read it and, while it is 0 (sampling
 * with nothing in flight), skip the table.
 */
static atomic_t wp_lat_live;

/* The slot of @p in its pair, with its key, or NULL. */
static notrace struct wp_lat_slot *wp_lat_find(struct task_struct *p,
					       unsigned long *key)
{
	struct wp_lat_slot *pair = &wp_lat_tab[hash_ptr(p, wp_lat_bits) & ~1U];
	unsigned long k;
	int i;

	for (i = 0; i < 2; i++) {
		/* Pairs with the release in insert/arrival: fields are set. */
		k = smp_load_acquire(&pair[i].key);
		if ((k & ~WP_LAT_FLAGS) == (unsigned long)p) {
			*key = k;
			return &pair[i];
		}
	}
	return NULL;
}

/*
 * The stamp this CPU's sched_waking made for a wakeup that reaches
 * select_task_rq_fair, for the hook to annotate: the two run back to back
 * on the waker's CPU, under p->pi_lock with IRQs off.
 */
struct wp_lat_stash {
	struct task_struct *p;
	struct wp_lat_slot *slot;
};
static DEFINE_PER_CPU(struct wp_lat_stash, wp_lat_stash);

/* Waking: claim a slot for @p and stamp it (one wakeup in the period). */
static notrace struct wp_lat_slot *wp_lat_insert(struct wakeplace_policy *pol,
						 struct task_struct *p,
						 int prev, int row)
{
	struct wp_cg_table *cgt;
	u32 cgser = 0;
	int cgi = 0;
	unsigned int period = READ_ONCE(wp_lat_period);
	unsigned int *cd = this_cpu_ptr(&wp_lat_countdown);
	unsigned long key = (unsigned long)p, k0, k1, seen;
	struct wp_lat_slot *pair, *s;
	bool evict = false;

	if (!period || ++*cd < period)
		return NULL;
	*cd = 0;
	if (key & WP_LAT_FLAGS)
		return NULL;
	/*
	 * A task in an assigned cgroup: its assignment's policy is the one
	 * that places it (the hook confirms that), and the assignment counts
	 * it too.
	 */
	cgt = rcu_dereference_sched(wp_cg_tab);
	if (cgt) {
		cgi = wp_cg_lookup(cgt, p, NULL);
		if (cgi >= 0) {
			pol = cgt->pol[cgi];
			cgser = cgt->serial[cgi];
		} else {
			cgi = 0;
		}
	}
	pair = &wp_lat_tab[hash_ptr(p, wp_lat_bits) & ~1U];
	k0 = READ_ONCE(pair[0].key);
	k1 = READ_ONCE(pair[1].key);
	/*
	 * @p's own slot first (a stale one of its would outlive this
	 * sample), then a free one, else the older one loses its sample.
	 */
	if ((k0 & ~WP_LAT_FLAGS) == key) {
		s = &pair[0];
	} else if ((k1 & ~WP_LAT_FLAGS) == key) {
		s = &pair[1];
	} else if (!k0 || !k1) {
		s = !k0 ? &pair[0] : &pair[1];
	} else {
		s = READ_ONCE(pair[0].t0) <= READ_ONCE(pair[1].t0) ?
		    &pair[0] : &pair[1];
		evict = true;
	}
	seen = s == &pair[0] ? k0 : k1;
	/* One sample lost either way: this one, or the one evicted. */
	if (seen == WP_LAT_BUSY || cmpxchg(&s->key, seen, WP_LAT_BUSY) != seen) {
		wp_count(WP_C_LAT_DROPPED);
		return NULL;
	}
	if (evict)
		wp_count(WP_C_LAT_DROPPED);
	/* Before the key is published: whoever finds the slot sees it live. */
	if (!seen)
		atomic_inc(&wp_lat_live);
	s->t0 = local_clock();
	s->prev = prev;
	s->placed = -1;
	s->pol = wp_policy_index(pol);
	s->outcome = row;
	s->cgi = cgi;
	s->cgser = cgser;
	/* Publish the fields with the key (wp_lat_find() acquires it). */
	smp_store_release(&s->key, key);
	return s;
}

/**
 * wp_lat_placed() - the hook placed (or handed back) one wakeup.
 * @pol: the active policy.
 * @p: the waking task.
 * @outcome: how the pick was found (WP_OUT_HANDBACK for a hand-back).
 *
 * Annotates the stamp sched_waking made for this wakeup a moment before
 * on this CPU, if it made one (the wakeup is tracked and reaches
 * select_task_rq_fair): the policy that placed it and how.
 *
 * Wakeup path: notrace, lock-free, allocation-free.
 */
notrace void wp_lat_placed(struct wakeplace_policy *pol, struct task_struct *p,
			   enum wp_outcome outcome)
{
	struct wp_lat_stash *st = this_cpu_ptr(&wp_lat_stash);
	struct wp_lat_slot *s = st->slot;
	unsigned long k;

	/*
	 * Measurement off: a stash left from before (a wakeup the hook did
	 * not place) must not write into a table being cleared for the
	 * next start (the period is set after the probes and the table).
	 */
	if (st->p != p || !READ_ONCE(wp_lat_period))
		return;
	st->p = NULL;
	k = READ_ONCE(s->key);
	/* Taken over, or already arrived (a flag set): not ours to change. */
	if (k != (unsigned long)p || cmpxchg(&s->key, k, WP_LAT_BUSY) != k)
		return;
	s->pol = wp_policy_index(pol);
	s->outcome = outcome;
	/* Release: a reader that sees the key sees the policy and outcome. */
	smp_store_release(&s->key, k);
}

/*
 * sched_waking: every wakeup is stamped here, for every policy alike (see
 * the top of this file for the rows).  A task queued and running (on_rq
 * and on_cpu) is woken without ever leaving its CPU: there is no switch-in
 * to measure to, so it is not stamped.
 */
static notrace void wp_lat_probe_waking(void *data, struct task_struct *p)
{
	struct wakeplace_policy *pol = rcu_dereference_sched(wp_active);
	struct wp_lat_stash *st = this_cpu_ptr(&wp_lat_stash);
	struct wp_lat_slot *s;
	bool placed;

	wp_test_count(WP_C_PROBE_HITS);
	st->p = NULL;
	if (!pol)
		return;
	if (READ_ONCE(p->on_rq)) {
		if (READ_ONCE(p->on_cpu))
			return;
		placed = false;		/* woken in place: delayed, preempted */
	} else {
		placed = p->sched_class == wp_fair_class &&
			 !READ_ONCE(p->on_cpu) && p->nr_cpus_allowed > 1 &&
			 !p->migration_disabled;
	}
	s = wp_lat_insert(pol, p, task_cpu(p),
			  placed ? WP_OUT_HANDBACK : WP_LAT_UNPLACED);
	if (s && placed) {
		st->slot = s;
		st->p = p;
	}
}

/*
 * The oracle: is a CPU of @cpu's LLC that @p may use idle now, by the
 * kernel's own test (nothing current but the idle task, nothing queued or
 * pending, its vCPU running), and has it been idle since before the wakeup
 * began at @t0?  Then it was idle when the wakee was placed, whoever
 * placed it.  A CPU that went idle between the placement and the arrival
 * is no miss: no policy could have seen it (under TCG that window lasts
 * milliseconds, and at 32 CPUs and level 0.9 nearly all of idlemask's
 * misses by the idle test alone were such CPUs).  State first, then the
 * time: a CPU idle now whose last switch to idle came before @t0 made no
 * switch since.  Runs only for stacked wakees; reads up to the LLC's
 * runqueues, a cost of the measurement, not of any policy.
 */
static notrace bool wp_lat_idle_elsewhere(struct task_struct *p, int cpu,
					  u64 t0)
{
	struct sched_domain *sd = wp_sd_llc(cpu);
	int c;

	if (!sd)
		return false;
	for_each_cpu_and(c, sched_domain_span(sd), p->cpus_ptr)
		if (c != cpu && cpu_active(c) && wp_available_idle_cpu(c) &&
		    READ_ONCE(per_cpu_ptr(&wp_arrival, c)->idle_since) <= t0)
			return true;
	return false;
}

/* sched_wakeup: @p is queued on task_cpu(p), whose rq lock is held. */
static notrace void wp_lat_probe_wakeup(void *data, struct task_struct *p)
{
	struct wp_lat_slot *s;
	struct wp_arrival *a;
	unsigned long k, flags = 0;
	int cpu = task_cpu(p);
	void *rq = wp_rq(cpu);
	u64 now;

	wp_test_count(WP_C_PROBE_HITS);
	if (!atomic_read(&wp_lat_live))
		return;
	s = wp_lat_find(p, &k);
	if (!s || k & WP_LAT_FLAGS)
		return;
	/*
	 * Already running here: a preempted task in a sleeping state that
	 * this CPU switched to between the waker's look at p->on_cpu and
	 * its stamp.  No switch-in is left to measure to, and it is no
	 * wakee waiting here: the stamp is dropped.
	 */
	if (wp_rq_curr(rq) == p) {
		if (cmpxchg(&s->key, k, 0) == k)
			atomic_dec(&wp_lat_live);
		return;
	}
	now = local_clock();
	if (!wp_rq_curr_idle(rq) || wp_rq_nr_not_delayed(rq) > 1) {
		flags |= WP_LAT_STACKED;
		if (READ_ONCE(s->outcome) != WP_LAT_UNPLACED &&
		    wp_lat_idle_elsewhere(p, cpu, READ_ONCE(s->t0)))
			flags |= WP_LAT_MISSED;
	}
	a = per_cpu_ptr(&wp_arrival, cpu);
	if (a->pending && a->pending != p && now - a->t < TICK_NSEC)
		flags |= WP_LAT_DOUBLE;
	a->t = now;
	a->pending = p;

	if (cmpxchg(&s->key, k, WP_LAT_BUSY) != k)
		return;
	s->placed = cpu;
	/* As in wp_lat_insert(): the key publishes the field. */
	smp_store_release(&s->key, k | flags);
}

#ifdef WAKEPLACE_TEST
/*
 * Test builds only: every latency sample of the policies but one is
 * recorded test_lat_bias_us later than measured, so that `wakeplacectl
 * auto` on the real module meets a case whose best candidate is known
 * (tests/cases/502-auto-bias.sh).  The exempt policy is kept as an index:
 * a write never frees what the probe reads.
 */
static unsigned int wp_test_lat_bias_us;
module_param_named(test_lat_bias_us, wp_test_lat_bias_us, uint, 0644);
MODULE_PARM_DESC(test_lat_bias_us, "TEST BUILD: add this many us to every latency sample of the policies but test_lat_exempt");
static int wp_test_lat_exempt = -1;

static int wp_lat_exempt_set(const char *val, const struct kernel_param *kp)
{
	struct wakeplace_policy *pol;
	char buf[WP_NAME_MAX + 1];
	size_t n = strcspn(val, "\n");

	if (!n) {
		WRITE_ONCE(wp_test_lat_exempt, -1);
		return 0;
	}
	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, val, n);
	buf[n] = '\0';
	pol = wp_policy_find(buf);
	if (!pol)
		return -EINVAL;
	WRITE_ONCE(wp_test_lat_exempt, wp_policy_index(pol));
	return 0;
}

static int wp_lat_exempt_get(char *buf, const struct kernel_param *kp)
{
	int i = READ_ONCE(wp_test_lat_exempt);

	return sysfs_emit(buf, "%s\n", i < 0 ? "" : wp_policies[i]->name);
}

static const struct kernel_param_ops wp_lat_exempt_ops = {
	.set = wp_lat_exempt_set,
	.get = wp_lat_exempt_get,
};
module_param_cb(test_lat_exempt, &wp_lat_exempt_ops, NULL, 0644);
MODULE_PARM_DESC(test_lat_exempt, "TEST BUILD: the policy whose latency test_lat_bias_us leaves alone (empty: none)");

static notrace u64 wp_lat_test_bias(unsigned int pi, u64 lat)
{
	unsigned int b = READ_ONCE(wp_test_lat_bias_us);

	if (b && (int)pi != READ_ONCE(wp_test_lat_exempt))
		lat += (u64)b * NSEC_PER_USEC;
	return lat;
}
#else
static __always_inline u64 wp_lat_test_bias(unsigned int pi, u64 lat)
{
	return lat;
}
#endif

/* The tracepoint prints the unplaced row as 8 (trace.h). */
static_assert(WP_LAT_UNPLACED == 8);

/*
 * The same wakeup, for its cgroup assignment if it still exists: quality
 * and a coarser histogram (the cgroup_stats and cgroup_latency_hist files).
 */
static notrace void wp_lat_account_cg(unsigned int cgi, u32 cgser,
				      unsigned long key, u64 lat, int row)
{
	struct wp_cg_table *t = rcu_dereference_sched(wp_cg_tab);
	struct wp_cg_counters *c;
	int i;

	if (!t)
		return;
	i = wp_cg_find_serial(t, cgi, cgser);
	if (i < 0)
		return;
	c = this_cpu_ptr(t->cnt[i]);
	if (row == WP_LAT_UNPLACED) {
		c->v[WP_CGC_UNPLACED]++;
		return;
	}
	c->v[WP_CGC_TRACKED]++;
	c->lat[wp_lat_bucket(lat) >> WP_CG_LAT_SHIFT]++;
	if (key & WP_LAT_STACKED)
		c->v[WP_CGC_STACKED]++;
	if (key & WP_LAT_MISSED)
		c->v[WP_CGC_MISSED]++;
	if (key & WP_LAT_DOUBLE)
		c->v[WP_CGC_DOUBLE]++;
}

static notrace void wp_lat_account(struct task_struct *p, int cpu,
				   unsigned long key, u64 lat, int prev,
				   int placed, unsigned int pi, int row)
{
	struct wakeplace_policy *pol = wp_policies[pi];
	struct wp_pstats *st = this_cpu_ptr(pol->stats);
	struct wp_lat_hists *h = rcu_dereference_sched(wp_lat_pols[pi].h);
	struct wp_lathist *hc = h ? READ_ONCE(h->cpu[cpu]) : NULL;

	lat = wp_lat_test_bias(pi, lat);
	if (hc)
		hc->b[row][wp_lat_bucket(lat)]++;
	trace_wakeup_latency(pol->name, p->pid, prev, placed, cpu, row,
			     !!(key & WP_LAT_STACKED), lat);
	/* The quality counters cover the wakeups a policy could place. */
	if (row == WP_LAT_UNPLACED) {
		st->v[WP_ST_UNPLACED]++;
		return;
	}
	st->v[WP_ST_TRACKED]++;
	if (key & WP_LAT_STACKED) {
		st->v[WP_ST_STACKED]++;
		st->v[WP_ST_STACKED_OUT + row]++;
	}
	if (key & WP_LAT_MISSED) {
		st->v[WP_ST_MISSED]++;
		st->v[WP_ST_MISSED_OUT + row]++;
	}
	if (key & WP_LAT_DOUBLE) {
		st->v[WP_ST_DOUBLE]++;
		st->v[WP_ST_DOUBLE_OUT + row]++;
	}
	if (placed >= 0 && placed != cpu)
		st->v[WP_ST_MOVED]++;
	if (prev != cpu) {
		st->v[WP_ST_MIGRATED]++;
		if ((unsigned int)prev >= nr_cpu_ids ||
		    !wp_cpus_share_cache(prev, cpu))
			st->v[WP_ST_MIGRATED_LLC]++;
	}
}

/* sched_switch: @next runs on this CPU now; its slot, if any, is done. */
static notrace void wp_lat_probe_switch(void *data, bool preempt,
					struct task_struct *prev,
					struct task_struct *next,
					unsigned int prev_state)
{
	struct wp_arrival *a = this_cpu_ptr(&wp_arrival);
	struct wp_lat_slot *s;
	unsigned long k;
	int sprev, placed, row, cpu = smp_processor_id();
	unsigned int pi, cgi;
	u32 cgser;
	u64 t0, now, lat;

	wp_test_count(WP_C_PROBE_HITS);
	if (a->pending == next)
		a->pending = NULL;
	if (is_idle_task(next)) {
		WRITE_ONCE(a->idle_since, local_clock());
		return;
	}
	if (is_idle_task(prev))
		WRITE_ONCE(a->idle_since, WP_NOT_IDLE);
	if (!atomic_read(&wp_lat_live))
		return;
	s = wp_lat_find(next, &k);
	if (!s)
		return;
	t0 = s->t0;
	sprev = s->prev;
	placed = s->placed;
	pi = s->pol;
	row = s->outcome;
	cgi = s->cgi;
	cgser = s->cgser;
	/* Taken over since we read the key: the fields may be another's. */
	if (cmpxchg(&s->key, k, 0) != k)
		return;
	atomic_dec(&wp_lat_live);
	if (pi >= wp_nr_policies || row >= WP_LAT_ROWS)
		return;
	/*
	 * Moved before it ran (load balancing): it no longer waits on the CPU
	 * it was queued on, so that CPU's next wakee is no double pick.
	 */
	if ((unsigned int)placed < nr_cpu_ids && placed != cpu)
		cmpxchg(&per_cpu_ptr(&wp_arrival, placed)->pending, next, NULL);
	now = local_clock();
	lat = now > t0 ? now - t0 : 0;
	wp_lat_account(next, cpu, k, lat, sprev, placed, pi, row);
	if (cgser)
		wp_lat_account_cg(cgi, cgser, k, wp_lat_test_bias(pi, lat), row);
}

static void wp_lat_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_waking"))
		wp_tp_waking = tp;
	else if (!strcmp(tp->name, "sched_wakeup"))
		wp_tp_wakeup = tp;
	else if (!strcmp(tp->name, "sched_switch"))
		wp_tp_switch = tp;
}

static void wp_lat_probes_off(void)
{
	if (!wp_lat_probes)
		return;
	tracepoint_probe_unregister(wp_tp_waking, wp_lat_probe_waking, NULL);
	tracepoint_probe_unregister(wp_tp_wakeup, wp_lat_probe_wakeup, NULL);
	tracepoint_probe_unregister(wp_tp_switch, wp_lat_probe_switch, NULL);
	tracepoint_synchronize_unregister();
	wp_lat_probes = false;
}

/*
 * Register the probes on an empty table: slots left from an earlier
 * period of tracking would pair with wakeups they never saw.  The caller
 * made sure nothing inserts (wp_lat_period is 0 and an RCU grace period
 * passed since, or nothing ever ran).
 */
static int wp_lat_probes_on(void)
{
	int ret, cpu;

	if (wp_lat_probes)
		return 0;
	/*
	 * The slot table only once somebody measures (32 bytes a slot, 256
	 * slots a possible CPU: 2 MiB at 256), kept until unload.
	 */
	if (!wp_lat_tab) {
		wp_lat_tab = kvcalloc(1UL << wp_lat_bits, sizeof(*wp_lat_tab),
				      GFP_KERNEL);
		if (!wp_lat_tab)
			return -ENOMEM;
	}
	memset(wp_lat_tab, 0, sizeof(*wp_lat_tab) << wp_lat_bits);
	atomic_set(&wp_lat_live, 0);
	/*
	 * A CPU idle now has been idle since before anything is measured; a
	 * busy one is not idle until its switch to idle sets the time (the
	 * oracle may find it idle a moment before that: not since 0).
	 */
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&wp_arrival, cpu)->idle_since,
			   cpu_online(cpu) && wp_rq_curr_idle(wp_rq(cpu)) ?
			   0 : WP_NOT_IDLE);
	ret = tracepoint_probe_register(wp_tp_switch, wp_lat_probe_switch,
					NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(wp_tp_wakeup, wp_lat_probe_wakeup,
					NULL);
	if (ret)
		goto err_switch;
	ret = tracepoint_probe_register(wp_tp_waking, wp_lat_probe_waking,
					NULL);
	if (ret)
		goto err_wakeup;
	wp_lat_probes = true;
	return 0;
err_wakeup:
	tracepoint_probe_unregister(wp_tp_wakeup, wp_lat_probe_wakeup, NULL);
err_switch:
	tracepoint_probe_unregister(wp_tp_switch, wp_lat_probe_switch, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

static void wp_lat_hists_free(struct wp_lat_hists *h)
{
	int cpu;

	for_each_possible_cpu(cpu)
		kvfree(h->cpu[cpu]);
	kvfree(h->base);
	kvfree(h);
}

static void wp_lat_hists_free_rcu(struct rcu_head *rcu)
{
	wp_lat_hists_free(container_of(rcu, struct wp_lat_hists, rcu));
}

/* Unpublish @lp's histograms; freed once no probe can account to them. */
static void wp_lat_pol_drop(struct wp_lat_pol *lp)
{
	struct wp_lat_hists *h = rcu_dereference_protected(lp->h,
				lockdep_is_held(&wp_mutex));

	if (!h)
		return;
	RCU_INIT_POINTER(lp->h, NULL);
	lp->ncpus = 0;
	call_rcu(&h->rcu, wp_lat_hists_free_rcu);
}

/*
 * Make room for one more: evict the least recently prepared but @keep and
 * the policies in use (active, shadow, assigned to a cgroup: wp_hold()),
 * which keep theirs however many they are.
 */
static void wp_lat_evict(unsigned int keep)
{
	unsigned int i, n = 0, victim = UINT_MAX;

	for (i = 0; i < wp_nr_policies; i++) {
		if (!rcu_access_pointer(wp_lat_pols[i].h))
			continue;
		n++;
		if (i == keep || wp_policies[i]->holders)
			continue;
		if (victim == UINT_MAX ||
		    wp_lat_pols[i].used < wp_lat_pols[victim].used)
			victim = i;
	}
	if (n >= WP_LAT_KEEP && victim != UINT_MAX)
		wp_lat_pol_drop(&wp_lat_pols[victim]);
}

/**
 * wp_lat_alloc() - wp_lat_prepare() whether or not tracking is on.
 * @pol: a registered policy.
 *
 * Context: wp_mutex held; may sleep.
 *
 * Return: 0, or -ENOMEM.
 */
static int wp_lat_alloc(struct wakeplace_policy *pol)
{
	unsigned int pi = wp_policy_index(pol);
	struct wp_lat_pol *lp = &wp_lat_pols[pi];
	struct wp_lat_hists *h;
	struct wp_lathist *hc;
	int cpu, ret = 0;

	lp->used = ++wp_lat_clock;
	h = rcu_dereference_protected(lp->h, lockdep_is_held(&wp_mutex));
	if (!h) {
		wp_lat_evict(pi);
		h = kvzalloc(struct_size(h, cpu, nr_cpu_ids), GFP_KERNEL);
		if (!h)
			goto err;
		h->base = kvzalloc(sizeof(*h->base), GFP_KERNEL);
		if (!h->base) {
			kvfree(h);
			goto err;
		}
		/* Readers (rcu_dereference) see the zeroed pointers. */
		rcu_assign_pointer(lp->h, h);
	}
	for_each_online_cpu(cpu) {
		if (h->cpu[cpu])
			continue;
		hc = kvzalloc_node(sizeof(*hc), GFP_KERNEL, cpu_to_node(cpu));
		if (!hc) {
			ret = -ENOMEM;
			break;
		}
		/* Readers (READ_ONCE, address dependency) see it zeroed. */
		smp_store_release(&h->cpu[cpu], hc);
		lp->ncpus++;
	}
	if (!ret)
		return 0;
err:
	pr_warn_once("wakeplace: no memory for the latency histograms of %s\n",
		     pol->name);
	return -ENOMEM;
}

/**
 * wp_lat_prepare() - give @pol histograms on the online CPUs if tracking
 * is on.
 * @pol: a policy about to become active.
 *
 * Allocates what is missing: all of it for a policy without histograms
 * (evicting the least recently active one beyond WP_LAT_KEEP), and the
 * CPUs that came online since it was last prepared.  Reads the online
 * mask without the hotplug lock: a CPU coming online meanwhile gets its
 * histograms at the next prepare.
 *
 * Context: wp_mutex held; may sleep.
 *
 * Return: 0, or -ENOMEM (the policy then runs without some or all
 * histograms; its counters still count).
 */
int wp_lat_prepare(struct wakeplace_policy *pol)
{
	lockdep_assert_held(&wp_mutex);
	if (!READ_ONCE(wp_lat_period))
		return 0;
	return wp_lat_alloc(pol);
}

/**
 * wp_lat_mem() - bytes of @pol's histograms, and on how many CPUs.
 * @pol: a registered policy.
 * @ncpus: out: CPUs with histograms.
 *
 * Context: wp_mutex held.
 *
 * Return: bytes allocated for @pol's histograms (0: none).
 */
size_t wp_lat_mem(struct wakeplace_policy *pol, unsigned int *ncpus)
{
	struct wp_lat_pol *lp = &wp_lat_pols[wp_policy_index(pol)];
	struct wp_lat_hists *h;

	lockdep_assert_held(&wp_mutex);
	h = rcu_dereference_protected(lp->h, lockdep_is_held(&wp_mutex));
	*ncpus = h ? lp->ncpus : 0;
	if (!h)
		return 0;
	return struct_size(h, cpu, nr_cpu_ids) +
	       (size_t)(lp->ncpus + 1) * sizeof(struct wp_lathist);
}

/**
 * wp_lat_set_period() - latency_sample: 0 stops tracking, N tracks one
 * wakeup in N per CPU.
 * @n: 0..65536.
 *
 * Context: wp_mutex held; may sleep.
 *
 * Return: 0, -ENOMEM for the slot table, or an errno from the tracepoints
 * (tracking then stays off).
 */
int wp_lat_set_period(unsigned int n)
{
	struct wakeplace_policy *act;
	unsigned int i;
	int ret;

	lockdep_assert_held(&wp_mutex);
	if (!n) {
		WRITE_ONCE(wp_lat_period, 0);
		/* Wakeups inside the hook finish inserting first. */
		synchronize_rcu();
		wp_lat_probes_off();
		return 0;
	}
	/*
	 * The histograms of the policies in use (active, shadow, assigned)
	 * exist before the first wakeup is stamped: otherwise their first
	 * wakeups would be counted in their stats but not in histograms.
	 */
	act = rcu_dereference_protected(wp_active, lockdep_is_held(&wp_mutex));
	if (act)
		wp_lat_alloc(act);
	for (i = 0; i < wp_nr_policies; i++)
		if (wp_policies[i] != act && wp_policies[i]->holders)
			wp_lat_alloc(wp_policies[i]);
	if (!READ_ONCE(wp_lat_period)) {
		ret = wp_lat_probes_on();
		if (ret)
			return ret;
	}
	WRITE_ONCE(wp_lat_period, n);
	return 0;
}

static void wp_lat_raw(struct wp_lat_hists *h, struct wp_lathist *sum)
{
	const struct wp_lathist *hc;
	const u64 *src;
	u64 *dst = &sum->b[0][0];
	unsigned int i, n = WP_LAT_ROWS * WP_LAT_BUCKETS;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		/* Pairs with the release in wp_lat_prepare(). */
		hc = smp_load_acquire(&h->cpu[cpu]);
		if (!hc)
			continue;
		src = &hc->b[0][0];
		for (i = 0; i < n; i++)
			dst[i] += READ_ONCE(src[i]);
	}
}

/**
 * wp_lat_sum() - @pol's histograms since they were allocated or reset.
 * @pol: a registered policy.
 * @sum: out: summed over CPUs minus the baseline (zero if none).
 *
 * Lock-free (RCU: an eviction frees them after a grace period); may run
 * while wakeups and resets go on.
 *
 * Return: whether @pol has histograms.
 */
bool wp_lat_sum(struct wakeplace_policy *pol, struct wp_lathist *sum)
{
	struct wp_lat_pol *lp = &wp_lat_pols[wp_policy_index(pol)];
	unsigned int seq, i, n = WP_LAT_ROWS * WP_LAT_BUCKETS;
	u64 *dst = &sum->b[0][0];
	struct wp_lat_hists *h;
	const u64 *base;

	/*
	 * The seqcount outside the RCU section: on PREEMPT_RT a reader that
	 * meets a reset in progress takes wp_mutex, which may sleep.
	 */
	do {
		seq = read_seqcount_begin(&wp_lat_seq);
		rcu_read_lock();
		h = rcu_dereference(lp->h);
		if (!h) {
			rcu_read_unlock();
			memset(sum, 0, sizeof(*sum));
			return false;
		}
		base = &h->base->b[0][0];
		wp_lat_raw(h, sum);
		for (i = 0; i < n; i++)
			dst[i] -= min(dst[i], READ_ONCE(base[i]));
		rcu_read_unlock();
	} while (read_seqcount_retry(&wp_lat_seq, seq));
	return true;
}

/**
 * wp_lat_reset() - zero @pol's histograms (move the baseline).
 * @pol: a registered policy.
 *
 * Context: wp_mutex held.
 */
void wp_lat_reset(struct wakeplace_policy *pol)
{
	struct wp_lat_pol *lp = &wp_lat_pols[wp_policy_index(pol)];
	struct wp_lat_hists *h;

	lockdep_assert_held(&wp_mutex);
	h = rcu_dereference_protected(lp->h, lockdep_is_held(&wp_mutex));
	if (!h)
		return;
	write_seqcount_begin(&wp_lat_seq);
	wp_lat_raw(h, h->base);
	write_seqcount_end(&wp_lat_seq);
}

/**
 * wp_lat_init() - size the slot table and, if latency_sample is set
 * (default 0: off), start tracking (which allocates the table).  Called at load before the first policy is set.
 *
 * Return: 0, -ENOENT if a scheduler tracepoint is missing, -ENOMEM.
 */
int wp_lat_init(void)
{
	unsigned int slots;
	int ret;

	seqcount_mutex_init(&wp_lat_seq, &wp_mutex);
	for_each_kernel_tracepoint(wp_lat_find_tp, NULL);
	if (!wp_tp_waking || !wp_tp_wakeup || !wp_tp_switch) {
		pr_err("wakeplace: tracepoint sched_waking, sched_wakeup or sched_switch not found\n");
		return -ENOENT;
	}
	wp_lat_pols = kcalloc(wp_nr_policies, sizeof(*wp_lat_pols), GFP_KERNEL);
	if (!wp_lat_pols)
		return -ENOMEM;
	/* Room for far more waiting wakees than CPUs: 256 slots per CPU. */
	slots = roundup_pow_of_two(max(nr_cpu_ids * 256U, 4096U));
	wp_lat_bits = ilog2(slots);
	if (wp_lat_period) {
		ret = wp_lat_probes_on();
		if (ret)
			goto err;
	}
	return 0;
err:
	kvfree(wp_lat_tab);
	wp_lat_tab = NULL;
	kfree(wp_lat_pols);
	wp_lat_pols = NULL;
	return ret;
}

/**
 * wp_lat_exit() - stop tracking and free everything (unload; the hook is
 * detached and an RCU grace period has passed).
 */
void wp_lat_exit(void)
{
	unsigned int i;

	wp_lat_probes_off();
	rcu_barrier();		/* evicted histograms */
	if (wp_lat_pols)
		for (i = 0; i < wp_nr_policies; i++) {
			struct wp_lat_hists *h = rcu_dereference_protected(
					wp_lat_pols[i].h, 1);

			if (h)
				wp_lat_hists_free(h);
		}
	kfree(wp_lat_pols);
	wp_lat_pols = NULL;
	kvfree(wp_lat_tab);
	wp_lat_tab = NULL;
}
