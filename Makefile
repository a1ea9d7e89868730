# RowCast: `make run` starts the daemon on its embedded defaults, `make test` runs every test.
# Both install what they need first (libzmq, pkg-config, a C compiler, pyzmq).

SWIFT        ?= swift
PYTHON       ?= python3
PREFIX       ?= /usr/local
DESTDIR      ?=
BUILD_DIR    := .build/debug
RELEASE_DIR  := .build/release
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := libzmq3-dev libsqlite3-dev pkg-config gcc libc6-dev

.PHONY: all deps build test test-swift test-python run bench clean help

all: build

help:
	@echo "make run    build and start rowcastd on its embedded defaults (Ctrl-C stops it)"
	@echo "make test   install what is missing, build, and run every test"
	@echo "make build  install what is missing and build (debug)"
	@echo "make bench  build in release mode and run the benchmarks"

## deps: install the system packages and Python modules the build and tests need, when missing.
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@$(PYTHON) -c "import zmq" 2>/dev/null || { echo "installing pyzmq"; $(PYTHON) -m pip install -q pyzmq; }

## build: the daemon, the CLI and the plugins (debug).
build: deps
	$(SWIFT) build

## test: every Swift test (unit and end-to-end), then the pyzmq protocol test.
test: build test-swift test-python

test-swift:
	$(SWIFT) test

test-python:
	ROWCAST_BUILD_DIR=$(BUILD_DIR) $(PYTHON) Tests/e2e-python/test_protocol.py

## run: rowcastd on its embedded defaults, with the plugins built next to it.
run: build
	$(BUILD_DIR)/rowcastd

## bench: release build, then the benchmark table.
bench: deps
	$(SWIFT) build -c release
	$(RELEASE_DIR)/rowcast-bench

clean:
	$(SWIFT) package clean
