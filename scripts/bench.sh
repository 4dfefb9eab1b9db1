#!/usr/bin/env bash
# The full benchmark matrix (package ./bench): builds the test binary once,
# runs every benchmark COUNT times, one whole pass per round so that
# variants and baselines interleave, each round in its own order drawn
# from SEED (workloads by -test.shuffle, cases by -order-seed; the seed is
# recorded), writes the raw benchfmt output to
# results/<date>-<host>-<commit>/raw.txt (a new directory, never an old
# one appended to) with the machine and the command as configuration
# lines, and then loopbench report on it (summary.md, SVG plots,
# report.html) and the benchstat pivots of the run.
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
seed=${SEED:-$(( $(date +%s) % 1000000 * 1000 + 1 ))}
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
base=results/$(date -u +%Y-%m-%d)-$(hostname)-${commit:0:7}
out=$base
for i in $(seq 2 100); do
	[ -e "$out" ] || break
	out=$base-$i
done
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go test -c -pgo=off -o "$tmp/bench.test" ./bench
go build -o "$tmp/loopbench" ./cmd/loopbench
# benchstat at the version go.mod pins for golang.org/x/perf.
go build -o "$tmp/benchstat" golang.org/x/perf/cmd/benchstat

{
	echo "commit: $commit"
	echo "kernel: $(uname -r)"
	echo "command: COUNT=$count BENCHTIME=$benchtime BENCH='$filter' MATRIX=$matrix SEED=$seed scripts/bench.sh"
	echo "seed: $seed"
} >"$out/raw.txt"
for i in $(seq "$count"); do
	echo "round $i of $count" >&2
	"$tmp/bench.test" -test.run='^$' -test.bench="$filter" -test.benchtime="$benchtime" -matrix="$matrix" \
		-test.shuffle=$((seed + i)) -order-seed=$((seed + i)) | grep -v '^-test.shuffle ' >>"$out/raw.txt"
done
echo "raw results: $out/raw.txt" >&2

"$tmp/loopbench" report "$out/raw.txt" >/dev/null
echo "report: $out/report.html" >&2

stat() { "$tmp/benchstat" "$@" "$out/raw.txt" || true; }
stat -col /ready -filter '.name:CallSoon'
stat -filter '.name:ReadyQueue'
stat -col /ready -filter '.name:RunOnce'
stat -col /timers -filter '.name:Timers'
stat -col /selector -filter '.name:IOChain'
stat -col /selector -filter '.name:Echo'
stat -col /ready -filter '.name:Await'
