// Package loophook reaches into a loop from the project's own packages
// where the public API has, by choice, no door: package loopbench sets
// the hooks when it is loaded.
package loophook

import (
	"time"

	"github.com/loopbench/loopbench/selectors"
)

// Drive gives the loop l (a *loopbench.Loop) the clock now and wraps its
// selector with wrap, before its first run: a virtual clock
// (internal/measure/vclock) for the differential check and the counted timer
// workloads. The loop's Time, CallLater and timeouts follow now from
// then on.
var Drive func(l any, now func() time.Duration, wrap func(selectors.Selector) selectors.Selector)

// Yield makes the loop l (a *loopbench.Loop) yield its goroutine through
// via, which gets the loop's own yield and calls it: the load generator's
// loops, whose goroutines are locked to their threads, unlock them
// around it (internal/harness/load).
var Yield func(l any, via func(yield func()))
