# sonde — thin entry point. Everything real lives in meson.build and scripts/.
BUILD ?= build
PY := /usr/bin/python3

.PHONY: all deps build run test bench clean

all: build

deps:
	@scripts/deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) --buildtype=debugoptimized

build: deps $(BUILD)/build.ninja
	@ninja -C $(BUILD)

run: build
	$(BUILD)/sonde hot -d 5s

test: build
	@$(PY) tests/run.py --build $(BUILD)

bench: build
	@for b in bench/*.sh; do echo "== $$b"; SONDE=$(BUILD)/sonde $$b || exit 1; done

clean:
	rm -rf $(BUILD)
