package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// synthSweep is a server whose latencies rise past its capacity.
func synthSweep(name string, capacity float64, knee float64, lower bool) SweepSeries {
	s := SweepSeries{Name: name, Knee: knee, LowerBound: lower}
	for r := 1000.0; r <= 64000; r *= 2 {
		base := 80 * time.Microsecond
		if r > capacity {
			base *= time.Duration(1 + 10*r/capacity)
		}
		s.Points = append(s.Points, SweepPoint{Offered: r, Latency: loadresult.Latencies{P50: base, P90: base * 2, P99: base * 4, P999: base * 8, Max: base * 16}})
	}
	return s
}

func TestSweepFigures(t *testing.T) {
	a := synthSweep("loopbench", 16000, 16000, false)
	b := synthSweep("asyncio", 4000, 4000, false)
	c := synthSweep("gonet", 1e9, 64000, true)
	svg, err := SweepFigure("loopbench", a, time.Millisecond)
	if err != nil || !bytes.Contains(svg, []byte("p99.9")) || !bytes.Contains(svg, []byte("knee: 16k req/s")) || !bytes.Contains(svg, []byte("SLO 1ms")) {
		t.Fatalf("SweepFigure: %v\n%.300s", err, svg)
	}
	svg, err = SweepCompare("three", []SweepSeries{a, b, c}, PercentileIndex("p99"), time.Millisecond)
	if err != nil || !bytes.Contains(svg, []byte("asyncio: 4k req/s")) || !bytes.Contains(svg, []byte("gonet: ≥ 64k req/s")) || !bytes.Contains(svg, []byte("corrected p99 (ms)")) {
		t.Fatalf("SweepCompare: %v", err)
	}
	if _, err := SweepCompare("none", []SweepSeries{{Name: "empty"}}, 2, 0); err == nil {
		t.Error("a plot of no latency")
	}
	if _, err := SweepCompare("x", []SweepSeries{a}, 7, 0); err == nil {
		t.Error("percentile 7")
	}
	table := KneeTable([]SweepSeries{a, {Name: "none", KneeNote: "no step met the SLO"}, c}, time.Millisecond)
	for _, want := range []string{"| loopbench | 16000 |", "| none | — | no step met the SLO |", "| gonet | ≥ 64000 |"} {
		if !strings.Contains(table, want) {
			t.Errorf("knee table lacks %q:\n%s", want, table)
		}
	}
}
