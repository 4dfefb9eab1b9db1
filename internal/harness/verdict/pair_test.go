package verdict

import (
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/measure/benchdata"
)

func mustRead(t *testing.T, name, text string) *benchdata.Set {
	t.Helper()
	s, err := benchdata.Read(strings.NewReader(text), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMatchRefusesDuplicates: head holds X under two values of a key base
// does not give; matching on the keys both give would keep one sample and
// silently drop the other. It is refused, naming both configurations.
func TestMatchRefusesDuplicates(t *testing.T) {
	base := mustRead(t, "base.txt", "goos: linux\nBenchmarkX\t1\t10 ns/op\nBenchmarkX\t1\t11 ns/op\n")
	head := mustRead(t, "head.txt", "goos: linux\nflavour: a\nBenchmarkX\t1\t10 ns/op\nflavour: b\nBenchmarkX\t1\t20 ns/op\n")
	_, err := Match(base, head, false)
	if err == nil || !strings.Contains(err.Error(), "head.txt: X sec/op appears under two configurations") {
		t.Fatalf("Match: %v", err)
	}
	// With the key on both sides the two configurations pair up.
	base = mustRead(t, "base.txt", "goos: linux\nflavour: a\nBenchmarkX\t1\t10 ns/op\nflavour: b\nBenchmarkX\t1\t20 ns/op\n")
	m, err := Match(base, head, false)
	if err != nil || len(m.Pairs) != 2 {
		t.Fatalf("Match: %v, %d pairs", err, len(m.Pairs))
	}
}

// TestMatchExactUnitFromMetadata: a Unit line's assume=exact makes a unit
// exact for the verdict.
func TestMatchExactUnitFromMetadata(t *testing.T) {
	text := "Unit instructions/op assume=exact better=lower\nBenchmarkX\t1\t100 instructions/op\n"
	m, err := Match(mustRead(t, "a", text), mustRead(t, "b", text), false)
	if err != nil || !m.Pairs[0].ExactUnit {
		t.Fatalf("Match: %v, %+v", err, m.Pairs)
	}
}
