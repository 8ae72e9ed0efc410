# zkcurator: every target installs what it needs first (scripts/install-zookeeper.sh).
GO ?= go
SEED ?= 1
SECS ?= 300

.PHONY: deps test-deps vet test stress-test demo bench interop chaos

# ZooKeeper and Java: what the demo, the benchmarks and the campaign need.
deps:
	@bash scripts/install-zookeeper.sh

# Also a JDK, Apache Curator (with curator-x-discovery) and Kazoo, for the tests
# that drive them beside zkcurator.
test-deps:
	@bash scripts/install-zookeeper.sh --test

# Modules of their own, each vetted and tested in its directory: the metrics
# adapters (so the core keeps its dependencies) and the harnesses that only
# tests use (the interop suite, which drives real Curator and Kazoo, the
# benchmarks against Curator, and the fault campaign).
MODULES := metrics/prometheus metrics/otel testing/interop testing/recipebench testing/campaign

vet:
	$(GO) vet ./...
	for m in $(MODULES) scripts/testreport; do (cd $$m && $(GO) vet ./...) || exit 1; done

# The README's test command; CI runs it through .ci/run. Every package runs
# with the race detector, the fault campaign too: the framework orders
# go-zookeeper v1.0.4's read of Conn.lastZxid for SetWatches before any reply
# that records a zxid on a reconnected connection, which closes that
# library's own data race (framework/rewatch.go,
# TestRequestsQueuedAcrossReconnectsDoNotRaceTheWatchReset).
test: test-deps vet
	GO=$(GO) MODULES="$(MODULES)" bash scripts/test.sh

# make test's suite beside two CPU-burning processes, PASSES times in a row (default 3):
# finds the tests whose outcome depends on how fast the machine is. make stress-test PASSES=5
stress-test: test-deps vet
	GO=$(GO) MODULES="$(MODULES)" bash scripts/stress-test.sh

# The newcomer's first command: a tour of the recipes against an embedded ZooKeeper
# (or the ensemble named by ZK_CONNECT).
demo: deps
	$(GO) run ./examples/tour

# zkcurator against go-zookeeper's own lock, then its other recipes against Apache
# Curator 5.4 (testing/recipebench, which needs the test dependencies' JDK and
# Curator), one embedded server, one run: Markdown tables.
bench: test-deps
	@bash scripts/bench.sh

# Only the suites that drive real Apache Curator and Python Kazoo beside zkcurator.
interop: test-deps
	cd testing/interop && $(GO) test -race -count=1 -v ./...

# A longer seeded fault campaign: make chaos SEED=7 SECS=600
chaos: deps
	cd testing/campaign && CAMPAIGN_SEED=$(SEED) CAMPAIGN_SECS=$(SECS) $(GO) test -count=1 -timeout 0 -v -run 'TestCampaign' ./...
