#!/usr/bin/env bash
# Runs make test's suite (scripts/test.sh) with two CPU-burning processes beside it,
# as on a shared, loaded 2-core machine, PASSES times in a row (default 3), and
# stops at the first red pass; each pass ends with the failed tests by name.
#
#   make stress-test PASSES=5
set -uo pipefail
cd "$(dirname "$0")/.."
passes=${PASSES:-3}
burners=${BURNERS:-2}
[[ $passes =~ ^[1-9][0-9]*$ ]] || { echo "stress-test.sh: PASSES must be a positive count, got '$passes'" >&2; exit 2; }
[[ $burners =~ ^[0-9]+$ ]] || { echo "stress-test.sh: BURNERS must be a count, got '$burners'" >&2; exit 2; }

pids=()
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
for ((i = 0; i < burners; i++)); do
	(while :; do :; done) &
	pids+=($!)
done

for ((p = 1; p <= passes; p++)); do
	echo "=== stress pass $p of $passes (load: $burners busy processes beside the suite)"
	if ! bash scripts/test.sh; then
		echo "stress-test: pass $p failed"
		exit 1
	fi
done
echo "stress-test: $passes passes green under load"
