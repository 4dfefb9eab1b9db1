package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCompareTable: rows in a results file shuffled as run writes them
// print by unit, then by name in natural order, each unit's table ending
// in a geomean row; counts never take a sub-unit prefix (B/op 1451 is
// 1.417Ki, amortised shares print as 4.2e-06, not 0.000004200 nor
// 4.200µ), and a geomean that needs a zero says so (golden).
func TestCompareTable(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	file := func(name string, slow float64) string {
		var lines []string
		for i := range 6 {
			for j, n := range []string{"Timers/p=1000", "Timers/p=100000", "CallSoon/batch=10", "CallSoon/batch=9"} {
				ns := float64(100*(j+1)) * slow * (1 + 0.01*r.Float64())
				lines = append(lines, fmt.Sprintf("Benchmark%s-2\t1000000\t%.2f ns/op\t%d B/op\t%g allocs/op", n, ns, 1451+i%2, 4.2e-6*float64(j)*(slow+float64(i%2))))
			}
		}
		r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		return writeFile(t, name, machineA+strings.Join(lines, "\n")+"\n")
	}
	out, errs, code := runOut("compare", file("base.txt", 1), file("head.txt", 1.5))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a regression)\n%s\n%s", code, errs, out)
	}
	golden(t, "compare_table.golden", out)
}
