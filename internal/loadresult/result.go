// Package loadresult is the mergeable result of one `loopbench load` run
// (`load -out`) and the merging of N of them (`loopbench merge`): N
// generators against one server, their rates summed and their latencies
// merged as histograms, never as an average of percentiles.
//
// A result is one line of JSON whose first key is "format": a file may
// hold other lines around it (a pod's log, with the generator's table),
// and Read finds the result lines among them. The latency histograms are
// in HdrHistogram's compressed encoding (hdrhistogram-go's Encode, V2
// cookie, base64), which other HdrHistogram tools read.
package loadresult

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loopbench/loopbench/internal/load"
)

// Format names the file format and its version; it is the first key of
// every result line.
const Format = "loopbench-load-result/1"

// Result is one generator's run.
type Result struct {
	Format      string    `json:"format"`
	Name        string    `json:"name"` // the generator (-name; default the host name)
	Label       string    `json:"label"`
	Addr        string    `json:"addr"`
	Conns       int       `json:"conns"`
	SizeBytes   int       `json:"size_bytes"`
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	Requests    int64     `json:"requests"`
	Errors      int64     `json:"errors"`
	OfferedRPS  float64   `json:"offered_rps"`
	AchievedRPS float64   `json:"achieved_rps"`
	Behind      bool      `json:"behind_schedule"`
	Interrupted bool      `json:"interrupted"`
	// CPUCores is the cores the generator kept busy over the run, of
	// CPUs usable (its affinity set).
	CPUCores float64 `json:"generator_cpu_cores"`
	CPUs     int     `json:"generator_cpus"`
	// Histograms of latency in µs, encoded.
	CorrectedUS   string `json:"corrected_hist_us"`
	UncorrectedUS string `json:"uncorrected_hist_us"`

	corrected, uncorrected *hdrhistogram.Histogram
}

// FromReport makes the result of a load run.
func FromReport(rep load.Report, cfg load.Config, name string, cpus int) (Result, error) {
	r := Result{
		Format: Format, Name: name, Label: cfg.Label, Addr: cfg.Addr, Conns: cfg.Conns, SizeBytes: cfg.Size,
		WindowStart: rep.WindowStart.UTC(), WindowEnd: rep.WindowEnd.UTC(),
		Requests: rep.Requests, Errors: rep.Errors, OfferedRPS: rep.Offered, AchievedRPS: rep.Achieved,
		Behind: rep.Behind, Interrupted: rep.Interrupted, CPUCores: rep.Cores(), CPUs: cpus,
		corrected: rep.CorrectedHist, uncorrected: rep.UncorrectedHist,
	}
	for _, h := range []struct {
		h   *hdrhistogram.Histogram
		dst *string
	}{{rep.CorrectedHist, &r.CorrectedUS}, {rep.UncorrectedHist, &r.UncorrectedUS}} {
		if h.h == nil {
			return r, errors.New("loadresult: the report has no histograms")
		}
		b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return r, fmt.Errorf("loadresult: encoding a histogram: %w", err)
		}
		*h.dst = string(b)
	}
	return r, nil
}

// Write writes r as one line.
func (r Result) Write(w io.Writer) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Corrected and Uncorrected are the decoded histograms (µs).
func (r Result) Corrected() *hdrhistogram.Histogram   { return r.corrected }
func (r Result) Uncorrected() *hdrhistogram.Histogram { return r.uncorrected }

// prefix starts every result line.
var prefix = []byte(`{"format":`)

// Read returns the results in a file (name is for errors): every line
// that starts a result object. A file with none, or a result line that
// does not decode (truncated, another format), is an error naming the
// file and line; the results read before it are returned with it.
func Read(name string, rd io.Reader) ([]Result, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var out []Result
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if !bytes.HasPrefix(b, prefix) {
			continue
		}
		r, err := decode(b)
		if err != nil {
			return out, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no loopbench load result in it (write one with load -out)", name)
	}
	return out, nil
}

func decode(b []byte) (Result, error) {
	var r Result
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("not a load result: %v", err)
	}
	switch {
	case r.Format != Format:
		return r, fmt.Errorf("format %q, want %q", r.Format, Format)
	case r.WindowEnd.Before(r.WindowStart):
		return r, fmt.Errorf("window ends (%v) before it starts (%v)", r.WindowEnd, r.WindowStart)
	case r.Requests < 0 || r.Errors < 0:
		return r, errors.New("negative counts")
	}
	var err error
	if r.corrected, err = decodeHist(r.CorrectedUS); err != nil {
		return r, fmt.Errorf("corrected histogram: %w", err)
	}
	if r.uncorrected, err = decodeHist(r.UncorrectedUS); err != nil {
		return r, fmt.Errorf("uncorrected histogram: %w", err)
	}
	return r, nil
}

func decodeHist(s string) (h *hdrhistogram.Histogram, err error) {
	defer func() { // the decoder panics on some malformed input
		if p := recover(); p != nil {
			h, err = nil, fmt.Errorf("malformed: %v", p)
		}
	}()
	if s == "" {
		return nil, errors.New("missing")
	}
	return hdrhistogram.Decode([]byte(s))
}
