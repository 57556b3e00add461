/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CPU's stint: when the task running on it began running, from one
 * wakeup to its next sleep.  Kept per CPU by a policy's context_switch hook
 * (each policy that needs it keeps its own), read by that CPU only.
 */
#ifndef WP_STINT_H
#define WP_STINT_H

#include <linux/sched.h>
#include <linux/types.h>

/**
 * struct wp_stint - the running task's stint on one CPU.
 * @in_ts: local_clock() when the running task's stint began (0: no switch
 *	seen yet, which reads as a long stint).
 * @preempted: the last task preempted on this CPU (compared, never
 *	dereferenced).
 * @preempted_ts: when @preempted's stint began.
 */
struct wp_stint {
	u64 in_ts;
	struct task_struct *preempted;
	u64 preempted_ts;
};

/**
 * wp_stint_switch() - account a context switch on this CPU.
 * @st: this CPU's stint.
 * @runnable: @prev stays runnable (preempted, or its state is running).
 * @prev: the task switched out.
 * @next: the task switched in.
 * @now: local_clock().
 *
 * A task preempted (by a kworker, say) resumes its stint when it comes
 * back, once.
 */
static __always_inline void wp_stint_switch(struct wp_stint *st, bool runnable,
					     struct task_struct *prev,
					     struct task_struct *next, u64 now)
{
	if (prev == st->preempted)
		st->preempted = NULL;
	if (runnable && !is_idle_task(prev)) {
		st->preempted = prev;
		st->preempted_ts = st->in_ts;
	}
	st->in_ts = next == st->preempted ? st->preempted_ts : now;
}

/**
 * wp_stint_runnable() - does @prev stay runnable after this switch?
 * @preempt: @prev was preempted.
 * @prev_state: @prev's state, from the tracepoint.
 *
 * A task preempted after set_current_state() and before schedule() has a
 * sleeping state but is not going to sleep.
 *
 * Return: true if @prev is not going to sleep.
 */
static __always_inline bool wp_stint_runnable(bool preempt,
					      unsigned int prev_state)
{
	return preempt || prev_state == TASK_RUNNING;
}

#endif /* WP_STINT_H */
