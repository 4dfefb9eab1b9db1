package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/servercost"
	"github.com/loopbench/loopbench/peers"
)

// peersSweep are the flags of peers -sweep.
type peersSweep struct {
	spec string
	servercost.Sweep
}

func (p *peersSweep) register(fs *flag.FlagSet) {
	fs.StringVar(&p.spec, "sweep", "", "sweep the echo servers instead, as load -sweep: 2000,4000,8000 or 2000:400000:x1.4")
	fs.DurationVar(&p.SLO, "slo", time.Millisecond, "with -sweep: the corrected p99 a step must stay within")
	fs.DurationVar(&p.StepTime, "steptime", 3*time.Second, "with -sweep: each step's window (200ms with -quick)")
	fs.IntVar(&p.Conns, "sweep-conns", 10, "with -sweep: connections (1 with -quick)")
	fs.DurationVar(&p.Spin, "sweep-spin", 0, "with -sweep: the generator's -spin (load -spin: poll instead of sleeping when a send is this close; it has CPU 1 to itself)")
}

// check validates the sweep flags and, with -sweep, makes the run a
// sweep; without -peers, a sweep runs the peers that have an echo server.
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
	case set["count"] && f.cfg.Count != 1:
		return usageError{"-count does not go with -sweep: each server is swept once"}
	case p.SLO <= 0:
		return usageError{fmt.Sprintf("-slo %v: want a positive duration", p.SLO)}
	case p.StepTime <= 0:
		return usageError{fmt.Sprintf("-steptime %v: want a positive duration", p.StepTime)}
	case p.Conns < 1:
		return usageError{fmt.Sprintf("-sweep-conns %d: want at least 1", p.Conns)}
	case p.Spin < 0:
		return usageError{fmt.Sprintf("-sweep-spin %v: want a duration of 0 or more", p.Spin)}
	}
	rates, err := load.ParseRates(p.spec)
	if err != nil {
		return usageError{err.Error()}
	}
	p.Rates, f.cfg.Count, f.cfg.Sweep = rates, 1, &p.Sweep
	if !set["peers"] {
		f.names = peers.EchoServers
	}
	if f.cfg.Quick && !set["steptime"] {
		p.StepTime = 200 * time.Millisecond
	}
	if f.cfg.Quick && !set["sweep-conns"] {
		p.Conns = 1
	}
	return nil
}
