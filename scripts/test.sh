#!/usr/bin/env bash
# The README's test command (make test): every package of the library and of the
# modules beside it (metrics adapters, test harnesses) with the race detector,
# against real ZooKeeper servers.
# Output reads as go test's, followed by the ten slowest tests (so the 25-minute budget
# stays visible), the failed tests by name, and "tests: N passed, N failed in <the
# run's wall-clock time>", the figure README.md quotes.
#
# Environment (optional): GO (default go), TEST_TIMEOUT (default 25m),
# TEST_ARGS (extra go test flags, e.g. -run), MODULES (the modules beside the library).
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
timeout=${TEST_TIMEOUT:-25m}
read -r -a extra <<<"${TEST_ARGS:-}"

# suite fails when any go test run does, even one that printed no JSON (a module error).
suite() {
	local rc=0
	"$GO" test -race -count=1 -timeout "$timeout" -json "${extra[@]}" ./... || rc=1
	for m in ${MODULES:-metrics/prometheus metrics/otel testing/interop testing/recipebench testing/campaign}; do
		(cd "$m" && "$GO" test -race -count=1 -timeout "$timeout" -json "${extra[@]}" ./...) || rc=1
	done
	(cd scripts/testreport && "$GO" test -count=1 -json "${extra[@]}" ./...) || rc=1
	return $rc
}

report=$(mktemp -d)/testreport
trap 'rm -rf "$(dirname "$report")"' EXIT
(cd scripts/testreport && "$GO" build -o "$report" .) || exit 1
suite 2>&1 | "$report" -slowest 10
