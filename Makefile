# mcp-bridge — see README.md. Every target works on a fresh clone.
GO       ?= go
BIN      := bin/mcp-bridge
# The version is the source's (cmd/mcp-bridge/version.go); VERSION=x.y.z
# stamps another. The commit and its date are stamped from git.
COMMIT   := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
DATE     := $(shell git log -1 --format=%cI 2>/dev/null)
LDFLAGS  := -s -w -X main.commit=$(COMMIT) -X main.date=$(DATE)$(if $(VERSION), -X main.version=$(VERSION))
FUZZTIME ?= 10s

.PHONY: build test unit e2e test-clients lint fuzz fuzz-long demo bench clean cross archive dist test-dist test-windows cross-vet help

# help: every target, one line each; [apt] marks those that install system
# packages with apt-get when missing (as root or with sudo), [npm] those
# that install pinned Node.js packages into the repository (npm ci).
help:
	@echo 'mcp-bridge: make <target>'
	@echo '  build             bin/mcp-bridge for this machine'
	@echo '  archive           this machine'"'"'s release archive, in bin/ (ARCHIVE_OS=windows ARCHIVE_ARCH=amd64 for another)'
	@echo '  demo              the bridge at work on a simulated CAD base'
	@echo '  test              everything a change must pass: lint, unit, fuzz, e2e  [npm]'
	@echo '  unit              go test -race ./...'
	@echo '  lint              gofmt, go vet, actionlint'
	@echo '  fuzz              every fuzz target for FUZZTIME (10s); fuzz-long: 10 minutes each'
	@echo '  e2e               real MCP clients against the built bridge, and the first hour from the archive  [npm]'
	@echo '  test-clients      the clients'"'"' own programs (Claude Code, Gemini CLI, Codex, Copilot CLI, OpenCode, CodeBuddy; ~1.6 GB)  [npm]'
	@echo '  test-conformance  the official MCP conformance suite against --listen, both eras (with its own Node.js 22)  [npm]'
	@echo '  test-desktop      the desktop confirmation dialog on Xvfb  [apt: xvfb zenity yad xdotool imagemagick]'
	@echo '  test-proxy        the bridge behind nginx ending TLS  [apt: nginx-light]'
	@echo '  test-telemetry    Prometheus and the status page in Chromium  [apt: prometheus chromium]  [npm]'
	@echo '  test-windows      the Windows build under Wine, its first hour too  [apt: wine wine64 gcc-mingw-w64-x86-64 xvfb xdotool imagemagick]  [npm]'
	@echo '  test-freecad      the bridge against real FreeCAD; demo-freecad, demo-freecad-gui  [apt: freecad-python3, freecad and Xvfb tools]  [npm]'
	@echo '  cross, cross-vet  the release binaries for every platform; go vet for Windows and macOS'
	@echo '  dist              the release in snapshot mode, checked (GoReleaser; a few minutes, ~18 the first time)  [npm; apt: osslsigncode when signing]'
	@echo '  test-dist         make dist signed with a throwaway certificate  [npm; apt: osslsigncode]'
	@echo '  bench             the figures of docs/performance.md'
	@echo '  clean             remove bin/ and dist/'

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/mcp-bridge

# test: everything a change must pass: lint, race-checked unit and
# in-process tests (soak, load, signals included), every fuzz target for
# 20,000 inputs, then the real clients end to end with the built binary.
test: lint unit
	$(MAKE) fuzz FUZZTIME=20000x
	$(MAKE) e2e

unit:
	$(GO) test -race -count=1 ./...

# e2e: real MCP clients (Inspector CLI, TypeScript SDK 1.x and 2.x) and
# `mcp-bridge verify` against the built binary and the simulated base; then
# a new user's first hour from this machine's archive (make archive):
# unpack, install --copy, doctor, the Inspector from the written entry,
# uninstall (verify/clients/firsthour.sh).
e2e: build archive
	verify/clients/run.sh $(BIN)
	verify/clients/firsthour.sh bin/mcp-bridge_$(or $(VERSION),$(SOURCE_VERSION))_$(ARCHIVE_OS)_$(ARCHIVE_ARCH)$(if $(filter windows,$(ARCHIVE_OS)),.zip,.tar.gz)

# test-clients: the clients' own programs (Claude Code, Gemini CLI, Codex,
# Copilot CLI, OpenCode, CodeBuddy, pinned in verify/realclients, about
# 1.6 GB installed on the first run): after `install` their `mcp list`
# shows our server connected (Codex, Copilot: enabled; CodeBuddy, which has
# no list: the first line of a headless session, with the base's tools),
# after `uninstall` it is gone; each also with its URL form (`install
# --url`) of a `--listen` bridge with a token: connected with it, refused
# with a wrong one (Codex: its list shows the URL and the token's
# variable); CodeBuddy also with `install --policy` (a denied tool absent);
# Claude Code also in a session, its model a stand-in on loopback: the
# tools' metadata acted on (docs/limits.md).
# Offline, in fixture homes, with the simulated base. Not part of `make
# test`; .ci/run runs it after.
test-clients: build
	verify/realclients/run.sh $(BIN)

# lint: gofmt, go vet, and actionlint (pinned, built by go run) on
# .github/workflows; shellcheck and pyflakes off there, so that the result
# does not depend on what else the machine has installed.
ACTIONLINT := github.com/rhysd/actionlint/cmd/actionlint@v1.7.12

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go') 2>/dev/null); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(ACTIONLINT) -shellcheck= -pyflakes= .github/workflows/ci.yml .github/workflows/release.yml

# fuzz runs every fuzz target for FUZZTIME (10s by default; an execution
# count such as 20000x works too). See .ci/fuzz.sh.
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) .ci/fuzz.sh

# fuzz-long: FUZZTIME=10m by default; inputs that fail are kept by go test
# under <package>/testdata/fuzz/ and replayed by every `go test` after.
fuzz-long:
	$(MAKE) fuzz FUZZTIME=$(if $(filter command line,$(origin FUZZTIME)),$(FUZZTIME),10m)

demo: build
	$(BIN) demo

# archive: this machine's release archive in seconds, laid out as make
# dist's (one list: cmd/mkdist/archive.go): the binary, LICENSE, the docs
# and the FreeCAD base (freecad/). ARCHIVE_OS/ARCHIVE_ARCH for another
# platform (windows gets a .zip). Prints the archive's path.
SOURCE_VERSION := $(shell .ci/version.sh)
ARCHIVE_OS     ?= $(shell $(GO) env GOOS)
ARCHIVE_ARCH   ?= $(shell $(GO) env GOARCH)
ARCHIVE_EXE    := bin/archive/$(ARCHIVE_OS)_$(ARCHIVE_ARCH)/mcp-bridge$(if $(filter windows,$(ARCHIVE_OS)),.exe)
archive:
	@CGO_ENABLED=0 GOOS=$(ARCHIVE_OS) GOARCH=$(ARCHIVE_ARCH) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(ARCHIVE_EXE) ./cmd/mcp-bridge
	@$(GO) run ./cmd/mkdist archive --binary $(ARCHIVE_EXE) --os $(ARCHIVE_OS) --arch $(ARCHIVE_ARCH) --version $(or $(VERSION),$(SOURCE_VERSION)) --out bin

# cross builds the static release binaries.
cross:
	@for p in windows/amd64 windows/arm64 linux/amd64 linux/arm64 darwin/amd64 darwin/arm64; do \
	  os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  echo "bin/mcp-bridge-$$os-$$arch$$ext"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/mcp-bridge-$$os-$$arch$$ext ./cmd/mcp-bridge; \
	done

# dist: the release in snapshot mode (GoReleaser: archives, checksums,
# Scoop and winget manifests; then .mcpb bundles and server.json), every
# part checked. See .ci/dist.sh. Not part of `make test` (a few minutes).
dist:
	GO=$(GO) .ci/dist.sh

# test-dist: make dist with a throwaway self-signed certificate (openssl),
# so the Windows binaries are signed and their signatures verified; and the
# signing hook without a certificate (says unsigned) or with one it cannot
# use (fails). See .ci/test-dist.sh.
test-dist:
	GO=$(GO) .ci/test-dist.sh

# test-windows: the windows/amd64 build under Wine: every package's unit
# tests; the confirmation message box of mcp-bridge.exe on Xvfb, answered
# each way by a client that cannot ask (screenshots in bin/wine/desktop/);
# then --print-config, doctor, the real clients and verify against
# mcp-bridge.exe in C:\Program Files (see .ci/windows/test.sh; installs
# Wine, MinGW, Xvfb, xdotool and ImageMagick with apt-get when missing).
# Then the other release targets (windows/arm64, macOS) compiled and vetted.
test-windows:
	GO=$(GO) .ci/windows/test.sh
	$(MAKE) cross-vet

cross-vet: cross
	@for p in windows/amd64 windows/arm64 darwin/amd64 darwin/arm64; do \
	  echo "go vet ./... ($$p)"; GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet ./... || exit 1; \
	done

clean:
	rm -rf bin dist

# bench: the bridge against a direct call to the simulated base and against
# the floor relay (built with $(GO)), medians of three rounds (a table), and
# where its idle RSS goes (measured on bin/mcp-bridge-symbols, the same build
# with its symbols); the table and the account are written in
# docs/performance.md between its marks. Then the hot paths with -benchmem
# (telemetry's: a call's cost off, with metrics, with traces; clientfit's:
# issue 40's 4 MB picture fitted for Claude Desktop, a result that fits,
# the scalers). Not part of `make test`.
bench: build
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-X main.commit=$(COMMIT) -X main.date=$(DATE)$(if $(VERSION), -X main.version=$(VERSION))' -o bin/mcp-bridge-symbols ./cmd/mcp-bridge
	$(BIN) bench --go $(GO) --symbols bin/mcp-bridge-symbols --doc docs/performance.md
	$(GO) test -run '^$$' -bench . -benchmem ./rpc ./lifecycle/... ./bridge ./bridge/telemetry ./bridge/clientfit

.PHONY: test-freecad demo-freecad demo-freecad-gui

# test-freecad: the bridge against real FreeCAD, headless (FreeCAD is
# installed with apt-get when missing): verify with the drawing-changing
# checks, the Inspector CLI, the TypeScript SDK client, and geometry read
# back from FreeCAD; --launch: FreeCAD not running, a client's call starts
# it (headless and desktop; the time from the call to its answer is
# printed); then desktop FreeCAD under Xvfb, checked on a screenshot
# (bin/freecad-desktop/). See tcpbase/freecad/README.md.
test-freecad: build
	tcpbase/freecad/run-tests.sh $(BIN)

# demo-freecad: the demo's story against real FreeCAD; the drawing
# (bracket.FCStd) and its picture (bracket.png) end up in bin/freecad-demo/.
demo-freecad: build
	tcpbase/freecad/demo.sh $(BIN) bin/freecad-demo

# demo-freecad-gui: desktop FreeCAD under Xvfb with the macro's base, the
# demo's bracket drawn through the bridge; prints the screenshot's path
# (bin/freecad-desktop/freecad-desktop.png).
demo-freecad-gui: build
	tcpbase/freecad/desktop.sh $(BIN) bin/freecad-desktop

.PHONY: test-conformance
# test-conformance: the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in verify/conformance with the
# Node.js 22 it runs on) against mcp-bridge --listen in front of the
# simulated base's conformance tools, in both eras (2025-11-25, 2026-07-28);
# the checks a tools-only base cannot pass are listed, each with its reason,
# in verify/conformance/expected-failures.yaml. Results in bin/conformance/.
test-conformance: build
	verify/conformance/run.sh $(BIN)

.PHONY: test-proxy
# test-proxy: the bridge behind nginx from the Debian archive (installed
# with apt-get when missing) ending TLS: clients through connect in both
# eras, and answers streamed through its buffering (verify/proxy_test.go).
test-proxy:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
	  echo "test-proxy: installing nginx-light with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends nginx-light; }
	go test -count=1 -run 'TestReverseProxy' -v ./verify

.PHONY: test-telemetry
# test-telemetry: telemetry with the real engines (bridge/telemetry): a
# Prometheus server (Debian's) scrapes --metrics-listen, and a running
# bridge's /metrics on --listen with its token, under load from ten
# clients of both eras, with failing, refused and declined calls and CAD
# going down and back, and its query API gives the counts the clients
# made; the status page in headless Chromium (Debian's; screenshots in
# bin/telemetry/), its text as the browser reads it checked; the OTLP
# receiver decodes with the official protobuf definitions. Installs
# prometheus and chromium with apt-get when missing. See
# .ci/test-telemetry.sh.
test-telemetry:
	GO=$(GO) .ci/test-telemetry.sh

.PHONY: test-desktop
# test-desktop: the bridge's own confirmation dialog (bridge/guard/confirm/desktop)
# shown for real on Xvfb with zenity and yad, and with kdialog where
# installed (Qt and KDE Frameworks, some 100 packages: not installed here);
# found by its title with xdotool, its command line read back,
# answered each way (Run, Return, Escape, close box, timeout, cancelled);
# words and Return typed for another window as it opens (never Run);
# every argument in view, or the scroll bar drawn when they cannot all
# fit (screenshots of each); its display killed while it is open (never
# Run; kdialog after Qt's debug output); and raw markup through each
# program's own escaping; each
# program's answers through this test binary playing it (TestOnlyRunRuns);
# then end to end (verify's TestDesktopConfirm): the built bridge under the
# Go SDK client, which cannot ask, with confirm ["delete_*"]: only Run
# deletes the line, once; every other answer, and the client's cancel,
# sends nothing to the base.
# Installs xvfb, zenity, yad, xdotool and imagemagick with apt-get when missing;
# screenshots in bin/desktop/ (the end-to-end ones e2e-*.png).
test-desktop:
	@need=; for p in Xvfb:xvfb zenity:zenity yad:yad xdotool:xdotool import:imagemagick; do \
	  command -v $${p%%:*} >/dev/null 2>&1 || need="$$need $${p#*:}"; done; \
	  if [ -n "$$need" ]; then echo "test-desktop: installing$$need with apt-get"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$need; fi
	MCP_BRIDGE_DESKTOP_TESTS=1 MCP_BRIDGE_DESKTOP_SHOTS=$(CURDIR)/bin/desktop $(GO) test -count=1 -race -run '^(TestDialogOnX|TestTypedAheadNeverRunsOnX|TestEveryArgumentInViewOnX|TestLostDisplayOnX|TestRawMarkupOnX|TestOnlyRunRuns|TestDesktopConfirm)$$' -v ./bridge/guard/confirm/desktop ./verify
