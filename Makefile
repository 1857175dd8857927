# hcp-rego: `make help` lists the targets.
SHELL    := bash
GO       ?= go
BIN      := bin/hcp-rego
PACKS    := testdata/packs
GRANTS   := --grants testdata/grants/acme.json --grants testdata/grants/defaults.json
FUZZTIME ?= 20s
# The harnesses' own npm packages (Gemini CLI core, Codex), pinned, that the
# export tests load exported files with.
HARNESS  := internal/export/testdata/_harness
NPM      ?= npm
# What build and release stamp into hcp-rego (hcp-rego version): the tag or
# commit git describes and the full commit; "dev" and "unknown" outside a
# git clone (a source archive). SOURCE_DATE_EPOCH, the commit's time, dates
# the release image, so a release of one commit is the same bytes each time.
ifndef VERSION
VERSION := $(or $(shell git describe --tags --always --dirty 2>/dev/null),dev)
endif
ifndef COMMIT
COMMIT  := $(or $(shell git rev-parse HEAD 2>/dev/null),unknown)
endif
SOURCE_DATE_EPOCH ?= $(or $(shell git log -1 --format=%ct 2>/dev/null),0)
export SOURCE_DATE_EPOCH
LDFLAGS  := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
# The release tool is its own module (tools/release/go.mod), as the test
# registry is, so that go-containerregistry stays out of go.mod.
RELEASE  := $(GO) -C tools/release

.PHONY: help build release test gotest demo lint fuzz bench clean harness

help: ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

build: ## build bin/hcp-rego
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/hcp-rego

release: ## cross-build dist/: binaries, SHA256SUMS, OCI image layout; IMAGE=host/repo:tag pushes the image (PLAIN_HTTP=1: no TLS)
	GO='$(GO)' $(RELEASE) run . -repo '$(CURDIR)' -dist '$(CURDIR)/dist' -version '$(VERSION)' -commit '$(COMMIT)' \
	  $(if $(IMAGE),-image '$(IMAGE)') $(if $(PLAIN_HTTP),-plain-http)

# Without npm (or node), make test runs everything else and says, at the
# start and at the end, which tests it could not run.
NO_HARNESS = note: npm or node is not on PATH, so the harness tests (internal/export: TestGeminiLoadsExports and TestCodexLoadsExports, which load exported files with Gemini CLI's and Codex's own code) did not run; install Node.js 22 or later with npm to run them

test: lint harness ## everything CI runs: vet, staticcheck, unit, testscript, integration, dogfood, harnesses
	@$(MAKE) --no-print-directory gotest
	$(RELEASE) test -count=1 ./...
	$(GO) run ./cmd/hcp-rego test --coverage testdata/
	@command -v $(NPM) >/dev/null 2>&1 && command -v node >/dev/null 2>&1 || echo "$(NO_HARNESS)"

# go test runs under gotestsum (a tool line in go.mod): a line a package as
# each ends, then every failed test with its output, then the counts; its
# exit status is go test's. Skipped tests are counted, not listed, so that
# the failures end the output. PKGS picks the packages.
PKGS ?= ./...
gotest: ## the Go tests alone (PKGS=./... unless given), as make test runs them
	$(GO) tool gotestsum --format pkgname --format-icons text --hide-summary skipped \
	  --raw-command -- $(GO) test -json -count=1 $(PKGS)

demo: build ## run the main job on the example packs
	@echo '$$ hcp-rego lint $(PACKS) $(GRANTS)'
	@$(BIN) lint $(PACKS) $(GRANTS)
	@mkdir -p dist
	@echo '$$ hcp-rego build $(PACKS) $(GRANTS) -o dist/hcp.tar.gz'
	@$(BIN) build $(PACKS) $(GRANTS) -o dist/hcp.tar.gz
	@for input in allowed confirm denied; do \
	  echo "\$$ hcp-rego eval $(PACKS) $(GRANTS) --input testdata/inputs/$$input.json --format pretty"; \
	  $(BIN) eval $(PACKS) $(GRANTS) --input testdata/inputs/$$input.json --format pretty; echo; \
	done
	@echo '$$ hcp-rego matrix $(PACKS) $(GRANTS)'
	@$(BIN) matrix $(PACKS) $(GRANTS)

harness: ## install the pinned harness packages (npm ci) when missing or older than the lock; without npm, say so and go on
	@if command -v $(NPM) >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory $(HARNESS)/node_modules/.package-lock.json; \
	else echo "$(NO_HARNESS)" | sed 's/did not run/will not run/'; fi

$(HARNESS)/node_modules/.package-lock.json: $(HARNESS)/package.json $(HARNESS)/package-lock.json
	cd $(HARNESS) && $(NPM) ci --ignore-scripts --no-audit --no-fund

lint: ## gofmt, go vet and staticcheck (pinned by a tool line in go.mod)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(RELEASE) vet ./...
	sc=$$($(GO) tool -n staticcheck) && cd tools/release && "$$sc" ./...

# Every fuzz target of the module, for FUZZTIME of fuzzing each and at most
# FUZZMINIMIZETIME to minimize each new corpus entry (Go otherwise allows
# a minute each, so a short run would mostly minimize). A failing input is
# kept under its package's testdata/fuzz/<target>/, where go test (and so
# make test) replays it from then on.
FUZZMINIMIZETIME ?= 5s
fuzz: ## run each fuzz target for FUZZTIME
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$target ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) $$pkg; \
	  done; \
	done

bench: ## measure decisions, builds, activation and rollouts at scale; print the tables
	$(GO) run ./internal/bench/report

clean: ## remove build outputs
	rm -rf bin dist
