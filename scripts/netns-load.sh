#!/usr/bin/env bash
# N load generators against one loopbench server, each in its own network
# namespace, as N hosts would be: one namespace for `serve` and one per
# `load`, joined by veth pairs to a bridge, with addresses from RFC 2544's
# benchmarking range 198.18.0.0/15 that exist only inside them. The
# generators start together (-start-at), each writes its -out result, and
# `loopbench merge` merges them. Everything it made (namespaces, links,
# processes) is removed on exit, also on failure or Ctrl-C.
#
#   scripts/netns-load.sh [-n 3] [-duration 3s] [-warmup 1s] [-rate 0]
#                         [-conns 10] [-bin PATH] [-out DIR]
#
# The server is pinned to CPU 0 and generator i to CPU 1 + i mod (CPUs-1)
# when the machine has more than one CPU. Needs root and ip (iproute2);
# exits 3 with the reason when either is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

n=3 duration=3s warmup=1s rate=0 conns=10 bin="" out=""
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2 ;;
	-duration) duration=$2 ;;
	-warmup) warmup=$2 ;;
	-rate) rate=$2 ;;
	-conns) conns=$2 ;;
	-bin) bin=$2 ;;
	-out) out=$2 ;;
	*) echo "netns-load: unknown flag $1" >&2; exit 2 ;;
	esac
	shift 2
done
if [ "$(id -u)" != 0 ]; then
	echo "netns-load: skipped: network namespaces need root" >&2
	exit 3
fi
if ! command -v ip >/dev/null; then
	echo "netns-load: skipped: ip (iproute2) is not installed" >&2
	exit 3
fi

tmp=$(mktemp -d)
out=${out:-$tmp/out}
mkdir -p "$out"
if [ -z "$bin" ]; then
	go build -o "$tmp/loopbench" ./cmd/loopbench
	bin=$tmp/loopbench
fi

tag=lb$$ # a prefix of every name made here; interface names stay within 15 bytes
br=${tag}br
namespaces=() links=() pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	for l in "${links[@]}"; do ip link del "$l" 2>/dev/null || true; done
	for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
	ip link del "$br" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip link add "$br" type bridge
ip link set "$br" up
# host NAME ADDR: a namespace with one veth end in it, the other on the bridge.
host() {
	local ns=$tag-$1 h=${tag}${1}h p=${tag}${1}p
	ip netns add "$ns"
	namespaces+=("$ns")
	ip link add "$h" type veth peer name "$p"
	links+=("$h")
	ip link set "$p" netns "$ns"
	ip link set "$h" master "$br" up
	ip -n "$ns" addr add "$2/24" dev "$p"
	ip -n "$ns" link set "$p" up
	ip -n "$ns" link set lo up
}

cpus=$(nproc)
pinserver="" pingen=()
if [ "$cpus" -gt 1 ]; then
	pinserver="-cpu 0"
fi
server=198.18.0.1
host s "$server"
ip netns exec "$tag-s" "$bin" serve -addr "$server:9000" $pinserver >"$out/serve.txt" 2>&1 &
pids+=($!)
for i in $(seq 0 $((n - 1))); do
	host "g$i" "198.18.0.$((11 + i))"
	pingen[i]=""
	if [ "$cpus" -gt 1 ]; then
		pingen[i]="-cpu $((1 + i % (cpus - 1)))"
	fi
done
# Wait until the server accepts connections from a generator's namespace.
for _ in $(seq 100); do
	if ip netns exec "$tag-g0" bash -c "exec 3<>/dev/tcp/$server/9000" 2>/dev/null; then
		break
	fi
	sleep 0.1
done

start=$(date -u -d '+2 seconds' +%Y-%m-%dT%H:%M:%S.%NZ)
gens=()
for i in $(seq 0 $((n - 1))); do
	ip netns exec "$tag-g$i" "$bin" load -addr "$server:9000" -conns "$conns" -rate "$rate" \
		-duration "$duration" -warmup "$warmup" -start-at "$start" -name "gen-$i" \
		-out "$out/gen-$i.json" ${pingen[i]} >"$out/gen-$i.txt" 2>&1 &
	gens+=($!)
done
status=0
for p in "${gens[@]}"; do wait "$p" || status=1; done
for i in $(seq 0 $((n - 1))); do
	echo "== gen-$i alone"
	cat "$out/gen-$i.txt"
done
echo "== merged"
"$bin" merge "$out"/gen-*.json
exit $status
