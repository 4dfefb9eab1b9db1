package verdict

import "fmt"

// SyscallsUnit is the instruction gate's system calls per op: those Go
// code made through the syscall packages, counted under callgrind.
const SyscallsUnit = "syscalls/op"

// SyscallNoise is the largest difference in syscalls/op that sides of
// identical code showed in the instruction gate's A/As: one call per op.
// Callgrind books another thread's system call, when it returns, on
// whatever the counted thread was running, so a window holds a stray
// call more or fewer from process to process; in a window of one
// operation (the cold-* benchmarks at k = 10⁵) that is a whole call per
// op: cold-cancel counted 29 on one side and 28 on the other, its
// instructions/op equal to 0.01 %. A difference counts alone only past
// it.
const SyscallNoise = 1

// SyscallNoiseShare is the same spread as a share of the op's calls, for
// operations that make many: a wait's timeout follows the real clock, so
// an op that fires 10⁶ timers asks the kernel about 10⁶ times, a few
// thousand more or fewer from process to process. In a whole-set A/A
// gate on a loaded 2-core machine, cold-fire at k = 10⁶ (heap2ary)
// counted 1.005 to 1.009 million calls an op on one side and 1.000 to
// 1.002 million on the other: ranges 0.3 % apart, medians 0.57 %, its
// instructions/op equal. A difference counts alone only past both.
const SyscallNoiseShare = 0.01

// decideSyscalls judges the syscalls/op comparisons of v, each beside
// the instructions/op of the same benchmark (see decideSyscall).
func (v *Verdict) decideSyscalls() {
	instr := map[[2]string]Status{}
	for _, c := range v.Comparisons {
		if c.Unit == "instructions/op" {
			instr[[2]string{c.Group, c.Name}] = c.Status
		}
	}
	for i := range v.Comparisons {
		c := &v.Comparisons[i]
		if c.Unit == SyscallsUnit && c.Rule == RuleAmortised {
			c.decideSyscall(instr[[2]string{c.Group, c.Name}])
		}
	}
}

// decideSyscall is the verdict on syscalls/op, never undecided. The gap
// is how far apart the two sides' ranges of repeats lie (head's smallest
// above base's largest, or the other way). A gap under one call per op
// is "~" (a share of setup or of stray calls spread over the window); a
// gap of SyscallNoise or less, or of SyscallNoiseShare of base's calls or
// less, is "~" unless instructions/op moved the
// same way past its minimum effect (instr: its status), since a call the
// operation makes also runs its Go wrapper's instructions, where a stray
// call booked from another thread adds none; past that, the change counts
// when it also passes the minimum effect.
func (c *Comparison) decideSyscall(instr Status) {
	worse, better := c.beyond()
	b, h := c.BaseSum, c.HeadSum
	up := h.Center > b.Center
	gap := h.Lo - b.Hi
	if !up {
		gap = b.Lo - h.Hi
	}
	moved := up && instr == Regressed || !up && instr == Improved
	c.Status = Same
	switch {
	case b.Center == h.Center && b.Lo == b.Hi && h.Lo == h.Hi:
		c.Equal = true
	case b.Center == h.Center:
		c.Note = "syscalls: equal medians"
	case gap < MinAmortisedStep(c.Unit):
		c.Note = fmt.Sprintf("syscalls: the repeats' ranges within %s", stepString(c.Unit, MinAmortisedStep(c.Unit)))
	case gap <= max(SyscallNoise, SyscallNoiseShare*b.Center) && !moved:
		c.Note = fmt.Sprintf("syscalls: %.4g per op apart, within the A/A spread (%d per op or %s of them), instructions/op unmoved", gap, SyscallNoise, pct(SyscallNoiseShare))
	case worse:
		c.Status, c.Note = Regressed, "syscalls"
	case better:
		c.Status, c.Note = Improved, "syscalls"
	default:
		c.Note = fmt.Sprintf("syscalls, within the %s minimum effect", pct(c.MinEffect))
	}
}
