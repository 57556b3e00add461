/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A test tool's bound: every wait of wakeprobe and wakeburst is on another
 * thread's progress; should one never come (a lost wakeup, a kernel bug),
 * the tool fails with exit 3 after WATCHDOG_S instead of hanging the test.
 * A normal run takes seconds, even under TCG.
 */
#ifndef WP_TOOLS_WATCHDOG_H
#define WP_TOOLS_WATCHDOG_H

#include <signal.h>
#include <string.h>
#include <unistd.h>

#define WATCHDOG_S 600

static const char *watchdog_prog;

static void watchdog_fire(int sig)
{
	static const char msg[] = ": no end after 600 s: a wakeup was lost or never came\n";
	ssize_t n;

	(void)sig;
	n = write(2, watchdog_prog, strlen(watchdog_prog));
	n = write(2, msg, sizeof(msg) - 1);
	(void)n;
	_exit(3);
}

/* Arm the bound; @prog names the tool in its message. */
static inline void watchdog_arm(const char *prog)
{
	watchdog_prog = prog;
	signal(SIGALRM, watchdog_fire);
	alarm(WATCHDOG_S);
}

#endif
