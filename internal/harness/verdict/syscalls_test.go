package verdict

import "testing"

// TestSyscallsRule: syscalls/op is judged by a rule the instruction
// gate's measured A/A spread cannot cross. cold-cancel at k = 10⁵ (one
// operation a window) counted 29 system calls per op on one side of an
// A/A and 28 on the other, its instructions/op equal to 0.01 %: both
// ways that is "~". A step past one call per op counts alone; a step of
// one call counts where instructions/op moved the same way.
func TestSyscallsRule(t *testing.T) {
	const instr = 150e6 // a cold-cancel operation at k = 10⁵
	cases := []struct {
		name                 string
		base, head           []float64
		instrBase, instrHead []float64
		want                 Status
	}{
		{"A/A 29 to 28, instructions equal", repeat(29, 2), repeat(28, 2), repeat(instr, 2), repeat(instr*1.0001, 2), Same},
		{"A/A 28 to 29, instructions equal", repeat(28, 2), repeat(29, 2), repeat(instr, 2), repeat(instr*1.0001, 2), Same},
		{"A/A 28 to 29, repeats disagreeing", []float64{28, 29}, []float64{29, 30}, repeat(instr, 2), repeat(instr, 2), Same},
		{"28 to 31, stable across repeats", repeat(28, 3), repeat(31, 3), repeat(instr, 3), repeat(instr, 3), Regressed},
		{"31 to 28, stable across repeats", repeat(31, 3), repeat(28, 3), repeat(instr, 3), repeat(instr, 3), Improved},
		{"28 to 31, but base's repeats reach 30", []float64{28, 30}, repeat(31, 2), repeat(instr, 2), repeat(instr, 2), Same},
		{"2 to 3 on a small op, instructions +12 %", repeat(2, 2), repeat(3, 2), repeat(4000, 2), repeat(4480, 2), Regressed},
		{"3 to 2 on a small op, instructions -11 %", repeat(3, 2), repeat(2, 2), repeat(4480, 2), repeat(4000, 2), Improved},
		{"2 to 3 on a small op, instructions unmoved", repeat(2, 2), repeat(3, 2), repeat(4000, 2), repeat(4000, 2), Same},
		{"2 to 3, instructions moved the other way", repeat(2, 2), repeat(3, 2), repeat(4480, 2), repeat(4000, 2), Same},
		{"1000 to 1003, within the minimum effect", repeat(1000, 2), repeat(1003, 2), repeat(instr, 2), repeat(instr, 2), Same},
		// cold-fire at k = 10⁶ in a whole-set A/A: waits that follow the
		// real clock, ranges 0.3 % apart, instructions equal.
		{"A/A 1.007M to 1.001M, instructions equal", []float64{1.005e6, 1.009e6}, []float64{1.000e6, 1.002e6}, repeat(1.7e9, 2), repeat(1.7e9, 2), Same},
		{"1.007M to 1.001M, instructions -0.6 %", []float64{1.005e6, 1.009e6}, []float64{1.000e6, 1.002e6}, repeat(1.7e9, 2), repeat(1.69e9, 2), Improved},
		{"1.0M to 1.03M, instructions equal", repeat(1.0e6, 2), repeat(1.03e6, 2), repeat(1.7e9, 2), repeat(1.7e9, 2), Regressed},
	}
	for _, c := range cases {
		pairs := []Pair{
			{Name: "X", Unit: "instructions/op", ExactUnit: true, Base: c.instrBase, Head: c.instrHead},
			{Name: "X", Unit: SyscallsUnit, Base: c.base, Head: c.head},
		}
		v := Decide(pairs, Options{MinEffect: 0.005})
		got := v.Comparisons[1]
		if got.Rule != RuleAmortised || got.Status != c.want {
			t.Errorf("%s: rule %v status %v (%s), want amortised %v", c.name, got.Rule, got.Status, got.Note, c.want)
		}
	}
}

// TestSyscallsRuleByBenchmark: a syscalls/op comparison is read beside
// the instructions/op of its own benchmark and group, never another's.
func TestSyscallsRuleByBenchmark(t *testing.T) {
	pairs := []Pair{
		{Name: "Y", Unit: SyscallsUnit, Base: repeat(2, 2), Head: repeat(3, 2)},
		{Group: "g", Name: "X", Unit: SyscallsUnit, Base: repeat(2, 2), Head: repeat(3, 2)},
		{Name: "X", Unit: "instructions/op", ExactUnit: true, Base: repeat(4000, 2), Head: repeat(4480, 2)},
		{Name: "X", Unit: SyscallsUnit, Base: repeat(2, 2), Head: repeat(3, 2)},
	}
	v := Decide(pairs, Options{MinEffect: 0.005})
	want := []Status{Same, Same, Regressed, Regressed}
	for i, c := range v.Comparisons {
		if c.Status != want[i] {
			t.Errorf("%s %s %s: %v (%s), want %v", c.Group, c.Name, c.Unit, c.Status, c.Note, want[i])
		}
	}
}
