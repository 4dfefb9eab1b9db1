package report

import (
	"fmt"
	"strings"
)

// Bounds of a noisy run: a banner says so when more than WideShare of the
// cells with an interval have one wider than ±WideBound of their median.
// Cells of exact units (Table.Exact) are not counted: 12.5e-9 allocs/op
// ± 33 % is a setup allocation spread over a varying b.N, not noise.
const (
	WideBound = 0.10
	WideShare = 0.20
)

// banners sets rep.Banners: what a reader must know before any figure.
func (rep *Report) banners() {
	for _, kv := range append(rep.Config, rep.Varying...) {
		switch {
		case kv.Key == "interrupted":
			rep.Banners = append(rep.Banners, fmt.Sprintf("Interrupted %s: the last round is incomplete.", kv.Value))
		case kv.Key == "machine-busy" && rep.busy != nil:
			if b := busyBanner(rep.busy); b != "" {
				rep.Banners = append(rep.Banners, b)
			}
		case kv.Key == "machine-busy" && strings.Contains(kv.Value, "yes"):
			rep.Banners = append(rep.Banners, fmt.Sprintf("The machine was busy during this run: %s. Other work's noise is in these figures.", kv.Value))
		}
	}
	wide, total := 0, 0
	for _, t := range rep.Tables {
		if t.Exact {
			continue
		}
		w, n := t.Wide(WideBound)
		wide, total = wide+w, total+n
	}
	if total > 0 && float64(wide) > WideShare*float64(total) {
		rep.Banners = append(rep.Banners, fmt.Sprintf("A noisy run: %d of %d cells have a 95 %% interval wider than ±%.0f %% of their median (the bound is %.0f %% of the cells). Ratios the test cannot separate are marked ~.",
			wide, total, 100*WideBound, 100*WideShare))
	}
	rep.twinCheck()
}
