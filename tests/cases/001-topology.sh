#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: guest CPU topology matches WP_TOPO (catches harness misconfiguration)
# requires: vm
# tier: core scale flavour
# shellcheck source=tests/lib.sh
. "$WP_TESTS/lib.sh"

log "topology: ${WP_TOPO:-unset}"
log "llc groups: $(llc_groups | tr '\n' ' ')"
log "cores: $(cores | tr '\n' ' ')"

case ${WP_TOPO:-} in
llc2)
	# -smp 4,sockets=2,cores=2: two LLCs of two CPUs, no SMT.
	assert_eq "$(nr_cpus)" 4 "online CPUs"
	assert_eq "$(nr_llc)" 2 "number of LLCs"
	for g in $(llc_groups); do
		assert_eq "$(cpulist_count "$g")" 2 "CPUs in LLC $g"
	done
	has_smt && fail "SMT siblings present: $(cores | tr '\n' ' ')"
	pass "no SMT siblings"
	assert_eq "$(nr_cores)" 4 "cores"
	;;
smt)
	# -smp 4,sockets=1,cores=2,threads=2: one LLC, 2 cores x 2 threads.
	assert_eq "$(nr_cpus)" 4 "online CPUs"
	assert_eq "$(nr_llc)" 1 "number of LLCs"
	assert_eq "$(llc_groups)" 0-3 "LLC CPUs"
	has_smt || fail "no SMT siblings"
	pass "SMT siblings present"
	assert_eq "$(nr_cores)" 2 "cores"
	for c in $(cores); do
		assert_eq "$(cpulist_count "$c")" 2 "threads in core $c"
	done
	assert_eq "$(cat /sys/devices/system/cpu/smt/active 2>/dev/null)" 1 \
		"/sys/devices/system/cpu/smt/active"
	;;
llc16 | llc32)
	# -smp N,sockets=1,cores=N: one LLC of N CPUs, no SMT.
	n=${WP_TOPO#llc}
	assert_eq "$(nr_cpus)" "$n" "online CPUs"
	assert_eq "$(nr_llc)" 1 "number of LLCs"
	assert_eq "$(llc_groups)" "0-$((n - 1))" "LLC CPUs"
	has_smt && fail "SMT siblings present"
	pass "no SMT siblings"
	;;
llc2x16)
	# -smp 32,sockets=2,cores=16: two LLCs of 16 CPUs, no SMT.
	assert_eq "$(nr_cpus)" 32 "online CPUs"
	assert_eq "$(nr_llc)" 2 "number of LLCs"
	for g in $(llc_groups); do
		assert_eq "$(cpulist_count "$g")" 16 "CPUs in LLC $g"
	done
	has_smt && fail "SMT siblings present"
	pass "no SMT siblings"
	;;
smt72)
	# -smp 72,sockets=1,cores=36,threads=2: one LLC, 36 cores x 2 threads.
	# QEMU numbers siblings 2k and 2k + 1 (seen: cores 0-1 ... 70-71), so
	# no core spans two 64-bit words of a mask as on x86 servers, which
	# number them cpu and cpu + 36 (tests/unit/coremask covers that).
	assert_eq "$(nr_cpus)" 72 "online CPUs"
	assert_eq "$(nr_llc)" 1 "number of LLCs"
	assert_eq "$(nr_cores)" 36 "cores"
	for c in $(cores); do
		assert_eq "$(cpulist_count "$c")" 2 "threads in core $c"
	done
	log "siblings of cpu30: $(smt_siblings 30)"
	;;
'')
	skip "WP_TOPO not set (run through tests/check or runner -p)"
	;;
*)
	skip "no expectation for topology '$WP_TOPO'"
	;;
esac

# Every CPU's LLC list contains the CPU itself, and its SMT siblings share
# its LLC: a cache description that contradicts itself is a harness bug.
for c in $(online_cpus); do
	llc=" $(cpulist_expand "$(cpus_of_llc "$c")") "
	[[ $llc == *" $c "* ]] || fail "cpu$c not in its own LLC ($llc)"
	for s in $(cpulist_expand "$(smt_siblings "$c")"); do
		[[ $llc == *" $s "* ]] || fail "cpu$c: SMT sibling $s outside its LLC"
	done
done
pass "LLC and SMT lists consistent"
