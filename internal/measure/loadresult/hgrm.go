package loadresult

import (
	"fmt"
	"io"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// HgrmTicks is the percentile ticks per half distance of a .hgrm file:
// wrk2's and HdrHistogram's default.
const HgrmTicks = 5

// WriteHgrm writes h, a latency histogram in ns, in HdrHistogram's
// percentile-distribution text format (the .hgrm that wrk2 --latency
// prints and HdrHistogram's plotter reads), with values in milliseconds
// as wrk2 gives them.
func WriteHgrm(w io.Writer, h *hdrhistogram.Histogram) error {
	if h == nil || h.TotalCount() == 0 {
		return fmt.Errorf("loadresult: no latency recorded: no histogram to write")
	}
	_, err := h.PercentilesPrint(w, HgrmTicks, 1e6)
	return err
}
