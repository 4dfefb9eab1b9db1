#!/usr/bin/env bash
# The full benchmark matrix (package ./bench): builds the test binary once,
# runs every benchmark COUNT times, one whole pass per round so that
# variants and baselines interleave, appends the raw benchfmt output to
# results/<date>-<host>.txt, and prints the benchstat pivots of this run.
#
#   scripts/bench.sh                  # COUNT=6 BENCHTIME=300ms BENCH=. MATRIX=varied
#   COUNT=10 BENCH=IOChain scripts/bench.sh
#   MATRIX=all scripts/bench.sh       # every workload on every variant
#
# MATRIX=varied runs each workload on the variants that differ in the part
# it exercises (the others at their defaults); all is every variant, about
# four times longer.
set -euo pipefail
cd "$(dirname "$0")/.."

count=${COUNT:-6}
benchtime=${BENCHTIME:-300ms}
filter=${BENCH:-.}
matrix=${MATRIX:-varied}
mkdir -p results
out=results/$(date -u +%Y-%m-%d)-$(hostname).txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go test -c -pgo=off -o "$tmp/bench.test" ./bench
# benchstat at the version go.mod pins for golang.org/x/perf.
go build -o "$tmp/benchstat" golang.org/x/perf/cmd/benchstat

{
	echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
	echo "kernel: $(uname -r)"
	echo "command: COUNT=$count BENCHTIME=$benchtime BENCH='$filter' MATRIX=$matrix scripts/bench.sh"
} >>"$out"
for i in $(seq "$count"); do
	echo "round $i of $count" >&2
	"$tmp/bench.test" -test.run='^$' -test.bench="$filter" -test.benchtime="$benchtime" -matrix="$matrix" | tee -a "$out" >>"$tmp/run.txt"
done
echo "raw results: $out" >&2

# The pivots read this run only: $out may hold earlier runs of other commits.
stat() { "$tmp/benchstat" "$@" "$tmp/run.txt" || true; }
stat -col /ready -filter '.name:CallSoon'
stat -filter '.name:ReadyQueue'
stat -col /timers -filter '.name:Timers'
stat -col /selector -filter '.name:IOChain'
stat -col /selector -filter '.name:Echo'
stat -col /ready -filter '.name:Await'
