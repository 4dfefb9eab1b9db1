package looptest

import (
	"testing"

	"github.com/loopbench/loopbench"
)

// A Suite is one conformance suite of the loop and the configurations it
// runs on.
type Suite struct {
	Name    string
	Run     func(*testing.T, loopbench.Config)
	Configs func() []loopbench.Config // Configs (both timer-cancel modes), loopbench.Variants, or Parts
	// Alone is set for a suite that counts process-wide (fds, goroutines)
	// or signals the whole process: its configurations run one at a time,
	// and no other suite runs beside it. The others run their
	// configurations in parallel.
	Alone bool
}

// Suites are the loop's conformance suites, in the order RunSuites runs
// them. A suite added here runs on every variant with no other change.
var Suites = []Suite{
	{Name: "Conformance", Run: Run, Configs: Configs},
	{Name: "Tasks", Run: RunTasks, Configs: Configs},
	{Name: "CloseStopsTasks", Run: CloseStopsTasks, Configs: Configs, Alone: true},
	{Name: "Net", Run: RunNet, Configs: Configs},
	{Name: "Streams", Run: RunStreams, Configs: Configs},
	{Name: "Datagrams", Run: RunDatagrams, Configs: Configs},
	// The suites below whose cost is the process's (children, signals,
	// fds and goroutines counted alone, TLS volumes, Python peers) run on
	// Parts: every ready queue, timer queue and selector, not every
	// combination, which the suites above and Coordination and TLS cover.
	// Signals go to the whole process.
	{Name: "Signals", Run: RunSignals, Configs: Parts, Alone: true},
	// The subprocess suite counts the process's fds.
	{Name: "Subprocess", Run: RunSubprocess, Configs: PartsBothModes, Alone: true},
	{Name: "NetLeavesNothing", Run: NetLeavesNothing, Configs: Parts, Alone: true},
	{Name: "Coordination", Run: RunCoordination, Configs: Configs},
	// It replaces net.DefaultResolver meanwhile.
	{Name: "DialLeavesNothing", Run: DialLeavesNothing, Configs: Parts, Alone: true},
	{Name: "FactoryPanicLeavesNoFd", Run: FactoryPanicLeavesNoFd, Configs: Parts, Alone: true},
	{Name: "TLS", Run: RunTLS, Configs: Configs},
	// The timer-cancel mode does not touch the data path it exercises
	// (16 MiB each way, four times).
	{Name: "TLSFlow", Run: RunTLSFlow, Configs: Parts},
	{Name: "TLSLeavesNothing", Run: TLSLeavesNothing, Configs: Parts, Alone: true},
	// Against Python's ssl, asyncio and OpenSSL.
	{Name: "TLSInterop", Run: RunTLSInterop, Configs: PartsBothModes},
}

// RunSuites runs every suite of Suites as a subtest named after it, with
// a subtest per configuration named by Config.String, so that
// `go test -run 'TestLoop/Streams/ready=deque'` picks one.
func RunSuites(t *testing.T) {
	for _, s := range Suites {
		t.Run(s.Name, func(t *testing.T) {
			for _, cfg := range s.Configs() {
				t.Run(cfg.String(), func(t *testing.T) {
					if !s.Alone {
						t.Parallel()
					}
					s.Run(t, cfg)
				})
			}
		})
	}
}
