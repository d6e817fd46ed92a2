# sonde — thin entry point. Everything real lives in meson.build and scripts/.
BUILD ?= build
ASAN ?= build-asan
PY := /usr/bin/python3

.PHONY: all deps build run test bench clean

all: build

deps:
	@scripts/deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) --buildtype=debugoptimized

# The unit tests also run under AddressSanitizer and UBSan.
$(ASAN)/build.ninja:
	meson setup $(ASAN) -Db_sanitize=address,undefined -Db_lundef=false

build: deps $(BUILD)/build.ninja
	@ninja -C $(BUILD)

run: build
	$(BUILD)/sonde hot -d 5s

test: build $(ASAN)/build.ninja
	@ninja -C $(ASAN) >/dev/null
	@$(PY) tests/run.py --build $(BUILD) --asan-build $(ASAN)

bench: build
	@for b in bench/*.sh; do echo "== $$b"; SONDE=$(BUILD)/sonde $$b || exit 1; done

clean:
	rm -rf $(BUILD) $(ASAN)
