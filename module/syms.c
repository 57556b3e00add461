// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel data symbols by name.  kallsyms_lookup_name() is not exported (and
 * on IBT kernels an unexported function must not be called through a
 * pointer), but register_kprobe() is: given .symbol_name it resolves the
 * name through kallsyms and stores the address in the kprobe before it
 * refuses a location outside kernel text.  sprint_symbol(), also exported,
 * then confirms that the address is the start of that very symbol and
 * gives its size.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/string.h>
#include "syms.h"

/**
 * wp_sym_data() - find a kernel data symbol.
 * @name: the symbol, e.g. "sysctl_sched_features".
 * @addr: out: its address.
 * @size: out: its size in bytes, as kallsyms knows it.
 *
 * May sleep; init path only.  Text symbols are refused: the kprobe is
 * placed there, and removed at once.
 *
 * Return: 0; -ENOENT if the name is unknown, resolves elsewhere than the
 * start of that symbol, or is a function.
 */
int wp_sym_data(const char *name, unsigned long *addr, unsigned long *size)
{
	struct kprobe kp = { .symbol_name = name };
	char sym[KSYM_SYMBOL_LEN];
	size_t len = strlen(name);
	unsigned long a;
	int ret;

	ret = register_kprobe(&kp);
	if (!ret) {
		/* A function, not data: undo the probe. */
		unregister_kprobe(&kp);
		return -ENOENT;
	}
	a = (unsigned long)kp.addr;
	if (!a)
		return -ENOENT;

	/* "name+0x0/0xSIZE", nothing after it (not a module's symbol). */
	sprint_symbol(sym, a);
	if (strncmp(sym, name, len) || strncmp(sym + len, "+0x0/0x", 7) ||
	    kstrtoul(sym + len + 7, 16, size) || !*size)
		return -ENOENT;
	*addr = a;
	return 0;
}
