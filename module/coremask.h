/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole idle cores in a per-LLC idle mask, whatever the numbering of SMT
 * siblings.  x86 firmware lists the first thread of every core before the
 * second ones, so a sibling is cpu + the number of cores: beyond 32 cores
 * some cores, from 64 cores all of them, have their siblings' idle bits
 * in different words of the mask.  (QEMU numbers them 2k and 2k + 1.)
 * A core is read and claimed here sibling by sibling, word by word.
 *
 * For idle.c, after idle.h (struct wp_llc); tests/unit/coremask.c builds
 * it against host stand-ins of the kernel's bitops and cpumask.  Inline
 * only: it runs on the wakeup path (no locks, no allocation, no tracing).
 */
#ifndef WP_COREMASK_H
#define WP_COREMASK_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/topology.h>

/* @cpu's idle bit as one read of its word sees it now. */
static __always_inline bool wp_bit_seen(const unsigned long *idle, int cpu)
{
	return READ_ONCE(idle[BIT_WORD(cpu)]) & BIT_MASK(cpu);
}

/**
 * wp_core_idle() - whether @cpu's whole SMT core reads idle.
 * @llc: @cpu's LLC state.
 * @cpu: a CPU of the core.
 *
 * Each sibling's bit is read once, from whatever word holds it; siblings
 * in different words are read at different instants, which is what a
 * hint can afford: wp_core_claim() decides again.
 *
 * Return: true when the idle bit of every SMT sibling of @cpu (@cpu
 * included) is set.
 */
static __always_inline bool wp_core_idle(const struct wp_llc *llc, int cpu)
{
	int sib;

	for_each_cpu(sib, cpu_smt_mask(cpu))
		if (!wp_bit_seen(llc->idle, sib))
			return false;
	return true;
}

/**
 * wp_core_claim() - claim @cpu's core as a whole: clear @cpu's idle bit
 * only while the bits of all its SMT siblings are set.
 * @llc: @cpu's LLC state.
 * @cpu: the CPU to claim; its siblings keep their bits, so they stay
 *	 available to searches for any idle CPU.
 * @busy: on success, how many siblings the claim saw with their bit clear
 *	  when it won: 0 unless this function is wrong (core_claim_busy).
 *
 * Near: the siblings in @cpu's word are claimed with it by one cmpxchg
 * that clears @cpu's bit only while all of theirs are set; of the wakers
 * that see that word, one wins.  Far: the siblings in other words are then
 * read; one of them clear and @cpu's bit is set back, the claim lost.
 *
 * Two wakers claiming one core from siblings in different words each
 * clear their own bit, then read the other's; a successful cmpxchg is
 * fully ordered, so at least one of them sees the other's bit clear: one
 * wins or neither does (a lost claim; the search goes on).  A far sibling
 * that turns busy right after it was read is the race the one-word claim
 * has with a sibling that turns busy right after the cmpxchg: the claim
 * is a hint, and the caller re-checks @cpu's runqueue next.  So is the
 * undo: should @cpu turn busy between the cmpxchg and the set_bit(), its
 * bit reads idle until the next claim of it fails the re-check.
 *
 * Callers test wp_core_idle() first: a core seen busy costs no write.
 *
 * Return: true if the core is ours.
 */
static __always_inline bool wp_core_claim(struct wp_llc *llc, int cpu,
					  unsigned int *busy)
{
	unsigned long *word = &llc->idle[BIT_WORD(cpu)];
	unsigned long near = 0, old;
	bool far = false;
	int sib;

	for_each_cpu(sib, cpu_smt_mask(cpu)) {
		if (BIT_WORD(sib) == BIT_WORD(cpu))
			near |= BIT_MASK(sib);
		else
			far = true;
	}
	/* @cpu is its own sibling, so a CPU whose bit is clear never wins. */
	near |= BIT_MASK(cpu);
	old = READ_ONCE(*word);
	do {
		if ((old & near) != near)
			return false;
	} while (!try_cmpxchg(word, &old, old & ~BIT_MASK(cpu)));
	if (far) {
		for_each_cpu(sib, cpu_smt_mask(cpu)) {
			if (BIT_WORD(sib) != BIT_WORD(cpu) &&
			    !wp_bit_seen(llc->idle, sib)) {
				set_bit(cpu, llc->idle);
				return false;
			}
		}
	}
	/* What it won on: @cpu's word as it replaced it, far bits set. */
	*busy = hweight_long(near & ~old);
	return true;
}

#endif /* WP_COREMASK_H */
