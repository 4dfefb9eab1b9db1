package servercost

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/serve"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/internal/measure/rounds"
	"github.com/loopbench/loopbench/peers"
)

// Sweep is a peers run's sweep of the echo servers: load -sweep's steps
// of rising Rates, Conns connections of 1024 bytes, StepTime a step, a
// step's corrected p99 within SLO, the generator's Spin.
type Sweep struct {
	Rates    []float64
	SLO      time.Duration
	StepTime time.Duration
	Conns    int
	Spin     time.Duration

	Units []loadresult.Unit // the units of the sweep's lines, written first
	// Write writes a server's steps and knee, its load configured as cfg.
	Write func(cfg load.Config, slo time.Duration, sw load.Sweep) error
	CPUs  func() int // the CPUs this process may use, once pinned
}

// Sweepable returns the names of the peers that have an echo server to
// sweep, and says on stderr of each other one that it is skipped: known
// from its name, this comes before any peer is looked for, so that the
// reason is the same whether or not the peer is installed.
func Sweepable(names []string, stderr io.Writer) []string {
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
// styles, gonet, and the ready peers (each has one: see Sweepable).
func (r *run) sweepServers() []serve.Server {
	servers := loopServers()
	for _, p := range r.Ready {
		servers = append(servers, serve.Server{Name: p.Name})
	}
	return servers
}

// loopServers are loopbench's three echo styles on its default variant,
// and gonet.
func loopServers() []serve.Server {
	return []serve.Server{{Name: "loopbench"}, {Name: "loopbench", Style: "task"}, {Name: "loopbench", Style: "stream"}, {Name: "gonet"}}
}

// sweeps sweeps each echo server once, in an order drawn from the seed
// (package rounds: one round), writing its steps and knee.
func (r *run) sweeps(ctx context.Context) error {
	if err := loadresult.WriteUnits(r.Out, r.Sweep.Units); err != nil {
		return err
	}
	if err := r.wakeups(ctx); err != nil {
		return err
	}
	_, err := rounds.Run(ctx, rounds.Config{Count: 1, Seed: r.Seed}, r.sweepServers(), func(ctx context.Context, _ rounds.Step, s serve.Server) error {
		sw, err := r.sweepOne(ctx, s)
		if len(sw.Steps) > 0 {
			if werr := r.Sweep.Write(r.sweepConfig(s, "").Run, r.Sweep.SLO, sw); werr != nil {
				return werr
			}
			r.measured++
			fmt.Fprintf(r.Stderr, "%s: %v\n", s.Label(), sw.Knee)
		}
		if err != nil {
			r.fail("sweep %s: %v", s.Label(), err)
		}
		return nil
	})
	return err
}

// sweepConfig is the sweep of server s at addr.
func (r *run) sweepConfig(s serve.Server, addr string) load.SweepConfig {
	warm := time.Second
	if r.Quick {
		warm = 100 * time.Millisecond
	}
	sw := r.Sweep
	return load.SweepConfig{
		Run:      load.Config{Addr: addr, Label: s.Label(), Conns: sw.Conns, Size: 1024, Duration: sw.StepTime, Warmup: warm, Timeout: 2 * time.Second, Spin: sw.Spin},
		Rates:    sw.Rates,
		Criteria: load.Criteria{SLO: sw.SLO, MaxErrors: 0.01},
		CPUs:     sw.CPUs(),
	}
}

// sweepOne sweeps one server, in its own process, then drives it with
// the floor client at the rates swept and at the server-side rows'
// rates.
func (r *run) sweepOne(ctx context.Context, s serve.Server) (load.Sweep, error) {
	p, err := r.Launcher.Start(s, nil)
	if err != nil {
		return load.Sweep{}, err
	}
	defer p.Stop()
	sc := r.sweepConfig(s, p.Addr) // after pinning: the generator's own CPUs
	sw, err := load.RunSweep(ctx, sc, func(st load.Step) {
		fmt.Fprintf(r.Stderr, "%s: %.0f req/s offered, %.0f achieved, p99 %v: %v\n", s.Label(), st.Result.Offered, st.Result.Achieved, loadresult.Sig3(st.Result.Corrected.P99), st.Verdict)
	})
	r.floorSweep(ctx, s, p.Addr, len(sw.Steps))
	r.costOn(ctx, s, p.Addr, p.PID)
	return sw, err
}
