#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# desc: every writable sysfs file fed random, overlong, negative, huge and NUL-laden input, also concurrently: EINVAL or documented success, valid read-back
# requires: module perf topo=llc2
#
# Long version: tests/stress/cases/904-bad-input.sh (key "fuzz": inputs
# per file).  The oracle is tests/tools/sysfuzz (docs/sysfs-kernel-wakeplace).
. "$WP_TESTS/lib.sh"
# shellcheck source=tests/stress/lib.sh
. "$WP_TESTS/stress/lib.sh"

N=$(st_param fuzz 30)
st_init bad-input "$N" "$(st_param fuzz_s 30)"
fuzz=$WP_ROOT/tests/tools/sysfuzz
[ -x "$fuzz" ] || fail "tests/tools/sysfuzz not built (make tools)"

# The oracle can fail: a fake tree of plain files accepts everything.
fake=$(mktemp -d /tmp/wp704.XXXXXX) || fail "mktemp"
at_exit "rm -rf $fake"
mkdir -p "$fake/stats" "$fake/policies/bounded" "$fake/params"
echo "[stock] mirror bounded" > "$fake/available_policies"
echo stock > "$fake/policy"
echo off > "$fake/shadow"
echo ok > "$fake/state"
echo 64 > "$fake/sample_period"
for k in calls wakeups redirected handed_back corrected slow reverted \
	 switches rebuilds stale; do
	echo "$k 0"
done > "$fake/counters"
for p in stock mirror bounded; do
	printf 'picks 0\ncost_hist 0\n' > "$fake/stats/$p"
done
echo 4 > "$fake/policies/bounded/scan_max"
echo "scan_max 4 0 1024" > "$fake/policies/bounded/tunables"
echo 20000 > "$fake/params/slow_us"
chmod 444 "$fake"/{available_policies,state,counters} "$fake"/stats/* \
	"$fake/policies/bounded/tunables"
: > "$fake/stats/reset"
chmod 200 "$fake/stats/reset"
res=$("$fuzz" -d "$fake" -m "$fake/params" -n 20 2>/dev/null)
rc=$?
read -r _ _ _ _ f _ <<<"$(grep '^total ' <<<"$res")"
[ "$rc" = 1 ] && [ "${f:-0}" -gt 20 ] ||
	fail "sysfuzz found no fault in a tree that accepts everything: $res"
pass "sysfuzz self-test: $f failures on a tree that accepts everything"

wp_load policy=mirror
# The kernel-parsed parameters get random values: restore the defaults.
read -r slow_us < "$WP_PARAMS/slow_us"
read -r slow_max < "$WP_PARAMS/slow_max"
read -r attach_wait_ms < "$WP_PARAMS/attach_wait_ms"
restore() {
	sysw "$WP_PARAMS/slow_us" "$slow_us"
	sysw "$WP_PARAMS/slow_max" "$slow_max"
	sysw "$WP_PARAMS/attach_wait_ms" "$attach_wait_ms"
}
at_exit restore
wl_start messaging perf bench sched messaging -g 1 -l 10

seed=$RANDOM
red0=$(counter redirected)
st_start
res=$("$fuzz" -n "$N" -j 4 -c $((N * 4)) -s "$seed" -t "$(st_left)" \
	2> "$WP_OUT/sysfuzz.err")
rc=$?
printf '%s\n' "$res" > "$WP_OUT/sysfuzz.out"
log "sysfuzz -n $N -j 4 -c $((N * 4)) -s $seed -t $ST_BUDGET:"
sed 's/^/#   /' <<<"$res" >&2
[ -s "$WP_OUT/sysfuzz.err" ] && head -25 "$WP_OUT/sysfuzz.err" | sed 's/^/#   /' >&2
read -r _ _ inputs _ failures _ files <<<"$(grep '^total ' <<<"$res")"
if ! [[ $inputs =~ ^[0-9]+$ ]]; then
	st_bad "sysfuzz did not finish (exit $rc)"
else
	st_iter "$inputs"
	# The target: N inputs per file, and the concurrent writers' share.
	ST_TARGET=$((N * files + N * 4 * 4))
	[ "$failures" = 0 ] || st_bad "$failures inputs answered against the ABI (see sysfuzz.err)"
	[ "$rc" = 0 ] || st_bad "sysfuzz exited $rc"
	# policy, shadow, sample_period, stats/reset, slow_us, slow_max and
	# at least one tunable.
	[ "$files" -ge 7 ] || st_bad "only $files writable files found"
	st_note "files $files seed $seed"
fi
grep -q '^file policy inputs' <<<"$res" || st_bad "policy was not fuzzed"
grep -q '^file sample_period inputs' <<<"$res" || st_bad "sample_period was not fuzzed"
restore

# Still fully working: a valid switch, picks under load, a clean unload.
sysw "$WP_S/policy" idlemask || st_bad "switch to idlemask refused after the fuzzing"
read -r state < "$WP_S/state"
[ "$state" = ok ] || st_bad "state after a valid switch: $state"
p0=$(stat_of idlemask picks)
wait_stat_gt 300 idlemask picks "$p0" ||
	st_bad "idlemask placed no wakeup after the fuzzing"
wl_stop
st_checked $(( $(counter redirected) - red0 ))
[ "$(counter corrected)" = 0 ] || st_bad "corrected picks: $(counter corrected)"
wp_unload
st_finish
