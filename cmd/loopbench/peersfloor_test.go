package main

import (
	"strings"
	"testing"

	"github.com/loopbench/loopbench/peers"
)

// TestPeersFloor runs peers at tiny sizes with asyncio alone: beside each
// plain echo load the floor client drives the same server, its line
// carrying the units of the server's line and its CPU per request, and
// each round measures the loop's 200 µs timer beside the floor's sleeper
// and spinner.
func TestPeersFloor(t *testing.T) {
	dir := peersTest(t)
	needPeers(t, "asyncio", peers.Floor)
	_, _, raw := peersOut(t, dir, "-quick", "-count", "1", "-peers", "asyncio", "-benchtime", "5ms", "-echotime", "100ms")
	for _, want := range []string{
		"peer-cfloor: cfloor ",
		"BenchmarkWakeup/ready=ringbuffer/timers=heap4ary/selector=epoll/wait=200us-",
		"BenchmarkWakeup/impl=cfloor/wait=200us ",
		"BenchmarkWakeup/impl=cfloor-spin/wait=200us ",
	} {
		if !strings.Contains(raw, want) {
			t.Errorf("raw.txt has no %q", want)
		}
	}
	for _, server := range []string{"ready=ringbuffer/timers=heap4ary/selector=epoll", "impl=gonet", "impl=asyncio"} {
		line := lineWith(raw, "BenchmarkEchoFloor/"+server+"/size=1024/conns=1 ")
		for _, unit := range []string{" ns/op", " req/s", " p50-ns", " p99-ns", " cpu-ns/req", " lag-p99-ns"} {
			if !strings.Contains(line, unit) {
				t.Errorf("EchoFloor line of %s has no%s: %q", server, unit, line)
			}
		}
	}
}

// lineWith returns the first line of s that starts with prefix.
func lineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// TestPeersSweepFloor: a sweep drives each server with the floor client
// too, open loop at each rate the sweep ran, after the wake-up floor.
func TestPeersSweepFloor(t *testing.T) {
	dir := peersTest(t)
	needPeers(t, "asyncio", peers.Floor)
	_, _, raw := peersOut(t, dir, "-quick", "-sweep", "100", "-peers", "asyncio")
	for _, label := range []string{"loopbench", "loopbench-task", "gonet", "asyncio"} {
		line := lineWith(raw, "BenchmarkLoadFloor/label="+label+"/size=1024/conns=1/rate=100 ")
		if !strings.Contains(line, " req/s") || !strings.Contains(line, " cpu-ns/req") || !strings.Contains(line, " lag-p99-ns") {
			t.Errorf("no floor line for %s with req/s, cpu-ns/req and lag-p99-ns: %q", label, line)
		}
	}
	if !strings.Contains(raw, "BenchmarkWakeup/impl=cfloor/wait=200us ") {
		t.Error("raw.txt has no wake-up floor")
	}
}
