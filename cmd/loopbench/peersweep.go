package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/loadresult"
	"github.com/loopbench/loopbench/internal/harness/rounds"
	"github.com/loopbench/loopbench/peers"
)

// peersSweep are the flags of peers -sweep.
type peersSweep struct {
	spec     string
	rates    []float64
	slo      time.Duration
	stepTime time.Duration
	conns    int
	spin     time.Duration
}

func (p *peersSweep) register(fs *flag.FlagSet) {
	fs.StringVar(&p.spec, "sweep", "", "sweep the echo servers instead, as load -sweep: 2000,4000,8000 or 2000:400000:x1.4")
	fs.DurationVar(&p.slo, "slo", time.Millisecond, "with -sweep: the corrected p99 a step must stay within")
	fs.DurationVar(&p.stepTime, "steptime", 3*time.Second, "with -sweep: each step's window (200ms with -quick)")
	fs.IntVar(&p.conns, "sweep-conns", 10, "with -sweep: connections (1 with -quick)")
	fs.DurationVar(&p.spin, "sweep-spin", 0, "with -sweep: the generator's -spin (load -spin: poll instead of sleeping when a send is this close; it has CPU 1 to itself)")
}

// check validates the sweep flags; without -peers, a sweep runs the
// peers that have an echo server.
func (p *peersSweep) check(f *peersFlags, set map[string]bool) error {
	if p.spec == "" {
		for _, fl := range []string{"slo", "steptime", "sweep-conns", "sweep-spin"} {
			if set[fl] {
				return usageError{fmt.Sprintf("-%s applies to -sweep", fl)}
			}
		}
		return nil
	}
	switch {
	case set["count"] && f.count != 1:
		return usageError{"-count does not go with -sweep: each server is swept once"}
	case p.slo <= 0:
		return usageError{fmt.Sprintf("-slo %v: want a positive duration", p.slo)}
	case p.stepTime <= 0:
		return usageError{fmt.Sprintf("-steptime %v: want a positive duration", p.stepTime)}
	case p.conns < 1:
		return usageError{fmt.Sprintf("-sweep-conns %d: want at least 1", p.conns)}
	case p.spin < 0:
		return usageError{fmt.Sprintf("-sweep-spin %v: want a duration of 0 or more", p.spin)}
	}
	rates, err := load.ParseRates(p.spec)
	if err != nil {
		return usageError{err.Error()}
	}
	p.rates, f.count = rates, 1
	if !set["peers"] {
		f.names = peers.EchoServers
	}
	if f.quick && !set["steptime"] {
		p.stepTime = 200 * time.Millisecond
	}
	if f.quick && !set["sweep-conns"] {
		p.conns = 1
	}
	return nil
}

// sweepable returns the names of the peers that have an echo server to
// sweep, and says of each other one that it is skipped: known from its
// name, this comes before any peer is looked for, so that the reason is
// the same whether or not the peer is installed.
func sweepable(names []string, stderr io.Writer) []string {
	var out []string
	for _, name := range names {
		if slices.Contains(peers.EchoServers, name) {
			out = append(out, name)
		} else {
			fmt.Fprintf(stderr, "loopbench peers: skipped %s: it has no echo server to sweep\n", name)
		}
	}
	return out
}

// sweepServers are the echo servers a sweep runs: loopbench's three
// styles, gonet, and the ready peers (each has one: see sweepable).
func (r *peersRun) sweepServers() []echoServer {
	servers := []echoServer{{name: "loopbench"}, {name: "loopbench", style: "task"}, {name: "loopbench", style: "stream"}, {name: "gonet"}}
	for _, p := range r.ready {
		servers = append(servers, echoServer{name: p.Name})
	}
	return servers
}

// sweeps sweeps each echo server once, in an order drawn from the seed
// (package rounds: one round), writing its steps and knee to raw.txt.
func (r *peersRun) sweeps(ctx context.Context) error {
	servers := r.sweepServers()
	if err := loadresult.WriteUnits(r.w.w, sweepUnits); err != nil {
		return err
	}
	if err := r.wakeups(ctx); err != nil {
		return err
	}
	_, err := rounds.Run(ctx, rounds.Config{Count: 1, Seed: r.f.seed}, servers, func(ctx context.Context, _ rounds.Step, s echoServer) error {
		sw, err := r.sweepOne(ctx, s)
		if len(sw.Steps) > 0 {
			if werr := writeSweepResults(r.w.w, r.sweepConfig(s, "").Run, r.f.sweep.slo, sw, nil); werr != nil {
				return werr
			}
			r.measured++
			fmt.Fprintf(r.stderr, "%s: %v\n", s.label(), sw.Knee)
		}
		if err != nil {
			r.failures++
			fmt.Fprintf(r.stderr, "loopbench peers: sweep %s: %v\n", s.label(), err)
		}
		return nil
	})
	return peersInterrupted(err)
}

func (r *peersRun) sweepConfig(s echoServer, addr string) load.SweepConfig {
	warm := time.Second
	if r.f.quick {
		warm = 100 * time.Millisecond
	}
	return load.SweepConfig{
		Run:      load.Config{Addr: addr, Label: s.label(), Conns: r.f.sweep.conns, Size: 1024, Duration: r.f.sweep.stepTime, Warmup: warm, Timeout: 2 * time.Second, Spin: r.f.sweep.spin},
		Rates:    r.f.sweep.rates,
		Criteria: load.Criteria{SLO: r.f.sweep.slo, MaxErrors: 0.01},
		CPUs:     generatorCPUs(),
	}
}

// sweepOne sweeps one server, in its own process.
func (r *peersRun) sweepOne(ctx context.Context, s echoServer) (load.Sweep, error) {
	addr, pid, stop, err := startServerProc(s, nil, r.stderr)
	if err != nil {
		return load.Sweep{}, err
	}
	defer stop()
	sc := r.sweepConfig(s, addr)
	sc.CPUs = generatorCPUs() // after pinning: the generator's own CPUs
	sw, err := load.RunSweep(ctx, sc, func(st load.Step) {
		fmt.Fprintf(r.stderr, "%s: %.0f req/s offered, %.0f achieved, p99 %v: %v\n", s.label(), st.Result.Offered, st.Result.Achieved, loadresult.Sig3(st.Result.Corrected.P99), st.Verdict)
	})
	r.floorSweep(ctx, s, addr, len(sw.Steps))
	r.costOn(ctx, s, addr, pid)
	return sw, err
}
