package callgrind

// A call of sysmon's that was in progress when a window opened (a sleep
// in usleep or notetsleep, most often) carries, in its inclusive cost,
// what the call ran before the window: the entry up to the system call,
// 15 instructions for usleep, 108 for notetsleep, 724 for one through
// retake. Callgrind books those on the call's line but not in the
// window's own lines or totals, so subtracting them from the totals
// takes them from the benchmark. Of 60 windows of testdata/windowbench's
// Spin (30 of one iteration, 30 of 1000) counted three at a time on two
// CPUs, 17 were such, and one moved a one-iteration window of 753
// instructions down to 29.
//
// What a call of sysmon's ran in the window is also in the window's
// lines of the function it called (and of that one's calls): so each
// call's inclusive cost is bounded by what its callee's lines hold in
// the window (bounded alike, down its calls; costGraph.held), which
// leaves the part before the window out. In those 60 windows, sysmon's
// cost so bounded left the benchmark's exact count in 56 and missed it
// by 147 instructions (of 716,037) in one; the other 3 held the
// runtime's work on the benchmark's thread (a preemption, then the
// scavenger), about 1,600 instructions, which sysmon's blocks do not
// hold.

// costGraph is a callgrind output file's costs by function: each one's
// own lines, and the inclusive costs of its calls by callee.
type costGraph struct {
	events []string
	self   map[string][]float64
	calls  map[string]map[string][]float64
	held   map[string][]float64 // held's memo
	busy   map[string]bool      // held's functions on its stack
}

// readGraph reads text's cost lines into a costGraph.
func readGraph(text string, ids map[string]string) (*costGraph, error) {
	g := &costGraph{self: map[string][]float64{}, calls: map[string]map[string][]float64{},
		held: map[string][]float64{}, busy: map[string]bool{}}
	var err error
	g.events, err = scanCosts(text, ids, func(l costLine, cost []float64) {
		if l.callee == "" {
			g.self[l.fn] = addTo(g.self[l.fn], cost)
			return
		}
		if g.calls[l.fn] == nil {
			g.calls[l.fn] = map[string][]float64{}
		}
		g.calls[l.fn][l.callee] = addTo(g.calls[l.fn][l.callee], cost)
	})
	return g, err
}

// heldBy is what fn's lines hold in the file: its own, and each call's
// inclusive cost bounded by what the callee holds. A function met again
// down its own calls (recursion) holds its own lines there.
func (g *costGraph) heldBy(fn string) []float64 {
	if h, ok := g.held[fn]; ok {
		return h
	}
	h := addTo(nil, g.self[fn])
	if g.busy[fn] {
		return h
	}
	g.busy[fn] = true
	for callee, incl := range g.calls[fn] {
		h = addTo(h, lesser(incl, g.heldBy(callee)))
	}
	delete(g.busy, fn)
	g.held[fn] = h
	return h
}

// lesser is, event by event, the lesser of a and b (missing entries 0).
func lesser(a, b []float64) []float64 {
	m := make([]float64, min(len(a), len(b)))
	for i := range m {
		m[i] = min(a[i], b[i])
	}
	return m
}

// costOf is what fn's blocks, and those of its numbered instances, hold
// in the file: their own lines, and the calls they made to other
// functions, each callee's calls from all of them together bounded by
// what the callee holds. A call of one instance by another is left out:
// the callee's own lines hold it.
func (g *costGraph) costOf(fn string) Counts {
	var sum []float64
	out := map[string][]float64{}
	for f, cost := range g.self {
		if instance(f, fn) {
			sum = addTo(sum, cost)
		}
	}
	for f, calls := range g.calls {
		if !instance(f, fn) {
			continue
		}
		for callee, incl := range calls {
			if !instance(callee, fn) {
				out[callee] = addTo(out[callee], incl)
			}
		}
	}
	for callee, incl := range out {
		sum = addTo(sum, lesser(incl, g.heldBy(callee)))
	}
	return countsOf(g.events, sum)
}
