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

BINDIR       := $(PREFIX)/bin
PLUGINDIR    := $(PREFIX)/lib/rowcast/plugins
UNITDIR      ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR  ?= $(PREFIX)/lib/sysusers.d
DOCDIR       := $(PREFIX)/share/doc/rowcast
SYSCONFDIR   ?= /etc
CONFIGDIR    := $(SYSCONFDIR)/rowcast

.PHONY: all deps build test test-swift test-python run bench clean help install uninstall

all: build

help:
	@echo "make run    build and start rowcastd on its embedded defaults (Ctrl-C stops it)"
	@echo "make test   install what is missing, build, and run every test"
	@echo "make build  install what is missing and build (debug)"
	@echo "make bench  build in release mode and run the benchmarks"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=]  release build, then install the binaries,"
	@echo "             plugins, /etc/rowcast/rowcastd.yaml (kept if present) and the systemd unit"

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

## install: a release build, installed under $(DESTDIR)$(PREFIX): rowcastd, rowcast and
## rowcast-plugin-host (which rowcastd starts, one per plugin file) in bin/,
## the plugins in lib/rowcast/plugins/ (where rowcastd looks, next to its executable), the
## default configuration in /etc/rowcast/ (an existing one is kept; the new one goes next to it
## as rowcastd.yaml.default) with ipc:// endpoints in /run/rowcast for the group rowcast
## (Config/rowcastd.service.yaml appended to Config/rowcastd.yaml), the user and group rowcast
## (sysusers.d; created now when installing to this system), the unit in lib/systemd/system/
## with this PREFIX's paths, and the docs. Then: systemctl daemon-reload && systemctl enable --now rowcastd
install: deps
	$(SWIFT) build -c release --product rowcastd
	$(SWIFT) build -c release --product rowcast
	$(SWIFT) build -c release --product rowcast-plugin-host
	$(SWIFT) build -c release --product rowcast-product
	$(SWIFT) build -c release --product rowcast-advertising
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(CONFIGDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSUSERSDIR)
	install -m 0755 $(RELEASE_DIR)/rowcastd $(RELEASE_DIR)/rowcast $(RELEASE_DIR)/rowcast-plugin-host $(DESTDIR)$(BINDIR)/
	install -m 0644 $(RELEASE_DIR)/librowcast-product.so $(RELEASE_DIR)/librowcast-advertising.so $(DESTDIR)$(PLUGINDIR)/
	cat Config/rowcastd.yaml Config/rowcastd.service.yaml > $(RELEASE_DIR)/rowcastd.installed.yaml
	if [ -e $(DESTDIR)$(CONFIGDIR)/rowcastd.yaml ]; then \
		install -m 0644 $(RELEASE_DIR)/rowcastd.installed.yaml $(DESTDIR)$(CONFIGDIR)/rowcastd.yaml.default; \
		echo "kept $(DESTDIR)$(CONFIGDIR)/rowcastd.yaml; the new default is rowcastd.yaml.default"; \
	else \
		install -m 0644 $(RELEASE_DIR)/rowcastd.installed.yaml $(DESTDIR)$(CONFIGDIR)/rowcastd.yaml; \
	fi
	install -m 0644 systemd/rowcast.sysusers $(DESTDIR)$(SYSUSERSDIR)/rowcast.conf
	if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then systemd-sysusers $(SYSUSERSDIR)/rowcast.conf; fi
	sed -e 's|/usr/local/bin/rowcastd|$(BINDIR)/rowcastd|g' \
	    -e 's|/etc/rowcast/rowcastd.yaml|$(CONFIGDIR)/rowcastd.yaml|g' \
	    -e 's|/usr/local/share/doc/rowcast|$(DOCDIR)|g' \
	    systemd/rowcastd.service > $(DESTDIR)$(UNITDIR)/rowcastd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/rowcastd.service
	install -m 0644 README.md docs/OPERATIONS.md docs/PROTOCOL.md docs/PLUGINS.md $(DESTDIR)$(DOCDIR)/
	@echo "installed under $(DESTDIR)$(PREFIX); now: systemctl daemon-reload && systemctl enable --now rowcastd"

## uninstall: removes what install put in place, except the configuration in /etc/rowcast.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/rowcastd $(DESTDIR)$(BINDIR)/rowcast $(DESTDIR)$(BINDIR)/rowcast-plugin-host
	rm -f $(DESTDIR)$(PLUGINDIR)/librowcast-product.so $(DESTDIR)$(PLUGINDIR)/librowcast-advertising.so
	rm -f $(DESTDIR)$(UNITDIR)/rowcastd.service $(DESTDIR)$(SYSUSERSDIR)/rowcast.conf
	rm -rf $(DESTDIR)$(DOCDIR)

clean:
	$(SWIFT) package clean
