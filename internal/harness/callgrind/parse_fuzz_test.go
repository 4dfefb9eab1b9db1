package callgrind

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FuzzParse parses arbitrary files as callgrind output: never a panic;
// what it accepts has instruction counts, every count finite and not
// negative, and written back as an events
// line and a summary line it parses to the same counts. Seeds: the
// callgrind files in testdata, whole, cut, and with the totals line only.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"batch.100.callgrind", "batch.1100.callgrind"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(bytes.ReplaceAll(b, []byte("summary:"), []byte("#")))
	}
	f.Add([]byte("events: Ir\nsummary: 1e3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(bytes.NewReader(data))
		if err != nil {
			if c != (Counts{}) {
				t.Fatalf("Parse failed (%v) but returned %+v", err, c)
			}
			return
		}
		if c.Ir == 0 {
			t.Fatalf("Parse accepted %+v, without instructions", c)
		}
		for _, v := range []float64{c.Ir, c.Dr, c.Dw, c.I1mr, c.D1mr, c.D1mw, c.ILmr, c.DLmr, c.DLmw, c.SysCount} {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("Parse accepted %+v: a count must be finite and not negative", c)
			}
		}
		out := summaryText(c)
		back, err := Parse(strings.NewReader(out))
		if err != nil || summaryText(back) != out {
			t.Fatalf("%+v written as\n%sparses as %+v, %v", c, out, back, err)
		}
	})
}

// summaryText writes c as a callgrind output's events and summary lines.
func summaryText(c Counts) string {
	var names, values []string
	for _, e := range []struct {
		name string
		v    float64
	}{{"Ir", c.Ir}, {"Dr", c.Dr}, {"Dw", c.Dw}, {"I1mr", c.I1mr}, {"D1mr", c.D1mr}, {"D1mw", c.D1mw},
		{"ILmr", c.ILmr}, {"DLmr", c.DLmr}, {"DLmw", c.DLmw}, {"sysCount", c.SysCount}} {
		names = append(names, e.name)
		values = append(values, strconv.FormatFloat(e.v, 'g', -1, 64))
	}
	return fmt.Sprintf("events: %s\nsummary: %s\n", strings.Join(names, " "), strings.Join(values, " "))
}

// FuzzParseDump reads arbitrary files as a window's dump: never a panic;
// what it accepts has every count finite and not negative, the monitor
// thread's too, and a second read of it alone reads the same.
// Seeds: the recorded windows in testdata, whole, cut, and with sysmon's
// name made another function's.
func FuzzParseDump(f *testing.F) {
	for _, name := range []string{"window.quiet.callgrind", "window.sysmon.callgrind"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(bytes.ReplaceAll(b, []byte("runtime.sysmon"), []byte("runtime.other")))
	}
	f.Add([]byte("events: Ir\nfn=(1) runtime.sysmon\n1 5\ncalls=1 2\n* 7\ntotals: 20\n"))
	f.Add([]byte("events: Ir sysCount\nfn=(2) syscall.Syscall6\n1 5 1\ncfn=(3) internal/runtime/syscall/linux.Syscall6\ncalls=1 2\n* 7 1\nfn=(3)\n2 7 1\ntotals: 12 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseDump(string(data), map[string]string{})
		if err != nil {
			return
		}
		for _, c := range []Counts{d.Counts, d.Sysmon} {
			for _, v := range []float64{c.Ir, c.Dr, c.Dw, c.I1mr, c.D1mr, c.D1mw, c.ILmr, c.DLmr, c.DLmw, c.SysCount} {
				if !(v >= 0) || math.IsInf(v, 0) {
					t.Fatalf("parseDump accepted %+v, sysmon %+v: a count must be finite and not negative", d.Counts, d.Sysmon)
				}
			}
		}
		again, err := parseDump(string(data), map[string]string{})
		if err != nil || again != d {
			t.Fatalf("read again: %+v, %v; first %+v", again, err, d)
		}
	})
}
