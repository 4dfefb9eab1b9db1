package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestNameCompare: names sort segment by segment, numbers by value.
func TestNameCompare(t *testing.T) {
	want := []string{
		"CallSoon/batch=9",
		"CallSoon/batch=10",
		"CallSoon/batch=100",
		"CallSoon/batch=100/x=1",
		"CallSoon/mode=chain",
		"Timers/p=1000",
		"Timers/p=100000",
		"Timers/p=1000000",
		"Timers2/p=1",
		"TimersX",
	}
	got := slices.Clone(want)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
	slices.SortFunc(got, nameCompare)
	if !slices.Equal(got, want) {
		t.Fatalf("sorted:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range [][2]string{{"a07", "a7"}, {"a7", "a07"}, {"b=1/c", "b=1"}} {
		if nameCompare(c[0], c[1]) == 0 {
			t.Errorf("nameCompare(%q, %q) = 0", c[0], c[1])
		}
	}
}

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
