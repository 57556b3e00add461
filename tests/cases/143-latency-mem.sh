#!/bin/bash
# desc: latency histograms cover the online CPUs only and at most 4 policies: with every policy tried once, the active and the last 3 have them, the others none; latency_mem and wakeplacectl status show the bytes
# requires: module ctl jq topo=llc2
# tier: core
. "$WP_TESTS/lib.sh"

CTL=$WP_CTL
mem_of() { awk -v p="$1" '$1 == p { print $2, $3 }' "$WP_SYSFS/latency_mem"; }

wp_load
at_exit 'wp_loaded && rmmod wakeplace'
online=$(nr_cpus)
possible=$(cpulist_count "$(cat /sys/devices/system/cpu/possible)")
log "$online CPUs online, $possible possible"

# Measurement off: no policy has histograms, whatever was active.
read -ra POLS <<<"$(wp_policies)"
[ "${#POLS[@]}" -ge 6 ] || skip "needs 6 policies"
wp_write policy "${POLS[1]}" || fail "cannot set ${POLS[1]}"
wp_write policy stock || fail "cannot set stock"
assert_eq "$(awk '$2 != 0' "$WP_SYSFS/latency_mem" | wc -l)" 0 "measurement off: policies with histograms"

# On: stock (active) gets them, on the online CPUs.
wp_write latency_sample 1 || fail "latency_sample 1 refused"
read -r b c <<<"$(mem_of stock)"
assert_eq "$c" "$online" "stock: CPUs with histograms = online CPUs"
assert_gt "$b" 0 "stock: histogram bytes"
per=$((b / (c + 1)))
log "stock: $b bytes on $c CPUs (~$per per CPU and the baseline)"

# Every policy once, stock first (the least recently active at the end).
order=()
for p in "${POLS[@]}"; do [ "$p" != stock ] && order+=("$p"); done
for p in "${order[@]}"; do
	wp_write policy "$p" || fail "cannot set $p"
done
last=${order[${#order[@]} - 1]}
kept=$(awk '$2 != 0 { print $1 }' "$WP_SYSFS/latency_mem" | sort | paste -sd ' ')
want=$(printf '%s\n' "${order[@]: -4}" | sort | paste -sd ' ')
assert_eq "$kept" "$want" "policies with histograms: the active and the 3 before it"
read -r b c <<<"$(mem_of "$last")"
assert_eq "$c" "$online" "$last (active): CPUs with histograms"
read -r b c <<<"$(mem_of stock)"
assert_eq "$b $c" "0 0" "stock, evicted: no histograms"
# An evicted policy reads as empty, and starts again when active.
assert_eq "$(wp_read latency/stock | awk '$1 == "all" { print $2 }')" 0 "stock evicted: latency count"
wp_write policy stock || fail "cannot set stock"
read -r b c <<<"$(mem_of stock)"
assert_eq "$c" "$online" "stock active again: CPUs with histograms"
assert_eq "$(awk '$2 != 0' "$WP_SYSFS/latency_mem" | wc -l)" 4 "at most 4 policies with histograms"

# status shows them; -j per policy.
"$CTL" status >"$WP_OUT/status.txt" 2>&1
grep -Eq "^histograms: .*stock [0-9]+ KiB \($online CPUs\)" "$WP_OUT/status.txt" ||
	fail "status: no histograms line with stock: $(cat "$WP_OUT/status.txt")"
"$CTL" -j status >"$WP_OUT/status.json" 2>&1
assert_eq "$(jq -r '.latency_mem.stock.cpus' "$WP_OUT/status.json")" "$online" "status -j: latency_mem.stock.cpus"
total=$(awk '{ s += $2 } END { print s }' "$WP_SYSFS/latency_mem")
log "latency_mem: $total bytes for 4 policies on $online online CPUs ($possible possible)"

# Off again: the histograms stay readable (the last 4 are kept).
wp_write latency_sample 0 || fail "latency_sample 0 refused"
assert_eq "$(awk '$2 != 0' "$WP_SYSFS/latency_mem" | wc -l)" 4 "off again: the 4 kept"
pass "histograms on $online of $possible CPUs for 4 of ${#POLS[@]} policies: $total bytes"
