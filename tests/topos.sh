# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The guest topologies, one table for tests/check and bench-scripts/vm
# (sourced, not run): QEMU options, CPUs (vng --cpus, equal to -smp),
# memory (empty: the caller's default) and extra kernel command line.
# The big ones are the LLC sizes of servers (a 16-CPU CCD, one 32-CPU LLC,
# two sockets of 16, 36 cores x 2 threads): under TCG they count
# placements, not time.
# shellcheck disable=SC2034 # the tables are the callers'
declare -A topo_opts=(
	[llc2]='-smp 4,sockets=2,cores=2'
	[smt]='-cpu max,vendor=GenuineIntel -smp 4,sockets=1,cores=2,threads=2'
	[llc16]='-smp 16,sockets=1,cores=16'
	[llc32]='-smp 32,sockets=1,cores=32'
	[llc2x16]='-smp 32,sockets=2,cores=16'
	[smt72]='-cpu max,vendor=GenuineIntel -smp 72,sockets=1,cores=36,threads=2'
)
# shellcheck disable=SC2034
declare -A topo_cpus=(
	[llc2]=4 [smt]=4 [llc16]=16 [llc32]=32 [llc2x16]=32 [smt72]=72
)
# shellcheck disable=SC2034
declare -A topo_mem=(
	[llc32]=3G [llc2x16]=3G [smt72]=4G
)
# shellcheck disable=SC2034
declare -A topo_append=(
	[smt]='mitigations=off'
	[smt72]='mitigations=off'
)
# Drivers udev would load for QEMU's q35 devices that no guest needs:
# under TCG every module load is slow (the coldplug took 48 s instead of
# 14 s on a loaded host).  Passed as modprobe.blacklist=.
# shellcheck disable=SC2034
VM_BLACKLIST=kvm,kvm_intel,kvm_amd,iTCO_wdt,iTCO_vendor_support,i6300esb,\
pcspkr,sr_mod,cdrom,ahci,libahci,libata,sg,serio_raw,joydev,evdev,psmouse,\
intel_rapl_msr,intel_rapl_common,intel_pmc_core,crc32_pclmul,\
ghash_clmulni_intel,aesni_intel,crypto_simd,cryptd,powernow_k8,\
qemu_fw_cfg,lpc_ich,i2c_i801,i2c_smbus,drm,bochs,virtio_rng

# vm_checkout_tmp DIR: /tmp or /var/tmp when the checkout DIR lies in it,
# else nothing.  vng gives every guest a fresh /tmp and /var/tmp, which
# hide a checkout there (a CI clone in /tmp).
vm_checkout_tmp() {
	case $(readlink -f "$1")/ in
	/tmp/*) echo /tmp ;;
	/var/tmp/*) echo /var/tmp ;;
	esac
}

# vm_checkout_share DIR: the vng options (into VM_SHARE) that let a 9p
# guest run the checkout DIR from its own path: in a tmp directory it is
# shared back read-only at the same path; elsewhere the guest's root
# already shows it and nothing is added.
vm_checkout_share() {
	local d
	d=$(readlink -f "$1")
	VM_SHARE=()
	if [ -n "$(vm_checkout_tmp "$d")" ]; then
		VM_SHARE=(--rodir "$d=$d")
	fi
}
