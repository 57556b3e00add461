# SPDX-License-Identifier: GPL-2.0
#
# wakeplace: build wrapper.
#
#   make                      module for the running kernel, ctl, bench tools
#   make KVER=<release>       module for another installed kernel
#   make KVER=<release> WP_TEST=1   test build (fault-injection knobs)
#   make KVER=<release> WP_TWIN=1   test build named wakeplace_twin, a second
#                             IPMODIFY owner for the conflict tests
#   make check                the test suite (setup, host tests, VMs)
#   make lint KVER=<release>  W=1, sparse, checkpatch and shellcheck
#   make deps                 install what the project needs (Debian 12),
#                             with the sid build root for 7.2 (scripts/buildroot)
#   make deps-remove          remove that build root again

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
ifneq ($(WP_TWIN),)
WP_TEST := 1
endif
BUILD := build/$(KVER)$(if $(WP_TWIN),-twin,$(if $(WP_TEST),-test))
MODNAME := $(if $(WP_TWIN),wakeplace_twin,wakeplace)
SRCS := $(wildcard module/*.c module/*.h module/policies/*.c module/policies/*.h)
CHECKPATCH ?= build/tools/checkpatch.pl

.PHONY: all module ctl bench tools targets check check-deb stress deps deps-remove lint style sparse clean demo \
	install uninstall dkms-install install-userspace deb

all: module ctl bench tools

module: $(BUILD)/$(MODNAME).ko

# Kbuild is entered only when a source is newer than the module (or W= or
# C= asks for a checked rebuild, or WP_FORCE=1): just entering it evaluates
# the kernel Makefile's compiler probes, which under QEMU TCG, where the
# install tests run, takes minutes for nothing when the module is built.
# Headers that run only in the build root (scripts/buildroot: Debian sid's
# 7.2 needs sid's C library and compiler) resolve into it from the host:
# then the same rule runs in there.
WP_BUILDROOT ?= /var/lib/wakeplace/sid
WP_VIA_ROOT := $(filter $(WP_BUILDROOT)/%,$(realpath $(KDIR)))

$(BUILD)/$(MODNAME).ko: $(SRCS) Kbuild Makefile scripts/gen-layout scripts/btf-layout.awk \
		VERSION module/kernels scripts/gen-version $(if $(W)$(C)$(WP_FORCE),FORCE)
ifneq ($(WP_VIA_ROOT),)
	WP_BUILDROOT=$(WP_BUILDROOT) scripts/buildroot run $(MAKE) --no-print-directory \
		KVER=$(KVER) $(if $(WP_TEST),WP_TEST=1) $(if $(WP_TWIN),WP_TWIN=1) \
		$(if $(W),W=$(W)) $(if $(WP_FORCE),WP_FORCE=1) module
else
	@if [ ! -d "$(KDIR)" ]; then \
		echo "wakeplace: no kernel headers for $(KVER) at $(KDIR)." >&2; \
		echo "  installed: $$(ls /lib/modules 2>/dev/null | tr '\n' ' ')" >&2; \
		echo "  use: make KVER=<release>, or run 'make deps'" >&2; \
		exit 1; fi
	@mkdir -p $(BUILD)
	@cp -rs --remove-destination $(CURDIR)/module $(CURDIR)/Kbuild $(BUILD)/
	@find $(BUILD)/module -xtype l -delete
	@if [ ! -s $(BUILD)/module/generated/wp_layout.h ] || \
	    [ scripts/gen-layout -nt $(BUILD)/module/generated/wp_layout.h ] || \
	    [ scripts/btf-layout.awk -nt $(BUILD)/module/generated/wp_layout.h ]; then \
		echo "  GEN     $(BUILD)/module/generated/wp_layout.h"; \
		scripts/gen-layout $(KVER) $(BUILD)/module/generated/wp_layout.h; fi
	@scripts/gen-version module $(BUILD)/module/generated
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(BUILD) $(if $(WP_TEST),WP_TEST=y) \
		WP_MODNAME=$(MODNAME) modules
endif

FORCE:

ctl:
	@if [ -f ctl/Makefile ]; then $(MAKE) -C ctl; fi

bench:
	@if [ -f bench-scripts/Makefile ]; then $(MAKE) -C bench-scripts; fi

tools:
	$(MAKE) -C tests/tools

deps:
	scripts/setup

deps-remove:
	scripts/buildroot remove

check: deps
	tests/check

# The policy tables of README.md, docs/perf.md and the ABI document, from
# module/policies/*.c (tests/host/docs.sh fails when they are stale).
.PHONY: docs
docs:
	@scripts/gen-docs

# The "Placement at real LLC sizes" tables of docs/perf.md from
# bench-scripts/scale runs: SCALE="DIR..." (vm's -o DIR or a scale output
# directory) adds or replaces runs in docs/scale/; without SCALE the tables
# are rebuilt from what docs/scale/ holds.
.PHONY: scale-docs
scale-docs:
	@scripts/gen-scale-docs $(SCALE)

# The module for every target kernel that scripts/setup resolved (the host
# may not run one of them), plus the userspace parts.
TARGET_KERNELS = $(shell cat /var/lib/wakeplace/kernels 2>/dev/null)
targets: ctl bench tools
	@for k in $(TARGET_KERNELS); do $(MAKE) --no-print-directory KVER=$$k module || exit 1; done

# The Debian packages installed, upgraded and purged with apt in a guest of
# each kernel (tests/pkg), and make dkms-install in the 6.12 guest
# (tests/cases/800-dkms.sh; DKMS builds under TCG: ~20-35 min a kernel, 41
# on 6.1 with the 2-core host shared by four guests, its two DKMS builds
# 1308 s and 924 s: the guest's bound is 2 hours, not tests/check's 50 min).
check-deb: deps
	WP_BUILD_DEBS=1 WP_EXTRA_CASES=$(CURDIR)/tests/pkg TESTS='^(800|810)-' TOPOS=llc2 \
		KERNELS="$${KERNELS:-6.1 6.12 7.2}" WP_NO_HOST_TESTS=1 \
		WP_VM_TIMEOUT="$${WP_VM_TIMEOUT:-7200}" tests/check

# The reliability suite's long version: boots each kernel, prints a table.
stress: deps targets
	tests/stress/run

# The main command of the README: placement on 16 CPUs, a short A/B and a
# live switch, each in a VM.
demo: deps targets
	bench-scripts/demo

lint: style
	scripts/lint-shell
	$(MAKE) KVER=$(KVER) W=1 module
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(BUILD) C=2 CHECK=sparse \
		WP_MODNAME=$(MODNAME) modules

# checkpatch.pl comes from Debian's linux-source-6.1 (apt-get install it).
build/tools/checkpatch.pl:
	@src=$$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | head -1); \
	if [ -z "$$src" ]; then \
		echo "checkpatch: apt-get install linux-source-6.1 first" >&2; \
		exit 1; fi; \
	mkdir -p build/tools; \
	d=$$(basename $$src .tar.xz); \
	tar -C build/tools -xf $$src --strip-components=2 \
		$$d/scripts/checkpatch.pl $$d/scripts/spelling.txt \
		$$d/scripts/const_structs.checkpatch

# Userspace C follows kernel style too, minus advice about kernel-only
# helpers (__printf, __aligned, ARRAY_SIZE, kstrto*) that libc programs lack.
USER_C := $(wildcard ctl/*.c ctl/*.h lib/*.c lib/*.h tests/tools/*.c \
	bench-scripts/src/*.c bench-scripts/src/*.h)
USER_IGNORE := PREFER_DEFINED_ATTRIBUTE_MACRO,EMBEDDED_FUNCTION_NAME,ARRAY_SIZE,SSCANF_TO_KSTRTO

style: $(CHECKPATCH)
	$(CHECKPATCH) --no-tree --quiet --show-types -f $(filter %.c %.h,$(SRCS))
	$(CHECKPATCH) --no-tree --quiet --show-types --ignore $(USER_IGNORE) \
		-f $(USER_C)

clean:
	rm -rf build
	@if [ -f ctl/Makefile ]; then $(MAKE) -C ctl clean; fi
	@if [ -f bench-scripts/Makefile ]; then $(MAKE) -C bench-scripts clean; fi
	$(MAKE) -C tests/tools clean

# --- installation (docs/admin.md) --------------------------------------------
#   make install [KVER=<release>] [PREFIX=/usr/local] [DESTDIR=]
#       the module into /lib/modules/<release>/extra (then depmod);
#       wakeplacectl, its man page and bash completion under PREFIX; the ABI
#       document and the modprobe.d / modules-load.d / cgroups.conf
#       examples under PREFIX/share/doc/wakeplace; the units of
#       packaging/systemd (wakeplace-auto, wakeplace-cgroups) under
#       PREFIX/lib/systemd/system (not enabled).  Never a test build.
#   make uninstall [KVER=<release>] [PREFIX=/usr/local] [DESTDIR=]
#       removes exactly that; your /etc/modprobe.d files and
#       /etc/wakeplace/cgroups.conf stay.
#   make dkms-install [KVER=<release>]
#       registers the sources with DKMS and builds for every installed
#       kernel (or only <release>): packaging/dkms-install.
#   make install-userspace [PREFIX=/usr/local] [DESTDIR=] [DOCDIR=] [UNITDIR=]
#       the userspace half of make install (no module, no depmod): what
#       the wakeplacectl package ships (debian/rules: its doc directory,
#       and the units in /lib/systemd/system as bookworm wants them).
#   make deb [WP_DEB_VERSION=X.Y.Z] [DEB_DIR=build/deb]
#       wakeplace-dkms and wakeplacectl .debs in DEB_DIR (scripts/mkdeb);
#       WP_DEB_VERSION builds them as another version (upgrade tests).
install uninstall install-userspace: PREFIX ?= /usr/local
install uninstall install-userspace: DOCDIR ?= $(PREFIX)/share/doc/wakeplace
install uninstall: WP_MODDIR = $(DESTDIR)/lib/modules/$(KVER)/extra
install uninstall install-userspace: WP_DOCDIR = $(DESTDIR)$(DOCDIR)
install uninstall install-userspace: UNITDIR ?= $(PREFIX)/lib/systemd/system
install uninstall install-userspace: WP_UNITDIR = $(DESTDIR)$(UNITDIR)
WP_UNITS := $(notdir $(wildcard packaging/systemd/*.service))

install: module ctl
	@if [ -n "$(WP_TEST)" ]; then \
		echo "wakeplace: refusing to install a test build (WP_TEST/WP_TWIN)" >&2; \
		exit 1; fi
	install -d $(WP_MODDIR)
	install -m 0644 $(BUILD)/wakeplace.ko $(WP_MODDIR)/wakeplace.ko
	@if [ -z "$(DESTDIR)" ]; then echo "depmod -a $(KVER)"; depmod -a $(KVER); \
	else echo "DESTDIR set: depmod skipped"; fi
	$(MAKE) --no-print-directory install-userspace DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) \
		DOCDIR=$(DOCDIR) UNITDIR=$(UNITDIR)
	@if [ -z "$(DESTDIR)" ] && \
	    ls /lib/modules/$(KVER)/updates/dkms/wakeplace.ko* >/dev/null 2>&1; then \
		echo "note: a DKMS build in /lib/modules/$(KVER)/updates/dkms takes precedence over extra/"; fi
	@echo "installed for $(KVER); load with: modprobe wakeplace [policy=NAME]"

install-userspace: ctl
	install -d $(WP_DOCDIR)/examples
	$(MAKE) -C ctl install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	install -m 0644 README.md docs/sysfs-* docs/*.md $(WP_DOCDIR)/
	install -m 0644 packaging/modprobe.d/wakeplace.conf \
		$(WP_DOCDIR)/examples/modprobe.d-wakeplace.conf
	install -m 0644 packaging/modules-load.d/wakeplace.conf \
		$(WP_DOCDIR)/examples/modules-load.d-wakeplace.conf
	install -m 0644 packaging/wakeplace/cgroups.conf \
		$(WP_DOCDIR)/examples/cgroups.conf
	install -d $(WP_UNITDIR)
	for u in $(WP_UNITS); do \
		sed 's,^\(Exec[A-Za-z]*=\)/usr/local/sbin/,\1$(PREFIX)/sbin/,' \
			packaging/systemd/$$u >$(WP_UNITDIR)/$$u && \
		chmod 0644 $(WP_UNITDIR)/$$u || exit 1; \
	done

uninstall:
	rm -f $(WP_MODDIR)/wakeplace.ko
	-@rmdir $(WP_MODDIR) 2>/dev/null || true
	@if [ -z "$(DESTDIR)" ]; then echo "depmod -a $(KVER)"; depmod -a $(KVER); fi
	$(MAKE) -C ctl uninstall DESTDIR=$(DESTDIR) PREFIX=$(PREFIX)
	rm -rf $(WP_DOCDIR)
	rm -f $(addprefix $(WP_UNITDIR)/,$(WP_UNITS))
	-@rmdir $(WP_UNITDIR) 2>/dev/null || true
	@for f in $(DESTDIR)/etc/modprobe.d/wakeplace.conf \
	    $(DESTDIR)/etc/modules-load.d/wakeplace.conf \
	    $(DESTDIR)/etc/wakeplace/cgroups.conf; do \
		[ -e $$f ] && echo "note: $$f is yours: not removed"; done; true
	@if [ -z "$(DESTDIR)" ] && [ -d /sys/module/wakeplace ]; then \
		echo "note: wakeplace is still loaded (rmmod wakeplace)"; fi

deb:
	scripts/mkdeb $(DEB_DIR)

dkms-install:
	packaging/dkms-install $(if $(filter command line environment,$(origin KVER)),$(KVER))
