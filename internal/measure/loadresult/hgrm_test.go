package loadresult

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readHgrm reads a .hgrm's rows: value (ms) and percentile, in order.
func readHgrm(t *testing.T, text string) (values, pcts []float64, total int64) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 4 && f[0] != "Value":
			v, err1 := strconv.ParseFloat(f[0], 64)
			p, err2 := strconv.ParseFloat(f[1], 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("row %q does not parse", sc.Text())
			}
			values, pcts = append(values, v), append(pcts, p)
		case strings.HasPrefix(sc.Text(), "#[Max"):
			n, err := strconv.ParseInt(strings.TrimSuffix(f[len(f)-1], "]"), 10, 64)
			if err != nil {
				t.Fatalf("footer %q does not parse", sc.Text())
			}
			total = n
		}
	}
	return values, pcts, total
}

// TestHgrmMatchesPercentiles writes a histogram of seeded latencies and
// reads it back: each reported percentile's value lies between the rows
// around its percentile, the last row is the maximum, and the footer has
// the count.
func TestHgrmMatchesPercentiles(t *testing.T) {
	h := NewHistogram()
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		h.RecordValue(int64(50*time.Microsecond) + int64(r.ExpFloat64()*float64(200*time.Microsecond)))
	}
	var buf bytes.Buffer
	if err := WriteHgrm(&buf, h); err != nil {
		t.Fatal(err)
	}
	values, pcts, total := readHgrm(t, buf.String())
	if total != 100000 || len(values) < 50 {
		t.Fatalf("%d rows, total %d; want many rows and 100000", len(values), total)
	}
	for _, q := range []float64{50, 90, 99, 99.9, 100} {
		want := float64(h.ValueAtQuantile(q)) / 1e6
		i := 0
		for i < len(pcts)-1 && pcts[i] < q/100 {
			i++
		}
		lo := values[max(i-1, 0)]
		if pcts[i] == q/100 {
			lo = values[i]
		}
		const eps = 0.0005 // the file's 3 decimals
		if lo > want+eps || values[i] < want-eps {
			t.Errorf("p%v = %.3f ms is not between the rows around it: %.3f ms at %v and %.3f ms at %v", q, want, lo, pcts[max(i-1, 0)], values[i], pcts[i])
		}
	}
	if err := WriteHgrm(&buf, NewHistogram()); err == nil {
		t.Error("an empty histogram was written")
	}
}
