package servercost

import (
	"fmt"
	"io"
	"slices"

	"github.com/loopbench/loopbench/internal/harness/verdict"
)

// costPairs are the server-side figures of every server but loopbench's
// protocol-style one (base) against it (head), a group per server, a pair
// per rate and unit. A server that ran flat out at a rate in any round
// has no pair there (costAt), nor has any server where the base did.
func (c *cost) costPairs() []verdict.Pair {
	const base = "loopbench"
	var pairs []verdict.Pair
	for _, label := range c.labels {
		if label == base {
			continue
		}
		for _, rate := range c.rates {
			if c.flat[flatKey{base, rate}] || c.flat[flatKey{label, rate}] {
				continue
			}
			for _, unit := range costUnits {
				p := verdict.Pair{Group: label + " against " + base, Name: "ServerCost/rate=" + RateString(rate), Unit: unit, Better: -1}
				for _, s := range c.samples {
					if s.rate != rate || s.unit != unit {
						continue
					}
					switch s.label {
					case base:
						p.Base = append(p.Base, s.value)
					case label:
						p.Head = append(p.Head, s.value)
					}
				}
				if len(p.Base) > 0 && len(p.Head) > 0 {
					pairs = append(pairs, p)
				}
			}
		}
	}
	return pairs
}

// WriteVerdict writes the same-run ratios of the server-side figures,
// each server against loopbench's protocol-style server, as compare
// judges two files: compare's verdict (package verdict) and its table;
// nothing where no server was paired with loopbench's.
func (o Outcome) WriteVerdict(w io.Writer) {
	if o.cost != nil {
		o.cost.writeVerdict(w)
	}
}

func (c *cost) writeVerdict(w io.Writer) {
	pairs := c.costPairs()
	if len(pairs) == 0 {
		return
	}
	o := verdict.Options{Alpha: 0.05, MinEffect: 0.05}
	v := verdict.Decide(pairs, o)
	fmt.Fprintf(w, "Server cost per answered request at %s req/s over %d connections of %d B, same run: each server (head) against loopbench's protocol-style server (base), judged as compare judges; REGRESSION means the server costs more than loopbench, improved that it costs less.\n",
		joinRates(c.rates), costConns, costSize)
	var groups []string
	for _, p := range pairs {
		if !slices.Contains(groups, p.Group) {
			groups = append(groups, p.Group)
		}
	}
	verdict.WriteTables(w, v, o, groups)
	fmt.Fprintln(w)
}
