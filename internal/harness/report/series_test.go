package report

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// synthSeries is a run of n intervals of a second, its latency rising
// with i, errors in interval errAt.
func synthSeries(n, errAt int) *loadresult.Series {
	s := &loadresult.Series{Interval: time.Second, Window: time.Duration(n) * time.Second, Points: make([]loadresult.Point, n)}
	for i := range s.Points {
		h := loadresult.NewSeriesHistogram()
		for k := range 100 {
			h.RecordValue(int64((k + 1) * (i + 1) * 1000))
		}
		s.Points[i] = loadresult.Point{Answered: 100, Hist: h}
	}
	s.Points[errAt].Errors = 7
	return s
}

// TestSeriesFigure: one row per run, each a throughput panel and a
// latency panel under the run's title; the legend names the measures
// once; a run without a series is left out, and none at all is an error.
func TestSeriesFigure(t *testing.T) {
	var runs []SeriesRun
	for k := range 3 {
		runs = append(runs, SeriesRun{Title: fmt.Sprintf("step %d", k+1), Series: synthSeries(5, k)})
	}
	runs = append(runs, SeriesRun{Title: "step 4"})
	svg, err := SeriesFigure("sweep over time", runs)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 3; k++ {
		for _, panel := range []string{"throughput", "corrected latency"} {
			if n := bytes.Count(svg, []byte(fmt.Sprintf(">step %d: %s<", k, panel))); n != 1 {
				t.Errorf("step %d's %s panel drawn %d times", k, panel, n)
			}
		}
	}
	if bytes.Contains(svg, []byte("step 4")) {
		t.Error("a run without a series has a panel")
	}
	for _, want := range []string{"answered a second", "corrected p50", "corrected p99", "corrected max", "errors a second"} {
		if n := bytes.Count(svg, []byte(">"+want)); n != 1 {
			t.Errorf("legend entry %q %d times", want, n)
		}
	}
	if _, err := SeriesFigure("none", []SeriesRun{{Title: "x"}}); err == nil {
		t.Error("a figure of no series")
	}
}
