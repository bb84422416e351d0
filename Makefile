# fairbench — `make run` builds and runs the default scenario; `make test` runs
# every test. Both install what a fresh Debian/Ubuntu machine with Go lacks.

GO       ?= go
BIN      := bin/fairbench
OUT      ?= out/default
# COIN-OR CLP/CBC for the LP/MIP backends (cgo), pkg-config to find them.
APT_RUN  := pkg-config coinor-libclp-dev coinor-libcbc-dev
# The tests also train real PyTorch models on the CPU (calibration), open
# the HTML report in a real browser and read the figures' PDFs back
# (pdftotext, poppler-utils).
APT_TEST := $(APT_RUN) python3-torch python3-torchvision chromium poppler-utils

# deploy's tests run a grid as a real job array on a single-node Slurm that
# they start themselves (Debian's slurm-wlm and munge).
APT_TEST += slurm-wlm munge

.PHONY: all deps test-deps apt build run test bench vet gate gate-full clean property-matrix

all: build

# deps installs the Debian packages that are missing (as root, or with sudo).
deps:
	@$(MAKE) --no-print-directory apt PKGS="$(APT_RUN)"

test-deps:
	@$(MAKE) --no-print-directory apt PKGS="$(APT_TEST)"

apt:
	@missing=""; \
	for p in $(PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing$$missing"; \
		sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# The commit goes into the binary (fairbench version, every run record)
# even where the Go toolchain records none (GOFLAGS=-buildvcs=false, a git
# worktree).
COMMIT   := $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS  := -X fairbench/internal/version.commit=$(COMMIT) \
            -X fairbench/internal/version.commitTime=$(shell git show -s --format=%cI HEAD 2>/dev/null) \
            -X fairbench/internal/version.modified=$(shell test -z "$$(git status --porcelain --untracked-files=no 2>/dev/null)" && echo false || echo true)

build: deps
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/fairbench

# run simulates the built-in default scenario (500 jobs) under every
# registered policy (RUN_SKIP=a,b leaves some out; the longest are
# gavel-strategy-proof, about 3 min of CPU, and nash-pa, 1.5 min: their
# leave-one-out markets), prints the comparison table and leaves the
# results in $(OUT); runs already complete there are reused.
RUN_SKIP ?=
run: build
	./$(BIN) simulate --out $(OUT) $(if $(RUN_SKIP),--skip $(RUN_SKIP))

vet: deps
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# gate is the CI fairness gate (deploy/ci runs it on pull requests): the
# property matrix against the checked-in baseline, failing only when a
# claim's verdict changes (docs/checker.md, "The gate"). After an intended
# change: ./bin/fairbench check --matrix --write-baseline check/baseline.json
GATE_OUT := out/gate
# The property matrix of README.md and docs/property-matrix.md: the checker's
# verdicts (exit 1 = a claim violated, expected) joined with every policy's
# run on the default scenario.
# PM_SCENARIO: the scenario of the efficiency columns; empty (the default)
# for the built-in default scenario (500 jobs: every policy in about 7 min of
# CPU, the checker's matrix about 15 min more), or a scenario file such as
# runs/testdata/golden/hetero.yaml.
PM_OUT ?= out/property-matrix
PM_SCENARIO ?=
property-matrix: build
	./$(BIN) check --matrix --out $(PM_OUT) --quiet || test $$? -eq 1
	./$(BIN) simulate $(PM_SCENARIO) --out $(PM_OUT)/runs
	./$(BIN) report $(PM_OUT)/runs --matrix $(PM_OUT)/check-matrix.json --out $(PM_OUT)/report --matrix-doc docs --readme README.md

# gavel-strategy-proof, whose starvation-bound probe (one leave-one-out
# market per job in every round of horizons up to 512) costs about 20 min,
# is left out of the gate that make test runs; make gate-full checks every
# policy (a nightly job's gate). The gate takes about 1 min 45 s of wall
# time on two idle cores (nash-pa, ceei and themis about 75 s of it).
GATE_SKIP ?= gavel-strategy-proof
gate: build
	./$(BIN) check --matrix --baseline check/baseline.json --skip $(GATE_SKIP) --out $(GATE_OUT) --junit $(GATE_OUT)/check-gate.xml --quiet

gate-full: build
	./$(BIN) check --matrix --baseline check/baseline.json --out $(GATE_OUT) --junit $(GATE_OUT)/check-gate.xml --quiet

# FAIRBENCH_REQUIRE_TORCH makes the calibration tests fail, not skip, when
# PyTorch is missing.
test: test-deps vet
	FAIRBENCH_REQUIRE_TORCH=1 $(GO) test ./...
	$(GO) test -race ./solvers/lp/ ./sim/
	CGO_ENABLED=0 $(GO) test ./solvers/lp/ ./models/ ./sim/ ./calibrate/ ./fairness/
	$(MAKE) --no-print-directory gate

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./microbench/

clean:
	rm -rf bin out
