# floe: two commands do all set-up on a fresh machine.
#   make demo   builds floe and runs the demo (no configuration needed)
#   make test   installs the test peers and runs every test
# Everything else here is for developers.

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE     ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS  := -s -w -X main.version=$(VERSION) -X main.revision=$(COMMIT) -X main.buildDate=$(DATE)
BIN      := bin/floe

.DEFAULT_GOAL := help

.PHONY: help
help: ## show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## build bin/floe
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/floe

.PHONY: image
image: build ## OCI image of bin/floe in bin/floe-image (no container engine; IMAGE_TAR=file also writes a docker-loadable tarball)
	cd tools/deploy && $(GO) run ./cmd/floe-image -binary ../../$(BIN) -passwd ../../deploy/image/passwd \
		-group ../../deploy/image/group -version $(VERSION) -revision $(COMMIT) -created $(DATE) \
		-out ../../bin/floe-image $(if $(IMAGE_TAR),-tar $(abspath $(IMAGE_TAR)) -tag floe:$(VERSION))

.PHONY: chart-check
chart-check: ## render the Helm chart (deploy/helm/floe) with several value sets and check every object
	cd tools/deploy && $(GO) test -count=1 ./chart/

.PHONY: demo
demo: build ## run the demo: sample Iceberg table → Pinot segments, status page on 127.0.0.1:8080 (ADDR=host:port to change)
	./$(BIN) demo $(if $(ADDR),-addr $(ADDR))

.PHONY: test
test: ## install test peers (redis, Pinot harness, Python venv, Iceberg REST) and run every test
	bash scripts/test.sh

.PHONY: test-unit
test-unit: ## fast offline tests only
	$(GO) test ./...

.PHONY: test-race
test-race: ## offline tests with the race detector
	$(GO) test -race ./...

.PHONY: peers
peers: ## install every test peer (idempotent)
	bash scripts/setup-all.sh

.PHONY: lint
lint: ## go vet, gofmt, staticcheck and floe's own lint rules
	bash scripts/lint.sh

.PHONY: bench-segments
bench-segments: build ## segment conversion benchmark vs Pinot (writes docs/benchmarks.md)
	bash scripts/bench-segments.sh

.PHONY: bench-store
bench-store: ## checkpoint store benchmark: memory, Bolt, real Redis (writes docs/benchmarks.md)
	bash scripts/bench-store.sh

.PHONY: bench-drain
bench-drain: ## takeover after SIGTERM vs SIGKILL, two real replicas on Redis (writes docs/benchmarks.md)
	bash scripts/setup-redis.sh
	E2E_DRAIN_REPORT=$(CURDIR)/docs/benchmarks.md $(GO) test -tags integration -count=1 -run TestDrain_SIGTERMHandsTheTableOver -v ./internal/e2e/

.PHONY: bench-control
bench-control: ## control-plane propagation between two real replicas on Redis (writes docs/benchmarks.md)
	bash scripts/bench-control.sh

.PHONY: bench-plan
bench-plan: ## one-file sync (planner, whole run, cold floe sync process, warm run) on 10 / 1,000 / 10,000 / 100,000-file tables (writes docs/benchmarks.md)
	bash scripts/bench-plan.sh

.PHONY: bench-compact
bench-compact: ## compaction of 10 / 10,000-file tables into a hundredth: the remap as a cold floe sync and a warm run vs a one-file sync (writes docs/benchmarks.md)
	bash scripts/bench-plan.sh -compact-only -files 10,10000 -runs 5

.PHONY: bench-eqdelete
bench-eqdelete: ## CDC upserts: equality deletes on a 1,000-file table, key bounds vs every older file rebuilt; scattered keys, key index vs bounds alone; CPU per commit at 1,000 and 10,000 files; CPU per commit as delete files accumulate (writes docs/benchmarks.md)
	bash scripts/bench-eqdelete.sh

.PHONY: bench-deletes
bench-deletes: ## a sync of a 2M-row data file with a deletion vector: floe applying it vs iceberg-go's scan (writes docs/benchmarks.md)
	go build -o .cache/bench/segbench ./tools/bench/segments
	.cache/bench/segbench deletes -dir .cache/bench -report docs/benchmarks.md

.PHONY: bench-plan-manifests-redis
bench-plan-manifests-redis: ## the one-file syncs of bench-plan-manifests with the checkpoints in a real redis-server (writes docs/benchmarks.md)
	bash scripts/bench-plan-redis.sh -runs 5

.PHONY: bench-plan-manifests
bench-plan-manifests: ## one-file sync (cold floe sync process, warm run) on 10 / 1,000 / 10,000 / 100,000-file tables written one manifest per file, never merged (writes docs/benchmarks.md)
	bash scripts/bench-plan.sh -manifest-per-file -runs 5
	bash scripts/bench-eqdelete.sh -scattered
	bash scripts/bench-eqdelete.sh -grow 1000,10000 -rows 200 -sink memory
	bash scripts/bench-eqdelete.sh -accumulate 10 -files 200 -rows 2000 -deletes 5000 -sink memory

.PHONY: bench-merge
bench-merge: ## small files, one per snapshot: segments served and CPU with merges off and on (writes docs/benchmarks.md)
	bash scripts/bench-merge.sh

.PHONY: bench-runs
bench-runs: ## large tables: backfill disk peak, 1 vs 3 replicas (writes docs/benchmarks.md)
	bash scripts/bench-runs.sh

.PHONY: bench-overwrite
bench-overwrite: ## overwrite of a 200-file table: work directory peak while the replacement streams (writes docs/benchmarks.md)
	mkdir -p .cache/bench
	go build -o .cache/bench/runbench ./tools/bench/runs
	.cache/bench/runbench -only overwrite -files 200 -rows 50000 -dir .cache/bench/runs-overwrite -report docs/benchmarks.md

.PHONY: bench-swap
bench-swap: ## atomic swaps under query load on a real Pinot cluster (writes docs/benchmarks.md)
	bash scripts/bench-swap.sh

.PHONY: bench-freshness
bench-freshness: ## commit → queryable on a real floe serve, Redis and Pinot cluster, ~4 min (writes docs/benchmarks.md)
	bash scripts/bench-freshness.sh

.PHONY: bench-tables
bench-tables: ## table overview API at 1,000 tables on real Redis: page, summary, before/after (writes docs/benchmarks.md)
	bash scripts/bench-tables.sh

.PHONY: bench-metrics
bench-metrics: ## GET /metrics with 1,000 tables on Redis (writes docs/benchmarks.md)
	bash scripts/bench-metrics.sh

.PHONY: bench
bench: bench-segments bench-deletes bench-store bench-control bench-plan bench-plan-manifests bench-plan-manifests-redis bench-eqdelete bench-runs bench-overwrite bench-swap bench-freshness bench-tables bench-metrics ## every benchmark

.PHONY: docker
docker: ## build the container image
	docker build -t floe:$(VERSION) .

.PHONY: clean
clean: ## remove build output and demo data
	rm -rf bin floe-data
