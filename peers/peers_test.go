package peers

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
)

// TestPeersRun: every peer installed here runs every shape it runs, at
// tiny sizes, and prints one line benchfmt reads, named as loopbench's
// own; a peer that is not installed is skipped, naming its package.
func TestPeersRun(t *testing.T) {
	ctx := context.Background()
	ready, skipped := Find(ctx, Names, t.TempDir())
	for _, s := range skipped {
		if !strings.Contains(s.Reason, "apt install") && !strings.Contains(s.Reason, "not available here") {
			t.Errorf("%s: the skip names no package, nor what the kernel refuses", s)
		}
	}
	tiny := []Shape{
		{Workload: "callsoon-inflight", Args: []string{"10"}, Bench: "CallSoon", Params: "mode=inflight/w=10", Peers: callbackPeers},
		{Workload: "callsoon-chain", Bench: "CallSoon", Params: "mode=chain", Peers: callbackPeers},
		{Workload: "cold-fire", Args: []string{"100"}, Bench: "Timers", Params: "op=cold-fire/k=100", Peers: loops},
		{Workload: "cold-cancel", Args: []string{"100"}, Bench: "Timers", Params: "op=cold-cancel/k=100", Peers: loops},
		{Workload: "iochain", Args: []string{"epoll", "10", "2"}, Bench: "IOChain", Params: "p=10/a=2/mode=once", Peers: loops},
		{Workload: "iochain", Args: []string{"poll", "10", "2"}, Bench: "IOChain", Params: "p=10/a=2/mode=once", Peers: []string{"asyncio", "libev", "libevent"}},
		{Workload: "iochain", Args: []string{"uring", "10", "2"}, Bench: "IOChain", Params: "p=10/a=2/mode=once", Peers: []string{"liburing"}},
	}
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			var p *Peer
			for _, r := range ready {
				if r.Name == name {
					p = r
				}
			}
			if p == nil {
				for _, s := range skipped {
					if s.Name == name {
						t.Skip(s.String())
					}
				}
				t.Fatal("neither ready nor skipped")
			}
			for _, s := range tiny {
				if !s.Runs(name) {
					continue
				}
				// Full precision: measured values printed at 4
				// significant digits would tie. A measurement can
				// come out with 4 digits or fewer (4369 ns exactly),
				// so only three such runs in a row fail.
				var values []benchfmt.Value
				full := false
				for try := 0; try < 3 && !full; try++ {
					res, err := p.Run(ctx, s, 5*time.Millisecond)
					if err != nil {
						t.Fatal(err)
					}
					want := s.Bench + "/impl=" + name + "/"
					if !strings.HasPrefix(string(res.Name), want) || !strings.HasSuffix(string(res.Name), s.Params) || len(res.Values) == 0 {
						t.Fatalf("name %s, want %s...%s", res.Name, want, s.Params)
					}
					values = append(values, res.Values...)
					full = slices.ContainsFunc(res.Values, func(v benchfmt.Value) bool { return significant(v.Value) > 4 })
				}
				if !full {
					t.Errorf("%s/impl=%s/%s: every value rounded to 4 digits in 3 runs: %v", s.Bench, name, s.Params, values)
				}
			}
		})
	}
}

// TestCache: a second Find of a built peer reuses its build.
func TestCache(t *testing.T) {
	dir := t.TempDir()
	a, _ := Find(context.Background(), []string{"libev"}, dir)
	if len(a) == 0 {
		t.Skip("libev not installed (Debian: apt install libev-dev)")
	}
	b, _ := Find(context.Background(), []string{"libev"}, dir)
	if a[0].argv[0] != b[0].argv[0] {
		t.Fatalf("rebuilt: %s then %s", a[0].argv[0], b[0].argv[0])
	}
}

func TestUnknownPeer(t *testing.T) {
	_, skipped := Find(context.Background(), []string{"tokio"}, t.TempDir())
	if len(skipped) != 1 || !strings.Contains(skipped[0].Reason, "no such peer") {
		t.Fatalf("%v", skipped)
	}
}

// significant counts the significant digits of v's shortest form.
func significant(v float64) int {
	m, _, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
	return len(strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(m, "-"), ".", ""), "0"))
}
