# SPDX-License-Identifier: GPL-2.0-only
# sonde — thin entry point. Everything real lives in meson.build and scripts/.
BUILD ?= build
ASAN ?= build-asan
FUZZ ?= build-fuzz
PY := /usr/bin/python3

.PHONY: all deps test-deps build run test bench conformance clean

all: build

# What building needs; the tests and benchmarks need more (deps.sh test).
deps:
	@scripts/deps.sh build

test-deps:
	@scripts/deps.sh test

$(BUILD)/build.ninja:
	meson setup $(BUILD) --buildtype=debugoptimized

# The unit tests also run under AddressSanitizer and UBSan.
$(ASAN)/build.ninja:
	meson setup $(ASAN) -Db_sanitize=address,undefined -Db_lundef=false

build: deps $(BUILD)/build.ninja
	@ninja -C $(BUILD)

run: build
	$(BUILD)/sonde hot -d 5s

# The libFuzzer targets (tests/fuzz) need clang; run.py skips them, saying
# so, where clang cannot build them.
$(FUZZ)/build.ninja:
	CC=clang meson setup $(FUZZ) -Db_sanitize=address,undefined -Db_lundef=false

# A build tree configured before cmocka was installed has no unit tests:
# configure it again now that it is.
test: build test-deps $(ASAN)/build.ninja $(FUZZ)/build.ninja
	@for d in $(BUILD) $(ASAN) $(FUZZ); do \
		grep -q 'test_util' $$d/build.ninja || \
		meson setup --reconfigure $$d -Dtests=enabled >/dev/null || exit 1; \
	done
	@ninja -C $(BUILD) >/dev/null
	@ninja -C $(ASAN) >/dev/null
	@t=$$(ninja -C $(FUZZ) -t targets all | \
		sed -n 's|^\(tests/unit/fuzz_[a-z0-9_]*\): .*|\1|p'); \
		[ -z "$$t" ] || ninja -C $(FUZZ) $$t >/dev/null
	@$(PY) tests/run.py --build $(BUILD) --asan-build $(ASAN) --fuzz-build $(FUZZ)

# DTrace's own unit tests, all of them (tests/dtrace-suite.pass is the
# part make test runs): the pass rate, and the passing tests not listed.
conformance: build
	@scripts/dtrace-conformance.sh $(BUILD)/sonde

bench: build test-deps
	@for b in bench/*.sh; do echo "== $$b"; SONDE=$(BUILD)/sonde $$b || exit 1; done

clean:
	rm -rf $(BUILD) $(ASAN) $(FUZZ)
