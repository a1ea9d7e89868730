# RowCast: `make run` starts the daemon on its embedded defaults, `make test` runs every test.
# Both install what they need first (libzmq, pkg-config, a C compiler, tmux, iproute2, pyzmq).

SWIFT        ?= swift
PYTHON       ?= python3
PREFIX       ?= /usr/local
DESTDIR      ?=
BUILD_DIR    := .build/debug
RELEASE_DIR  := .build/release
# What `make install` builds and installs: release, or debug (make test-systemd, whose CI run
# reuses the build of make test instead of a release build of its own).
CONFIGURATION ?= release
INSTALL_DIR  := .build/$(CONFIGURATION)
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# iproute2: the relay test across network namespaces; chromium: the headless browser of the
# gateway's page test (Tests/e2e-python/test_gateway_browser.py).
APT_PACKAGES := libzmq3-dev libsqlite3-dev pkg-config gcc libc6-dev tmux iproute2 chromium curl postgresql libpq-dev

BINDIR       := $(PREFIX)/bin
PLUGINDIR    := $(PREFIX)/lib/rowcast/plugins
UNITDIR      ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR  ?= $(PREFIX)/lib/sysusers.d
DOCDIR       := $(PREFIX)/share/doc/rowcast
INCLUDEDIR   := $(PREFIX)/include
SDKDIR       := $(PREFIX)/share/rowcast/sdk
PKGCONFIGDIR := $(PREFIX)/lib/pkgconfig
ROWCAST_VERSION := $(shell sed -n 's/.*static let current = "\(.*\)"/\1/p' Sources/RowCastSupport/RowCastVersion.swift)
ABI_VERSION  := $(shell sed -n 's/^\#define ROWCAST_PLUGIN_ABI_VERSION \([0-9]*\)u/\1/p' SDK/Sources/CRowCastPlugin/include/rowcast_plugin.h)
SYSCONFDIR   ?= /etc
CONFIGDIR    := $(SYSCONFDIR)/rowcast
MANDIR       := $(PREFIX)/share/man/man1
BASHCOMPDIR  := $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR   := $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR  := $(PREFIX)/share/fish/vendor_completions.d
# The executables the man pages and completions are generated from (install-cli-docs).
BIN_FROM     ?= $(RELEASE_DIR)
# swift-argument-parser's generate-manual, built from the package's own checkout (offline).
ARGUMENT_PARSER_DIR ?= .build/checkouts/swift-argument-parser
TOOLS_DIR    := .build/tools
MAN_BUILD    := .build/man
MAN_DATE     ?= $(shell git log -1 --format=%cs 2>/dev/null || date +%F)

.PHONY: all deps build examples test check-linkage check-docs test-swift test-python test-asan test-tsan test-systemd fuzz run bench bench-guard clean help install uninstall install-cli-docs uninstall-cli-docs install-sdk uninstall-sdk format format-check

all: build

help:
	@echo "make run    build and start rowcastd on its embedded defaults (Ctrl-C stops it)"
	@echo "make test   install what is missing, build, and run every test"
	@echo "make build  install what is missing and build (debug)"
	@echo "make bench  build in release mode and run the benchmarks"
	@echo "make bench-guard  instructions per item (callgrind, release build) against Benchmarks/Thresholds"
	@echo "make fuzz   build the libFuzzer harnesses and run each for FUZZ_SECONDS (default 60)"
	@echo "make format-check  swift format lint --strict with .swift-format (120 columns); builds nothing"
	@echo "make format        reformat every Swift file in place with .swift-format"
	@echo "make test-asan / make test-tsan  every Swift test under AddressSanitizer / ThreadSanitizer"
	@echo "make test-systemd  install into a staging tree and run the unit under a real systemd"
	@echo "             (a throwaway systemd-nspawn container; as root; SKIP when it cannot boot)"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=]  release build, then install the binaries,"
	@echo "             plugins, /etc/rowcast/rowcastd.yaml (kept if present), the systemd unit,"
	@echo "             the man pages and the bash, zsh and fish completions of rowcast"
	@echo "make install-cli-docs [BIN_FROM=.build/debug]  only the man pages and completions"
	@echo "make install-sdk [PREFIX=/usr/local] [DESTDIR=]  only the plugin SDK, its C header and rowcast-plugin.pc"

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
	@$(PYTHON) -c "import websocket" 2>/dev/null || { echo "installing websocket-client"; $(PYTHON) -m pip install -q websocket-client; }
	@$(PYTHON) -c "import prometheus_client" 2>/dev/null || { echo "installing prometheus_client"; $(PYTHON) -m pip install -q prometheus_client; }

## build: the daemon, the CLI and the plugins (debug), and the examples' C plugins.
build: deps
	$(SWIFT) build
	$(MAKE) --no-print-directory examples

## examples: each Examples/*/plugin/NAME.c built into $(BUILD_DIR)/librowcast-NAME.so, next to
## rowcastd, where it finds plugins by default.
EXAMPLE_C_PLUGINS := $(wildcard Examples/*/plugin/*.c)
EXAMPLE_CELLS     := $(wildcard Examples/*/cells)
examples: $(patsubst %.c,$(BUILD_DIR)/librowcast-%.so,$(notdir $(EXAMPLE_C_PLUGINS)))
$(BUILD_DIR)/librowcast-%.so: Examples/*/plugin/%.c SDK/Sources/CRowCastPlugin/include/rowcast_plugin.h
	@mkdir -p $(BUILD_DIR)
	$(CC) -std=c11 -O2 -Wall -Wextra -shared -fPIC -I SDK/Sources/CRowCastPlugin/include $< -o $@

## test: every Swift test (unit and end-to-end), then the Python tests: the pyzmq protocol
## test, the gateway's WebSocket/SSE stream test and its page in headless Chromium (which
## leaves screenshots in .build/artifacts/).
test: build check-linkage check-docs test-swift test-python

## check-docs: every path docs/ARCHITECTURE.md and docs/SECURITY.md name exists, and every
## shell block of every README.md and of docs/*.md runs as written against a
## rowcastd of the debug build, or is marked as run by a test or as an illustration, its
## rowcast lines checked against --help (docs/TESTING.md, "Commands in the docs"; seconds).
check-docs:
	@Tests/docs/check-architecture-paths.sh
	@Tests/docs/check-architecture-paths.sh docs/SECURITY.md
	@ROWCAST_BUILD_DIR=$(BUILD_DIR) $(PYTHON) Tests/docs/check-doc-commands.py
	@ROWCAST_BUILD_DIR=$(BUILD_DIR) PYTHON=$(PYTHON) Tests/docs/check-doc-commands-refuses.sh

## check-linkage: the module seams hold in the built executables (docs/ARCHITECTURE.md):
## rowcast links neither GRDB nor SQLite, and rowcast-plugin-host links nothing of the engine,
## the store, ZeroMQ, GRDB or SQLite; rowcastd must show all of them, so a check that looks at
## the wrong files fails too. Symbols are matched by their Swift-mangled module names.
LINKAGE_STORE := GRDB|sqlite3|12RowCastStore
LINKAGE_HOST  := $(LINKAGE_STORE)|13RowCastEngine|6ZeroMQ|zmq_
check-linkage:
	@for tool in rowcast rowcast-plugin-host rowcastd; do test -x $(BUILD_DIR)/$$tool || { echo "check-linkage: $(BUILD_DIR)/$$tool is not built"; exit 1; }; done
	@for pattern in GRDB sqlite3_ 12RowCastStore 13RowCastEngine 6ZeroMQ zmq_; do \
		nm $(BUILD_DIR)/rowcastd | grep -q "$$pattern" || { echo "check-linkage: rowcastd shows no $$pattern symbol: the check is blind"; exit 1; }; \
	done
	@Tests/linkage/check-linkage.sh $(BUILD_DIR)/rowcast '$(LINKAGE_STORE)'
	@Tests/linkage/check-linkage.sh $(BUILD_DIR)/rowcast-plugin-host '$(LINKAGE_HOST)'

test-swift:
	$(SWIFT) test

test-python:
	ROWCAST_BUILD_DIR=$(BUILD_DIR) $(PYTHON) Tests/e2e-python/test_protocol.py
	ROWCAST_BUILD_DIR=$(BUILD_DIR) $(PYTHON) Tests/e2e-python/test_gateway_stream.py
	ROWCAST_BUILD_DIR=$(BUILD_DIR) $(PYTHON) Tests/e2e-python/test_gateway_origins.py
	ROWCAST_BUILD_DIR=$(BUILD_DIR) $(PYTHON) Tests/e2e-python/test_gateway_limits.py
	ROWCAST_BUILD_DIR=$(BUILD_DIR) $(PYTHON) Tests/e2e-python/test_gateway_tokens.py
	ROWCAST_BUILD_DIR=$(BUILD_DIR) $(PYTHON) Tests/e2e-python/test_publish_progress.py
	ROWCAST_BUILD_DIR=$(BUILD_DIR) $(PYTHON) Tests/e2e-python/test_gateway_windows.py
	ROWCAST_BUILD_DIR=$(BUILD_DIR) ROWCAST_BROWSER_REQUIRED=1 ROWCAST_ARTIFACTS=.build/artifacts $(PYTHON) Tests/e2e-python/test_gateway_browser.py
	ROWCAST_BUILD_DIR=$(BUILD_DIR) $(PYTHON) Tests/e2e-python/test_metrics.py

## test-asan, test-tsan: every Swift test (the end-to-end ones start rowcastd, rowcast and
## plugin hosts built with the same sanitizer), each in a build directory of its own. Leak
## checking is off: the Swift runtime's caches live until exit by design. The ThreadSanitizer
## runtime is linked into each executable: --export-dynamic lets the plugins it loads use it.
## Both keep line tables only (reports still name file and line) and link with lld: a clean
## ThreadSanitizer build took 360 s instead of 440 s with full debug info and gold.
SANITIZER_BUILD_FLAGS := -Xswiftc -use-ld=lld -Xswiftc -gline-tables-only -Xcc -gline-tables-only
test-asan: deps
	$(SWIFT) build --build-tests --sanitize=address --build-path .build-asan $(SANITIZER_BUILD_FLAGS)
	ASAN_OPTIONS="detect_leaks=0 suppressions=$(CURDIR)/Tests/sanitizers/asan.supp $(ASAN_OPTIONS)" \
		$(SWIFT) test --skip-build --sanitize=address --build-path .build-asan

test-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build-tsan -Xlinker --export-dynamic $(SANITIZER_BUILD_FLAGS)
	TSAN_OPTIONS="halt_on_error=1 $(TSAN_OPTIONS)" $(SWIFT) test --skip-build --sanitize=thread --build-path .build-tsan

## fuzz: the libFuzzer harnesses of Fuzz/RowCastFuzz (JSON parser, UTF-8 validation, request
## decoder, the client's delta applier, declarative cells, the plugin-output check) with AddressSanitizer, each run for FUZZ_SECONDS from
## the seeds in Fuzz/corpus; what they find lands in .build-fuzz/findings/ and fails the target.
## Linked with lld: gold stops with an internal error on the instrumented objects.
FUZZ_SECONDS ?= 60
FUZZ_HARNESSES := json utf8 request delta cells output
fuzz: deps
	$(SWIFT) build --product rowcast-fuzz --build-path .build-fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld -Xcc -DROWCAST_FUZZ
	@mkdir -p .build-fuzz/findings
	@for harness in $(FUZZ_HARNESSES); do \
		mkdir -p .build-fuzz/corpus/$$harness; \
		echo "fuzzing $$harness for $(FUZZ_SECONDS) s"; \
		.build-fuzz/release/rowcast-fuzz $$harness -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
			-artifact_prefix=.build-fuzz/findings/$$harness- .build-fuzz/corpus/$$harness Fuzz/corpus/$$harness 2>.build-fuzz/$$harness.log \
			|| { tail -40 .build-fuzz/$$harness.log; echo "fuzz: $$harness found a failure; the input is in .build-fuzz/findings/"; exit 1; }; \
		grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" .build-fuzz/$$harness.log; \
	done

## test-systemd: systemd/rowcastd.service under a real systemd (docs/TESTING.md): `make install`
## into a staging tree, then Tests/systemd/nspawn-test.sh boots this machine's OS in a throwaway
## systemd-nspawn container with that tree as /usr/local and drives the unit with systemctl. It
## installs systemd-container when missing, and prints SKIP (status 0) where no container can
## boot; ROWCAST_SYSTEMD_REQUIRED=1 makes that a failure. It installs the debug build (the one
## make test made); CONFIGURATION=release tests what users install.
SYSTEMD_STAGE := $(CURDIR)/.build/systemd-test/stage
test-systemd: CONFIGURATION = debug
test-systemd:
	@command -v systemd-nspawn >/dev/null || { echo "installing systemd-container"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd-container >/dev/null 2>&1 || { \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd-container >/dev/null; } || true; }
	rm -rf $(SYSTEMD_STAGE)
	$(MAKE) install DESTDIR=$(SYSTEMD_STAGE) PREFIX=/usr/local CONFIGURATION=$(CONFIGURATION)
	$(SUDO) Tests/systemd/nspawn-test.sh $(SYSTEMD_STAGE)

## format-check: every Swift file (the manifests, the sources, the SDK, the tests, the benchmarks,
## the plugins, the examples and the fuzz harnesses) checked against .swift-format by swift format
## lint --strict: 120 columns and the lint rules it enables; any finding fails. Builds nothing.
## format: the same files reformatted in place (lines over 120 columns wrapped). swift-format
## neither breaks nor reports string literals and comments, so lines of those may stay longer.
FORMAT_PATHS := Package.swift Sources SDK Tests Benchmarks Plugins Examples Fuzz
format:
	$(SWIFT) format format --in-place --configuration .swift-format --recursive --parallel $(FORMAT_PATHS)

format-check:
	$(SWIFT) format lint --strict --configuration .swift-format --recursive --parallel $(FORMAT_PATHS)

## run: rowcastd on its embedded defaults, with the plugins built next to it (the examples' C
## plugins among them) and the examples' cell files.
run: build
	$(BUILD_DIR)/rowcastd $(foreach cells,$(EXAMPLE_CELLS),--cells $(cells))

## bench-guard: instructions per item of the paths whose counts repeat exactly (the engine
## path for new items and for updates, the SDK's render, the store's commit, a trickle), counted by callgrind on a release build and
## checked against Benchmarks/Thresholds/instructions.json; fails on a path that grew by more
## than the tolerance there (Benchmarks/README.md, "Guarded figures"). It builds only what those
## paths run (InstructionsBenchmark.files(for:)): rowcast-bench and the plugins, the plugin host
## only for the paths with plugins in their hosts. No path runs rowcastd, whose web gateway links
## jwt-kit and swift-crypto's BoringSSL: leaving it out saves their release build.
GUARDED_PATHS := engine,engineUpdates,sdkRender,storeCommit,trickle
comma := ,
GUARD_PRODUCTS := rowcast-bench rowcast-product rowcast-advertising \
	$(if $(filter daemonHosted trickle hosts,$(subst $(comma), ,$(GUARDED_PATHS))),rowcast-plugin-host)
bench-guard: deps
	@command -v valgrind >/dev/null || { echo "installing valgrind"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null 2>&1 || { \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }; }
	for product in $(GUARD_PRODUCTS); do $(SWIFT) build -c release --product $$product || exit 1; done
	ROWCAST_BENCH_INSTRUCTION_PATHS=$(GUARDED_PATHS) $(RELEASE_DIR)/rowcast-bench instructions
	$(PYTHON) Benchmarks/scripts/check-instructions.py --results bench-results.json

## bench: release build, then the benchmark table (valgrind counts instructions per item).
bench: deps
	@command -v valgrind >/dev/null || { echo "installing valgrind"; $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
	$(SWIFT) build -c release
	$(RELEASE_DIR)/rowcast-bench

## install: a release build (CONFIGURATION=debug: a debug one), installed under
## $(DESTDIR)$(PREFIX): rowcastd, rowcast and rowcast-plugin-host (which rowcastd starts, one per
## plugin file) in bin/,
## the plugins in lib/rowcast/plugins/ (where rowcastd looks, next to its executable), the
## default configuration in /etc/rowcast/ (an existing one is kept; the new one goes next to it
## as rowcastd.yaml.default) with ipc:// endpoints in /run/rowcast for the group rowcast
## (Config/rowcastd.service.yaml appended to Config/rowcastd.yaml), the user and group rowcast
## (sysusers.d; created now when installing to this system), the unit in lib/systemd/system/
## with this PREFIX's paths, and the docs. Then: systemctl daemon-reload && systemctl enable --now rowcastd
install: deps
	$(SWIFT) build -c $(CONFIGURATION) --product rowcastd
	$(SWIFT) build -c $(CONFIGURATION) --product rowcast
	$(SWIFT) build -c $(CONFIGURATION) --product rowcast-plugin-host
	$(SWIFT) build -c $(CONFIGURATION) --product rowcast-product
	$(SWIFT) build -c $(CONFIGURATION) --product rowcast-advertising
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(CONFIGDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSUSERSDIR)
	install -m 0755 $(INSTALL_DIR)/rowcastd $(INSTALL_DIR)/rowcast $(INSTALL_DIR)/rowcast-plugin-host $(DESTDIR)$(BINDIR)/
	install -m 0644 $(INSTALL_DIR)/librowcast-product.so $(INSTALL_DIR)/librowcast-advertising.so $(DESTDIR)$(PLUGINDIR)/
	cat Config/rowcastd.yaml Config/rowcastd.service.yaml > $(INSTALL_DIR)/rowcastd.installed.yaml
	if [ -e $(DESTDIR)$(CONFIGDIR)/rowcastd.yaml ]; then \
		install -m 0644 $(INSTALL_DIR)/rowcastd.installed.yaml $(DESTDIR)$(CONFIGDIR)/rowcastd.yaml.default; \
		echo "kept $(DESTDIR)$(CONFIGDIR)/rowcastd.yaml; the new default is rowcastd.yaml.default"; \
	else \
		install -m 0644 $(INSTALL_DIR)/rowcastd.installed.yaml $(DESTDIR)$(CONFIGDIR)/rowcastd.yaml; \
	fi
	install -m 0644 systemd/rowcast.sysusers $(DESTDIR)$(SYSUSERSDIR)/rowcast.conf
	if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then systemd-sysusers $(SYSUSERSDIR)/rowcast.conf; fi
	sed -e 's|/usr/local/bin/rowcastd|$(BINDIR)/rowcastd|g' \
	    -e 's|/etc/rowcast/rowcastd.yaml|$(CONFIGDIR)/rowcastd.yaml|g' \
	    -e 's|/usr/local/share/doc/rowcast|$(DOCDIR)|g' \
	    systemd/rowcastd.service > $(DESTDIR)$(UNITDIR)/rowcastd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/rowcastd.service
	install -m 0644 README.md docs/OPERATIONS.md docs/PROTOCOL.md docs/PLUGINS.md docs/SECURITY.md $(DESTDIR)$(DOCDIR)/
	$(MAKE) install-cli-docs BIN_FROM=$(INSTALL_DIR)
	$(MAKE) install-sdk
	@echo "installed under $(DESTDIR)$(PREFIX); now: systemctl daemon-reload && systemctl enable --now rowcastd"

## install-cli-docs: the man pages of rowcast and rowcastd, generated from their argument
## parsers by swift-argument-parser's generate-manual (mdoc; empty lines become .Pp), in
## share/man/man1, and rowcast's completions (rowcast --generate-completion-script) in
## share/bash-completion/completions, share/zsh/site-functions and
## share/fish/vendor_completions.d, from the executables in BIN_FROM (the release build).
install-cli-docs:
	$(SWIFT) build --package-path $(ARGUMENT_PARSER_DIR) --scratch-path $(TOOLS_DIR) --product generate-manual
	rm -rf $(MAN_BUILD) && mkdir -p $(MAN_BUILD)
	for tool in rowcast rowcastd; do \
		$(TOOLS_DIR)/debug/generate-manual $(BIN_FROM)/$$tool --date $(MAN_DATE) --output-directory $(MAN_BUILD) || exit 1; \
	done
	install -d $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	for page in rowcast.1 rowcastd.1; do \
		sed -e 's/^$$/.Pp/' $(MAN_BUILD)/$$page > $(DESTDIR)$(MANDIR)/$$page && chmod 0644 $(DESTDIR)$(MANDIR)/$$page || exit 1; \
	done
	$(BIN_FROM)/rowcast --generate-completion-script bash > $(DESTDIR)$(BASHCOMPDIR)/rowcast
	$(BIN_FROM)/rowcast --generate-completion-script zsh > $(DESTDIR)$(ZSHCOMPDIR)/_rowcast
	$(BIN_FROM)/rowcast --generate-completion-script fish > $(DESTDIR)$(FISHCOMPDIR)/rowcast.fish
	chmod 0644 $(DESTDIR)$(BASHCOMPDIR)/rowcast $(DESTDIR)$(ZSHCOMPDIR)/_rowcast $(DESTDIR)$(FISHCOMPDIR)/rowcast.fish

## install-sdk: the plugin SDK, for plugins built outside this repository (docs/PLUGINS.md):
## the SDK package's manifest and sources in share/rowcast/sdk (a plugin's Package.swift
## depends on it by path), the C header in include/rowcast/, and lib/pkgconfig/rowcast-plugin.pc
## (`cc $$(pkg-config --cflags rowcast-plugin)`; `pkg-config --variable=sdkdir rowcast-plugin`).
## Nothing is built.
install-sdk:
	rm -rf $(DESTDIR)$(SDKDIR)
	install -d $(DESTDIR)$(SDKDIR) $(DESTDIR)$(INCLUDEDIR)/rowcast $(DESTDIR)$(PKGCONFIGDIR)
	cp -R SDK/Package.swift SDK/Sources $(DESTDIR)$(SDKDIR)/
	chmod -R u=rwX,go=rX $(DESTDIR)$(SDKDIR)
	install -m 0644 SDK/Sources/CRowCastPlugin/include/rowcast_plugin.h $(DESTDIR)$(INCLUDEDIR)/rowcast/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(ROWCAST_VERSION)|' -e 's|@ABI_VERSION@|$(ABI_VERSION)|' \
	    SDK/rowcast-plugin.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/rowcast-plugin.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/rowcast-plugin.pc

## uninstall-sdk: removes what install-sdk put in place.
uninstall-sdk:
	rm -rf $(DESTDIR)$(SDKDIR)
	rm -f $(DESTDIR)$(INCLUDEDIR)/rowcast/rowcast_plugin.h $(DESTDIR)$(PKGCONFIGDIR)/rowcast-plugin.pc
	-rmdir $(DESTDIR)$(INCLUDEDIR)/rowcast $(DESTDIR)$(PREFIX)/share/rowcast 2>/dev/null

## uninstall-cli-docs: removes what install-cli-docs put in place.
uninstall-cli-docs:
	rm -f $(DESTDIR)$(MANDIR)/rowcast.1 $(DESTDIR)$(MANDIR)/rowcastd.1
	rm -f $(DESTDIR)$(BASHCOMPDIR)/rowcast $(DESTDIR)$(ZSHCOMPDIR)/_rowcast $(DESTDIR)$(FISHCOMPDIR)/rowcast.fish

## uninstall: removes what install put in place, except the configuration in /etc/rowcast.
uninstall: uninstall-cli-docs uninstall-sdk
	rm -f $(DESTDIR)$(BINDIR)/rowcastd $(DESTDIR)$(BINDIR)/rowcast $(DESTDIR)$(BINDIR)/rowcast-plugin-host
	rm -f $(DESTDIR)$(PLUGINDIR)/librowcast-product.so $(DESTDIR)$(PLUGINDIR)/librowcast-advertising.so
	rm -f $(DESTDIR)$(UNITDIR)/rowcastd.service $(DESTDIR)$(SYSUSERSDIR)/rowcast.conf
	rm -rf $(DESTDIR)$(DOCDIR)

clean:
	$(SWIFT) package clean
	rm -rf .build-asan .build-tsan .build-fuzz $(TOOLS_DIR) $(MAN_BUILD)
