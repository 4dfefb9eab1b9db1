#!/usr/bin/env bash
# The full benchmark matrix, as `loopbench run` measures it: COUNT rounds,
# each one pass over every case in an order drawn from SEED (recorded in
# raw.txt), into a new results/<date>-<host>-<commit>/ with raw.txt and
# the report (summary.md, SVG plots, report.html). A thin wrapper that
# keeps the environment variables of earlier versions; the flags of
# loopbench run given as arguments come after them.
#
#   scripts/bench.sh                  # COUNT=6 BENCHTIME=300ms MATRIX=varied
#   COUNT=10 BENCH=IOChain scripts/bench.sh
#   MATRIX=all scripts/bench.sh       # every workload on every variant
#   scripts/bench.sh -wait-idle 1m
#
# BENCH is a comma-separated list of workloads (loopbench run -workloads);
# MATRIX=varied runs each workload on the variants that differ in the
# part it exercises, all on every variant (about four times longer).
set -euo pipefail
cd "$(dirname "$0")/.."

args=(-count "${COUNT:-6}" -benchtime "${BENCHTIME:-300ms}")
case ${MATRIX:-varied} in
varied) ;;
all) args+=(-all) ;;
*) echo "scripts/bench.sh: MATRIX=$MATRIX: want varied or all" >&2; exit 2 ;;
esac
if [ -n "${BENCH:-}" ] && [ "$BENCH" != . ]; then
	args+=(-workloads "$BENCH")
fi
if [ -n "${SEED:-}" ]; then
	args+=(-seed "$SEED")
fi
exec go run -pgo=off ./cmd/loopbench run "${args[@]}" "$@"
