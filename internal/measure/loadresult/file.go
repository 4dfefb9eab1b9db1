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
)

// Format names the file format and its version; it is the first key of
// every result line. Version 4 holds the run's series, interval by
// interval; Read reads versions 3 and 2 too. Version 3 held the
// generator's CPU and wall time, its spin, its errors by text and the
// receive lag. Version 1 held histograms in µs.
const Format = "loopbench-load-result/4"

// formatV3 is the version before the series.
const formatV3 = "loopbench-load-result/3"

// formatV2 is the previous version: the generator's cores, not its CPU
// and wall time.
const formatV2 = "loopbench-load-result/2"

// MaxLine bounds a result line: a result is a few kilobytes, and its
// series up to a few hundred bytes an interval.
const MaxLine = 4 << 20

// fileLine is a result as one line of a file: every duration in ns, the
// histograms encoded.
type fileLine struct {
	Format    string `json:"format"`
	Name      string `json:"name"`
	Label     string `json:"label"`
	Addr      string `json:"addr"`
	Conns     int    `json:"conns"`
	SizeBytes int    `json:"size_bytes"`
	// Step is the index of the step in a sweep, nil for a single run;
	// SLONS and MaxErrors are the sweep's criteria.
	Step        *int         `json:"step,omitempty"`
	SLONS       int64        `json:"slo_ns,omitempty"`
	MaxErrors   float64      `json:"max_errors,omitempty"`
	WindowStart time.Time    `json:"window_start"`
	WindowEnd   time.Time    `json:"window_end"`
	ElapsedNS   int64        `json:"elapsed_ns,omitempty"`
	DurationNS  int64        `json:"duration_ns,omitempty"`
	Requests    int64        `json:"requests"`
	Scheduled   int64        `json:"scheduled"`
	Answered    int64        `json:"answered"`
	TimedOut    int64        `json:"timed_out"`
	Unsent      int64        `json:"unsent"`
	Errors      int64        `json:"errors"`
	ErrorTexts  []ErrorCount `json:"error_texts,omitempty"`
	Gone        int64        `json:"gone,omitempty"`
	Expired     int64        `json:"expired,omitempty"`
	Mismatched  int64        `json:"mismatched,omitempty"`
	Overflow    int64        `json:"overflow"`
	OfferedRPS  float64      `json:"offered_rps"`
	AchievedRPS float64      `json:"achieved_rps"`
	Behind      bool         `json:"behind_schedule"`
	Interrupted bool         `json:"interrupted"`
	// CPUNS and WallNS are the generator's CPU and wall time; version 2
	// held CPUCores instead.
	CPUNS        int64   `json:"cpu_ns,omitempty"`
	WallNS       int64   `json:"wall_ns,omitempty"`
	SpinNS       int64   `json:"spin_ns,omitempty"`
	CPUCores     float64 `json:"generator_cpu_cores,omitempty"`
	CPUs         int     `json:"generator_cpus"`
	Loops        int     `json:"generator_loops,omitempty"` // 0: written before loops were counted
	PacingMethod string  `json:"pacing_method"`
	// Histograms of latency in ns, encoded.
	CorrectedNS   string `json:"corrected_hist_ns"`
	UncorrectedNS string `json:"uncorrected_hist_ns"`
	PacingLagNS   string `json:"pacing_lag_hist_ns"`
	ReceiveLagNS  string `json:"receive_lag_hist_ns,omitempty"`
	// Series is the run interval by interval (version 4).
	Series *seriesLine `json:"series,omitempty"`
}

// Write writes r as one line of a result file. It fails when r has no
// corrected, uncorrected or pacing lag histogram.
func (r Result) Write(w io.Writer) error {
	l := fileLine{Format: Format, Name: r.Name, Label: r.Label, Addr: r.Addr, Conns: r.Conns, SizeBytes: r.Size,
		Step: r.Step, SLONS: int64(r.SLO), MaxErrors: r.MaxErrors,
		WindowStart: r.WindowStart.UTC(), WindowEnd: r.WindowEnd.UTC(), ElapsedNS: int64(r.Elapsed), DurationNS: int64(r.Duration),
		Requests: r.Requests, Scheduled: r.Scheduled, Answered: r.Answered, TimedOut: r.TimedOut, Unsent: r.Unsent,
		Errors: r.Errors, ErrorTexts: r.ErrorTexts, Gone: r.Gone, Expired: r.Expired, Mismatched: r.Mismatched, Overflow: r.Overflow,
		OfferedRPS: r.Offered, AchievedRPS: r.Achieved, Behind: r.Behind, Interrupted: r.Interrupted,
		CPUNS: int64(r.CPU), WallNS: int64(r.Wall), SpinNS: int64(r.Spin), CPUs: r.CPUs, Loops: r.Loops, PacingMethod: r.PacingMethod}
	for _, h := range []struct {
		h        *hdrhistogram.Histogram
		dst      *string
		optional bool
	}{{r.CorrectedHist, &l.CorrectedNS, false}, {r.UncorrectedHist, &l.UncorrectedNS, false}, {r.PacingLagHist, &l.PacingLagNS, false}, {r.ReceiveLagHist, &l.ReceiveLagNS, true}} {
		if h.h == nil && h.optional {
			continue
		}
		if h.h == nil {
			return errors.New("loadresult: the result has no histograms")
		}
		s, err := encodeHist(h.h)
		if err != nil {
			return fmt.Errorf("loadresult: encoding a histogram: %w", err)
		}
		*h.dst = s
	}
	var err error
	if l.Series, err = encodeSeries(r.Series); err != nil {
		return err
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ErrNoResult is Read's error for a file without a result line.
var ErrNoResult = errors.New("no loopbench load result in it (write one with load -out)")

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
		return nil, fmt.Errorf("%s: %w", name, ErrNoResult)
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
	var l fileLine
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		var old struct {
			Format string `json:"format"`
		}
		if json.Unmarshal(b, &old) == nil && old.Format != Format && old.Format != formatV3 && old.Format != formatV2 {
			return Result{}, formatError(old.Format)
		}
		return Result{}, fmt.Errorf("not a load result: %v", err)
	}
	if err := l.check(); err != nil {
		return Result{}, err
	}
	r := l.result()
	var err error
	for _, h := range []struct {
		name string
		s    string
		dst  **hdrhistogram.Histogram
	}{{"corrected", l.CorrectedNS, &r.CorrectedHist}, {"uncorrected", l.UncorrectedNS, &r.UncorrectedHist},
		{"pacing lag", l.PacingLagNS, &r.PacingLagHist}, {"receive lag", l.ReceiveLagNS, &r.ReceiveLagHist}} {
		if h.s == "" && h.dst == &r.ReceiveLagHist {
			continue // version 2, or a run without receive timestamps
		}
		if *h.dst, err = decodeHist(h.s); err != nil {
			return r, fmt.Errorf("%s histogram: %w", h.name, err)
		}
	}
	if l.Series != nil {
		if r.Series, err = l.Series.decode(r); err != nil {
			return r, fmt.Errorf("series: %w", err)
		}
	}
	r.Summarize()
	return r, nil
}

// result is the line's result, its histograms not yet decoded. A
// version 2 line holds the generator's cores only: its wall time is read
// as its window's length, and its CPU as the cores over that.
func (l fileLine) result() Result {
	r := Result{Name: l.Name, Label: l.Label, Addr: l.Addr, Conns: l.Conns, Size: l.SizeBytes, CPUs: l.CPUs, Loops: l.Loops, PacingMethod: l.PacingMethod,
		Step: l.Step, SLO: time.Duration(l.SLONS), MaxErrors: l.MaxErrors,
		WindowStart: l.WindowStart, WindowEnd: l.WindowEnd, Elapsed: time.Duration(l.ElapsedNS), Duration: time.Duration(l.DurationNS),
		Interrupted: l.Interrupted, Offered: l.OfferedRPS, Achieved: l.AchievedRPS, Behind: l.Behind,
		Requests: l.Requests, Scheduled: l.Scheduled, Answered: l.Answered, TimedOut: l.TimedOut, Unsent: l.Unsent,
		Errors: l.Errors, ErrorTexts: l.ErrorTexts, Gone: l.Gone, Expired: l.Expired, Mismatched: l.Mismatched, Overflow: l.Overflow,
		CPU: time.Duration(l.CPUNS), Wall: time.Duration(l.WallNS), Spin: time.Duration(l.SpinNS)}
	if l.Format == formatV2 {
		window := l.WindowEnd.Sub(l.WindowStart)
		r.Elapsed, r.Duration, r.Wall = window, window, window
		r.CPU = time.Duration(l.CPUCores * float64(window))
	}
	return r
}

func formatError(format string) error {
	if strings.HasPrefix(format, "loopbench-load-result/") {
		return fmt.Errorf("format %q, want %q (write it again with this loopbench's load -out)", format, Format)
	}
	return fmt.Errorf("format %q, want %q", format, Format)
}

// check rejects the values no load run writes.
func (l fileLine) check() error {
	v3 := l.Format == Format || l.Format == formatV3
	switch {
	case !v3 && l.Format != formatV2:
		return formatError(l.Format)
	case l.Format != Format && l.Series != nil:
		return fmt.Errorf("a series in a %s result, which holds none", l.Format)
	case l.WindowEnd.Before(l.WindowStart):
		return fmt.Errorf("window ends (%v) before it starts (%v)", l.WindowEnd, l.WindowStart)
	case l.Requests < 0 || l.Scheduled < 0 || l.Answered < 0 || l.TimedOut < 0 || l.Unsent < 0 || l.Errors < 0 || l.Gone < 0 || l.Expired < 0 || l.Mismatched < 0 || l.Overflow < 0:
		return errors.New("negative counts")
	case l.Conns < 0 || l.SizeBytes < 0 || l.CPUs < 0 || l.Loops < 0 || l.OfferedRPS < 0 || l.AchievedRPS < 0:
		return errors.New("negative sizes or rates")
	case l.ElapsedNS < 0 || l.DurationNS < 0 || l.CPUNS < 0 || l.WallNS < 0 || l.SpinNS < 0 || l.CPUCores < 0 || l.CPUCores > 1e6:
		return errors.New("negative times or cores")
	case v3 && l.CPUCores != 0:
		return errors.New("generator_cpu_cores in a version 3 or 4 result, which holds cpu_ns and wall_ns")
	case l.Step != nil && (*l.Step < 0 || *l.Step >= MaxSteps):
		return fmt.Errorf("step %d out of a sweep's range", *l.Step)
	case l.SLONS < 0 || l.MaxErrors < 0:
		return errors.New("negative sweep criteria")
	}
	for _, e := range l.ErrorTexts {
		if e.Count < 0 {
			return errors.New("negative error counts")
		}
	}
	return nil
}
