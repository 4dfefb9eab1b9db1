package gate_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/harness/gate"
)

// The round lines are held and the heartbeat's line names the latest;
// build output goes straight through.
func ExampleProgress() {
	var log bytes.Buffer
	begun := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	p := gate.NewProgress(&log, begun)
	fmt.Println(p.Line(begun.Add(30 * time.Second)))
	fmt.Fprintf(p, "round 1 of 4: base\n")
	fmt.Fprintf(p, "# building head\n")
	fmt.Fprintf(p, "round 1 of 4: head\n")
	fmt.Println(p.Line(begun.Add(60 * time.Second)))
	fmt.Fprintf(p, "%s3 of 62 processes under callgrind\n", gate.CountedPrefix)
	fmt.Println(p.Line(begun.Add(90 * time.Second)))
	fmt.Print(log.String())
	// Output:
	// loopbench gate: building and listing; 30s elapsed
	// loopbench gate: round 1 of 4: head; 1m0s elapsed
	// loopbench gate: counted 3 of 62 processes under callgrind; 1m30s elapsed
	// # building head
}

// TestProgressHoldsRounds: every round line is held, none passed on, and
// only the latest is named; other lines pass in their order.
func TestProgressHoldsRounds(t *testing.T) {
	var log bytes.Buffer
	begun := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	p := gate.NewProgress(&log, begun)
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(p, "round %d of 3: head\n", i)
		fmt.Fprintf(p, "look %d\n", i)
	}
	if got, want := log.String(), "look 1\nlook 2\nlook 3\n"; got != want {
		t.Errorf("passed on %q, want %q", got, want)
	}
	if got, want := p.Line(begun.Add(90*time.Second)), "loopbench gate: round 3 of 3: head; 1m30s elapsed"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}
