// Package loadresult is the mergeable result of one `loopbench load` run
// (`load -out`) and the merging of N of them (`loopbench merge`): N
// generators against one server, their rates summed and their latencies
// merged as histograms, never as an average of percentiles; a sweep
// (`load -sweep -out`) is a result per step, merged step by step.
//
// A result is one line of JSON whose first key is "format": a file may
// hold other lines around it (a pod's log, with the generator's table),
// and Read finds the result lines among them. The latency histograms are
// in nanoseconds, in HdrHistogram's compressed encoding (hdrhistogram-go's
// Encode, V2 cookie, base64), which other HdrHistogram tools read. Files
// come from other hosts: Read checks what it decodes and turns corrupt or
// hostile input into an error naming the file and line, never a panic or
// an allocation its input sizes.
package loadresult

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loopbench/loopbench/internal/load"
)

// Format names the file format and its version; it is the first key of
// every result line. Version 1 held histograms in µs.
const Format = "loopbench-load-result/2"

// MaxLine bounds a result line: a result is a few kilobytes.
const MaxLine = 1 << 20

// Result is one generator's run, or one step of its sweep.
type Result struct {
	Format    string `json:"format"`
	Name      string `json:"name"` // the generator (-name; default the host name)
	Label     string `json:"label"`
	Addr      string `json:"addr"`
	Conns     int    `json:"conns"`
	SizeBytes int    `json:"size_bytes"`
	// Step is the index of the step in a sweep, nil for a single run;
	// SLONS and MaxErrors are the sweep's criteria.
	Step        *int      `json:"step,omitempty"`
	SLONS       int64     `json:"slo_ns,omitempty"`
	MaxErrors   float64   `json:"max_errors,omitempty"`
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	Requests    int64     `json:"requests"` // answers that arrived in the window
	// The window's requests: answered, timed out, unsent, failed.
	Scheduled   int64   `json:"scheduled"`
	Answered    int64   `json:"answered"`
	TimedOut    int64   `json:"timed_out"`
	Unsent      int64   `json:"unsent"`
	Errors      int64   `json:"errors"`
	Overflow    int64   `json:"overflow"`
	OfferedRPS  float64 `json:"offered_rps"`
	AchievedRPS float64 `json:"achieved_rps"`
	Behind      bool    `json:"behind_schedule"`
	Interrupted bool    `json:"interrupted"`
	// CPUCores is the cores the generator kept busy over the run, of
	// CPUs usable (its affinity set).
	CPUCores     float64 `json:"generator_cpu_cores"`
	CPUs         int     `json:"generator_cpus"`
	PacingMethod string  `json:"pacing_method"`
	// Histograms of latency in ns, encoded.
	CorrectedNS   string `json:"corrected_hist_ns"`
	UncorrectedNS string `json:"uncorrected_hist_ns"`
	PacingLagNS   string `json:"pacing_lag_hist_ns"`

	corrected, uncorrected, lag *hdrhistogram.Histogram
}

// FromReport makes the result of a load run.
func FromReport(rep load.Report, cfg load.Config, name string, cpus int) (Result, error) {
	r := Result{
		Format: Format, Name: name, Label: cfg.Label, Addr: cfg.Addr, Conns: cfg.Conns, SizeBytes: cfg.Size,
		WindowStart: rep.WindowStart.UTC(), WindowEnd: rep.WindowEnd.UTC(), Requests: rep.Requests,
		Scheduled: rep.Scheduled, Answered: rep.Answered, TimedOut: rep.TimedOut, Unsent: rep.Unsent, Errors: rep.Errors, Overflow: rep.Overflow,
		OfferedRPS: rep.Offered, AchievedRPS: rep.Achieved, Behind: rep.Behind, Interrupted: rep.Interrupted,
		CPUCores: rep.Cores(), CPUs: cpus, PacingMethod: load.PacingMethod,
		corrected: rep.CorrectedHist, uncorrected: rep.UncorrectedHist, lag: rep.PacingLagHist,
	}
	for _, h := range []struct {
		h   *hdrhistogram.Histogram
		dst *string
	}{{rep.CorrectedHist, &r.CorrectedNS}, {rep.UncorrectedHist, &r.UncorrectedNS}, {rep.PacingLagHist, &r.PacingLagNS}} {
		if h.h == nil {
			return r, errors.New("loadresult: the report has no histograms")
		}
		s, err := encodeHist(h.h)
		if err != nil {
			return r, fmt.Errorf("loadresult: encoding a histogram: %w", err)
		}
		*h.dst = s
	}
	return r, nil
}

// AsStep marks r as step i of a sweep judged by slo and maxErrors.
func (r Result) AsStep(i int, slo time.Duration, maxErrors float64) Result {
	r.Step, r.SLONS, r.MaxErrors = &i, int64(slo), maxErrors
	return r
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

// Corrected, Uncorrected and PacingLag are the decoded histograms (ns).
func (r Result) Corrected() *hdrhistogram.Histogram   { return r.corrected }
func (r Result) Uncorrected() *hdrhistogram.Histogram { return r.uncorrected }
func (r Result) PacingLag() *hdrhistogram.Histogram   { return r.lag }

// CPUBound reports whether the generator kept its CPUs busy.
func (r Result) CPUBound() bool {
	return r.CPUs > 0 && r.CPUCores >= load.CPUBound*float64(r.CPUs)
}

// prefix starts every result line.
var prefix = []byte(`{"format":`)

// Read returns the results in a file (name is for errors): every line
// that starts a result object. A file with none, or a result line that
// does not decode (truncated, another format, a bad histogram, longer
// than MaxLine), is an error naming the file and line; the results read
// before it are returned with it. Other lines may be of any length.
func Read(name string, rd io.Reader) ([]Result, error) {
	br := bufio.NewReaderSize(rd, 64*1024)
	var out []Result
	for line := 1; ; line++ {
		b, long, err := readLine(br)
		if t := bytes.TrimSpace(b); bytes.HasPrefix(t, prefix) {
			if long {
				return out, fmt.Errorf("%s:%d: a result line longer than %d bytes", name, line, MaxLine)
			}
			r, derr := decode(t)
			if derr != nil {
				return out, fmt.Errorf("%s:%d: %w", name, line, derr)
			}
			out = append(out, r)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w", name, err)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no loopbench load result in it (write one with load -out)", name)
	}
	return out, nil
}

// readLine returns the next line's first MaxLine bytes, whether it was
// longer, and io.EOF with the last line.
func readLine(br *bufio.Reader) (line []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if room := MaxLine - len(line); len(chunk) > room {
			long = true
			chunk = chunk[:room]
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return line, long, err
		}
	}
}

func decode(b []byte) (Result, error) {
	var r Result
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		var old struct {
			Format string `json:"format"`
		}
		if json.Unmarshal(b, &old) == nil && old.Format != Format {
			return r, formatError(old.Format)
		}
		return r, fmt.Errorf("not a load result: %v", err)
	}
	if err := r.check(); err != nil {
		return r, err
	}
	var err error
	for _, h := range []struct {
		name string
		s    string
		dst  **hdrhistogram.Histogram
	}{{"corrected", r.CorrectedNS, &r.corrected}, {"uncorrected", r.UncorrectedNS, &r.uncorrected}, {"pacing lag", r.PacingLagNS, &r.lag}} {
		if *h.dst, err = decodeHist(h.s); err != nil {
			return r, fmt.Errorf("%s histogram: %w", h.name, err)
		}
	}
	return r, nil
}

func formatError(format string) error {
	if strings.HasPrefix(format, "loopbench-load-result/") {
		return fmt.Errorf("format %q, want %q (write it again with this loopbench's load -out)", format, Format)
	}
	return fmt.Errorf("format %q, want %q", format, Format)
}

// check rejects the values no load run writes.
func (r Result) check() error {
	switch {
	case r.Format != Format:
		return formatError(r.Format)
	case r.WindowEnd.Before(r.WindowStart):
		return fmt.Errorf("window ends (%v) before it starts (%v)", r.WindowEnd, r.WindowStart)
	case r.Requests < 0 || r.Scheduled < 0 || r.Answered < 0 || r.TimedOut < 0 || r.Unsent < 0 || r.Errors < 0 || r.Overflow < 0:
		return errors.New("negative counts")
	case r.Conns < 0 || r.SizeBytes < 0 || r.CPUs < 0 || r.CPUCores < 0 || r.OfferedRPS < 0 || r.AchievedRPS < 0:
		return errors.New("negative sizes or rates")
	case r.Step != nil && (*r.Step < 0 || *r.Step >= load.MaxSweepSteps):
		return fmt.Errorf("step %d out of a sweep's range", *r.Step)
	case r.SLONS < 0 || r.MaxErrors < 0:
		return errors.New("negative sweep criteria")
	}
	return nil
}
