#!/usr/bin/env bash
# The test suite on a loaded machine, and in shuffled order: starts HOGS
# CPU hogs (busy shell loops, killed on exit, Ctrl-C or TERM), runs
# `go test -race -count=1 PKG` RUNS times in a row (-count=1: each run
# tests again, none is go test's cached result), then once more with
# -shuffle=on, and goes on after a failing run. Each run is verbose (-v),
# so the shuffle seed every package prints (-test.shuffle N) is in its log
# and in the summary; rerun one package in the same order with
# `go test -race -shuffle=N <package>`. Prints per run: pass or fail, its
# duration, the failing packages and tests (with their seeds in the
# shuffled run); the logs stay in a directory under /tmp. Exits 1 if any
# run failed, 2 on a usage error. Builds nothing into the repository.
#
#   scripts/load-and-shuffle.sh                         # 5 runs + 1 shuffled, 2 hogs, ./...
#   scripts/load-and-shuffle.sh -n 2 -hogs 4 -pkg ./selectors/...
#
# A run of the whole suite takes minutes on a small machine; -n 0 runs
# only the shuffled one. The whole script is read before it starts (main
# is called on the last line), so the tree may change during the runs:
# each run tests the tree as it is when the run starts.
set -euo pipefail

usage() {
	echo "usage: scripts/load-and-shuffle.sh [-n runs] [-hogs count] [-pkg pattern]" >&2
	exit 2
}

pids=() # the hogs, and the running go test as its process group (-pgid)

cleanup() {
	for p in "${pids[@]}"; do
		kill -- "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}

# report reads one run's log: "fail" prints each failing package (with its
# shuffle seed when it has one) and its failing tests, "seeds" the seed of
# every package.
report() {
	awk -v what="$1" '
	/^-test\.shuffle [0-9]+$/ { seed = $2; next }
	/^panic: test timed out/ { timedout = 1; next }
	timedout && /^\t\t[A-Za-z]/ { sub(/^\t\t/, ""); sub(/ \(.*$/, ""); failed[n++] = $0 " (timed out)"; next }
	/^ *--- FAIL: / { sub(/^ *--- FAIL: /, ""); sub(/ \(.*$/, ""); failed[n++] = $0; next }
	/^(ok|FAIL|\?) *\t/ {
		if (what == "seeds" && seed != "") printf "%s %s\n", seed, $2
		if (what == "fail" && $1 == "FAIL") {
			printf "  FAIL %s%s%s\n", $2, (seed == "" ? "" : " -shuffle=" seed), (n ? "" : " (no failing test named: see the log)")
			for (i = 0; i < n; i++) printf "    %s\n", failed[i]
		}
		n = 0; seed = ""; timedout = 0
	}' "$2"
}

main() {
	cd "$(dirname "$0")/.."
	local runs=5 hogs=2 pkg=./...
	while [ $# -gt 0 ]; do
		case $1 in
		-n | -hogs | -pkg) [ $# -ge 2 ] || usage ;;&
		-n) runs=$2 ;;
		-hogs) hogs=$2 ;;
		-pkg) pkg=$2 ;;
		*) echo "load-and-shuffle.sh: unknown argument $1" >&2; usage ;;
		esac
		shift 2
	done
	for v in "$runs" "$hogs"; do
		[[ $v =~ ^[0-9]+$ ]] || { echo "load-and-shuffle.sh: -n and -hogs take a count, not \"$v\"" >&2; usage; }
	done

	local logs
	logs=$(mktemp -d /tmp/load-and-shuffle.XXXXXX)
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	for _ in $(seq 1 "$hogs"); do
		sh -c 'while :; do :; done' &
		pids+=("$!")
	done
	echo "$hogs CPU hogs; logs in $logs"

	local failures=0 summary=() i args name log start status secs verdict line
	for i in $(seq 1 $((runs + 1))); do
		args=(-race -timeout 20m -count=1 -v)
		name="run $i/$((runs + 1))"
		if [ "$i" -gt "$runs" ]; then
			args+=(-shuffle=on)
			name+=" (-shuffle=on)"
		fi
		log=$logs/run$i.log
		echo "== $name: go test ${args[*]} $pkg ($(date -u +%T) UTC)"
		start=$(date +%s)
		setsid -w go test "${args[@]}" "$pkg" >"$log" 2>&1 &
		pids+=("-$!")
		status=0
		wait "$!" || status=$?
		unset 'pids[-1]'
		secs=$(($(date +%s) - start))
		verdict=pass
		if [ "$status" != 0 ]; then
			verdict="FAIL (exit $status)"
			failures=$((failures + 1))
		fi
		line="$name: $verdict in ${secs}s, log $log"
		echo "$line"
		summary+=("$line")
		report fail "$log"
		if [ "$i" -gt "$runs" ]; then
			report seeds "$log" >"$logs/seeds.txt"
			echo "  shuffle seed of each package: $logs/seeds.txt"
		fi
	done

	echo "== summary ($failures of $((runs + 1)) runs failed)"
	printf '%s\n' "${summary[@]}"
	[ "$failures" = 0 ]
}

main "$@"
