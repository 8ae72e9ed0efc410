# zkcurator: every target installs what it needs first (scripts/install-zookeeper.sh).
GO ?= go
SEED ?= 1
SECS ?= 300

.PHONY: deps vet test demo bench interop chaos

deps:
	@bash scripts/install-zookeeper.sh

vet:
	$(GO) vet ./...

# The README's test command; CI runs it through .ci/run. The fault campaign runs
# without the race detector: its constant reconnects with watches set trip a known
# data race inside go-zookeeper v1.0.4 itself (Conn.lastZxid, written by recvLoop
# while sendSetWatches reads it; go-zookeeper/zk PR #35), which would fail the run
# for a bug that is not ours. Every other package runs with -race.
test: deps vet
	$(GO) test -race -count=1 -timeout 25m $$($(GO) list ./... | grep -v /testing/campaign)
	$(GO) test -count=1 -timeout 10m ./testing/campaign/...

# The newcomer's first command: a tour of the recipes against an embedded ZooKeeper
# (or the ensemble named by ZK_CONNECT).
demo: deps
	$(GO) run ./examples/tour

# zkcurator against go-zookeeper's own lock, one embedded server, one run: a Markdown table.
bench: deps
	@bash scripts/bench.sh

# Only the suite that drives real Apache Curator beside zkcurator.
interop: deps
	$(GO) test -race -count=1 -v ./testing/interop/...

# A longer seeded fault campaign: make chaos SEED=7 SECS=600
chaos: deps
	CAMPAIGN_SEED=$(SEED) CAMPAIGN_SECS=$(SECS) $(GO) test -count=1 -timeout 0 -v -run 'TestCampaign' ./testing/campaign/...
