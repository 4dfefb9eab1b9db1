package report

import (
	"bytes"
	"testing"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// TestLoadSpectrumClosedLoop: a closed loop's percentile spectrum is one
// series; an open loop's has corrected and uncorrected.
func TestLoadSpectrumClosedLoop(t *testing.T) {
	h := loadresult.NewHistogram()
	for i := range 1000 {
		h.RecordValue(int64(1000 + i))
	}
	rep := loadresult.Result{CorrectedHist: h, UncorrectedHist: h}
	for _, openLoop := range []bool{false, true} {
		svg, err := LoadSpectrum("x", openLoop, []loadresult.Result{rep})
		if err != nil {
			t.Fatal(err)
		}
		if open := bytes.Contains(svg, []byte("uncorrected")); open != openLoop || !openLoop && !bytes.Contains(svg, []byte("round trip")) {
			t.Errorf("open loop %v: the spectrum draws uncorrected: %v", openLoop, open)
		}
	}
}
