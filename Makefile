# SPDX-License-Identifier: GPL-2.0
#
# jbd2-tune top level.  `make demo` runs the main job, `make check` the tests
# (see README.md).  KSERIES selects the kernel series for kmod (6.1, 6.12).

KSERIES ?= 6.1
export KSERIES

.PHONY: all kmod agent check check-debug demo bench crash fstests deb clean install deps

all: kmod agent

kmod:
	$(MAKE) -C kmod KSERIES=$(KSERIES)

agent:
	@if [ -f agent/Makefile ]; then $(MAKE) -C agent; \
	else echo "agent: not written yet"; fi

check:
	tests/check

# the VM suite on the 6.1 debug kernel (lockdep, KASAN, kmemleak, fault
# injection): outside check, slow (Documentation/kmod-maintainer.md)
check-debug:
	tests/check-debug

demo:
	@if [ -x bench/demo ]; then bench/demo; \
	else echo "make demo: not built yet (the demo issue adds bench/demo)" >&2; false; fi

bench:
	@if [ -x bench/run ]; then bench/run; \
	else echo "make bench: no benchmarks yet" >&2; false; fi

# power cuts (dm-log-writes replay) and write faults (dm-flakey), both series,
# knobs off and on: outside check (tests/crash/README)
crash:
	tests/crash/run

# fstests' journal tests, stock jbd2 vs ours with every knob on; FSTESTS=DIR
# is a built fstests tree (tests/fstests/get-fstests DIR makes one)
fstests:
	tests/fstests/run $(if $(FSTESTS),--fstests $(FSTESTS))

# the Debian packages, into build/deb/ (debian/)
deb:
	debian/build-debs build/deb

install:
	@if [ -f agent/Makefile ]; then $(MAKE) -C agent install; fi

deps:
	.ci/install-deps

clean:
	$(MAKE) -C kmod clean
	@if [ -f agent/Makefile ]; then $(MAKE) -C agent clean; fi
	rm -rf build tests/vm/out
