#!/usr/bin/env bash
# N loopbench load generators against one loopbench server on Kubernetes:
# applies deploy/kubernetes/serve.yaml (a Deployment and its Service),
# waits for the server, runs deploy/kubernetes/load-job.yaml as an Indexed
# Job of N pods that all start at one instant (-start-at, a lead time from
# now), collects each pod's output with kubectl logs and merges the
# results with loopbench merge.
#
#   scripts/k8s-load.sh [-n 3] [-image loopbench:dev] [-duration 30s]
#                       [-rate 0] [-conns 10] [-lead 60s] [-namespace NS]
#                       [-out DIR]
#
# -rate is per generator. Build and push the image first (see
# deploy/kubernetes/Dockerfile); -lead must cover pod scheduling and the
# image pull. Exits 2 when kubectl is missing or a flag is unknown, 1 when
# a generator failed (its log is kept in DIR; the others are merged).
set -euo pipefail
cd "$(dirname "$0")/.."

n=3 image=loopbench:dev duration=30s rate=0 conns=10 lead=60s namespace="" out=""
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2 ;;
	-image) image=$2 ;;
	-duration) duration=$2 ;;
	-rate) rate=$2 ;;
	-conns) conns=$2 ;;
	-lead) lead=$2 ;;
	-namespace) namespace=$2 ;;
	-out) out=$2 ;;
	*) echo "k8s-load: unknown flag $1" >&2; exit 2 ;;
	esac
	shift 2
done
if ! command -v kubectl >/dev/null; then
	echo "k8s-load: kubectl is not installed" >&2
	exit 2
fi
k() { if [ -n "$namespace" ]; then kubectl -n "$namespace" "$@"; else kubectl "$@"; fi; }
out=${out:-results/k8s-load-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

# setarg FLAG VALUE: the list item after "- FLAG" in the Job's args.
setarg() { awk -v flag="- $1" -v val="$2" '{ if (next_is) { sub(/- .*/, "- \"" val "\""); next_is = 0 } if ($0 ~ "^ *" flag "$") next_is = 1; print }'; }

sed "s|image: loopbench:dev|image: $image|" deploy/kubernetes/serve.yaml | k apply -f -
k rollout status deployment/loopbench-serve --timeout=300s

k delete job loopbench-load --ignore-not-found --wait=true
seconds=${lead%s}
start=$(date -u -d "+$seconds seconds" +%Y-%m-%dT%H:%M:%SZ)
sed -e "s|image: loopbench:dev|image: $image|" \
	-e "s|^  completions: .*|  completions: $n|" \
	-e "s|^  parallelism: .*|  parallelism: $n|" \
	-e "s|value: \"2026-01-01T00:00:00Z\"|value: \"$start\"|" deploy/kubernetes/load-job.yaml |
	setarg -duration "$duration" | setarg -rate "$rate" | setarg -conns "$conns" | k apply -f -
echo "k8s-load: $n generators start at $start" >&2

# Wait until every pod has ended, succeeded or failed.
for _ in $(seq 3600); do
	read -r ok failed < <(k get job loopbench-load -o jsonpath='{.status.succeeded} {.status.failed}' | awk '{ print ($1 == "" ? 0 : $1), ($2 == "" ? 0 : $2) }')
	[ $((ok + failed)) -ge "$n" ] && break
	sleep 1
done
status=0
[ "${failed:-0}" -eq 0 ] || status=1
for pod in $(k get pods -l job-name=loopbench-load -o name); do
	k logs "$pod" >"$out/${pod#pod/}.log" || status=1
done
go run ./cmd/loopbench merge "$out"/*.log | tee "$out/merged.txt"
exit $status
