package loadresult

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: latencies in nanoseconds, 1 ns to 60 s, three
// significant digits. Histograms merged with a run's must have them.
const (
	HistLowest  = 1
	HistHighest = int64(60 * time.Second)
	HistDigits  = 3
)

// NewHistogram returns a latency histogram as the runs record them: in
// ns, 1 ns to 60 s, 3 significant digits (about 220 KB).
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistLowest, HistHighest, HistDigits)
}

// Percentile is one of the percentiles every output reports: Name as the
// outputs spell it, Quantile in percent (100 is the maximum).
type Percentile struct {
	Name     string
	Quantile float64
}

// Percentiles are the percentiles of every latency measure, in the order
// of every output: tables, JSON keys (Name + "_ns"), benchmark units
// (Name + "-ns").
var Percentiles = []Percentile{{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}, {"max", 100}}

// PercentileNames are the names of Percentiles, in order.
func PercentileNames() []string {
	out := make([]string, len(Percentiles))
	for i, p := range Percentiles {
		out[i] = p.Name
	}
	return out
}

// Latencies are the Percentiles of one latency measure.
type Latencies struct {
	P50, P90, P99, P999, Max time.Duration
}

// fields are l's values in the order of Percentiles.
func (l *Latencies) fields() []*time.Duration {
	return []*time.Duration{&l.P50, &l.P90, &l.P99, &l.P999, &l.Max}
}

// Values are l's values in the order of Percentiles.
func (l Latencies) Values() []time.Duration {
	out := make([]time.Duration, len(Percentiles))
	for i, f := range l.fields() {
		out[i] = *f
	}
	return out
}

// At is l's value at Percentiles[i].
func (l Latencies) At(i int) time.Duration { return *l.fields()[i] }

// Set sets l's value at Percentiles[i] to v.
func (l *Latencies) Set(i int, v time.Duration) { *l.fields()[i] = v }

// LatenciesOf reads the Percentiles of a histogram of nanoseconds; a nil
// histogram has none.
func LatenciesOf(h *hdrhistogram.Histogram) Latencies {
	var l Latencies
	if h == nil {
		return l
	}
	for i, f := range l.fields() {
		if q := Percentiles[i].Quantile; q >= 100 {
			*f = time.Duration(h.Max())
		} else {
			*f = time.Duration(h.ValueAtQuantile(q))
		}
	}
	return l
}

// MarshalJSON writes the percentiles as integer nanoseconds, keyed by
// their names with "_ns", in the order of Percentiles.
func (l Latencies) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range l.Values() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", Percentiles[i].Name+"_ns", int64(v))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes; a key it does not know is
// an error.
func (l *Latencies) UnmarshalJSON(b []byte) error {
	var m map[string]int64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	fields := l.fields()
	for k, v := range m {
		i := percentileIndex(k)
		if i < 0 {
			return fmt.Errorf("latency key %s: want one of %s_ns", strconv.Quote(k), PercentileNames())
		}
		*fields[i] = time.Duration(v)
	}
	return nil
}

// percentileIndex is the index in Percentiles of a JSON key, or -1.
func percentileIndex(key string) int {
	for i, p := range Percentiles {
		if key == p.Name+"_ns" {
			return i
		}
	}
	return -1
}
