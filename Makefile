# SPDX-License-Identifier: GPL-2.0
#
# jbd2-tune top level.  `make demo` runs the main job, `make check` the tests
# (see Documentation/development.md).  KSERIES selects the kernel series for kmod (6.1, 6.12).

KSERIES ?= 6.1
export KSERIES

.PHONY: all kmod agent check check-system check-system-fleet check-system-trixie check-debug demo bench crash fstests deb dsc repo check-fleet clean install deps

all: kmod agent

kmod:
	$(MAKE) -C kmod KSERIES=$(KSERIES)

agent:
	$(MAKE) -C agent

check:
	tests/check

# the administrator's path on a Debian 12 guest (tests/system/run), with the
# upgrade to bookworm-backports' 6.12 kernel; `make check` runs it on 6.1
# alone (Documentation/system-test.md); then the fleet's path
check-system:
	tests/system/run --upgrade
	$(MAKE) check-system-fleet

# a fleet's host: the signed repository of `make repo` and the Ansible role
# in a Debian 12 guest, the prebuilt module packages through a kernel
# update, the last boot under UEFI Secure Boot (Documentation/fleet.md)
check-system-fleet: repo
	tests/system/run --fleet

# the same path on a Debian 13 guest and its own 6.12 kernel
check-system-trixie:
	tests/system/run --suite trixie

# the VM suite on the 6.1 debug kernel (lockdep, KASAN, kmemleak, fault
# injection): outside check, slow (Documentation/kmod-maintainer.md)
check-debug:
	tests/check-debug

demo:
	bench/demo

bench:
	bench/run

# power cuts (dm-log-writes replay) and write faults (dm-flakey), both series,
# knobs off and on: outside check (tests/crash/README)
crash:
	tests/crash/run

# jbd2-tuned and our jbd2 under a load that does not stop, 30 minutes in the
# VM (SOAK_MINUTES=N shortens it, KSERIES picks the kernel): outside check
# (tests/soak/run)
.PHONY: soak
soak:
	tests/soak/run $(if $(SOAK_MINUTES),--minutes $(SOAK_MINUTES))

# fstests' journal tests, stock jbd2 vs ours with every knob on; FSTESTS=DIR
# is a built fstests tree (tests/fstests/get-fstests DIR makes one)
fstests:
	tests/fstests/run $(if $(FSTESTS),--fstests $(FSTESTS))

# the Debian packages, into build/deb/ (debian/)
deb:
	debian/build-debs build/deb

# the source package (.dsc, .tar.xz), into build/deb/
dsc:
	debian/build-debs --source build/deb

# a fleet's signed apt repository, into build/repo/: the two packages of
# `make deb` plus one prebuilt jbd2-tune-modules-<abi> per supported kernel
# ABI (deploy/build-repo, Documentation/fleet.md); needs root and the
# cached kernels (kmod/scripts/fetch-kernel)
repo: deb
	nice -n 19 deploy/build-repo build/deb build/repo

# the repository's signature as apt checks it, the Ansible role's lint and
# its run in a Debian 12 chroot (deploy/check-fleet): outside check
check-fleet:
	deploy/check-fleet

install:
	$(MAKE) -C agent install

deps:
	.ci/install-deps

clean:
	$(MAKE) -C kmod clean
	$(MAKE) -C agent clean
	rm -rf build tests/vm/out tests/system/out
