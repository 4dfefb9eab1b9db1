package load

import "time"

// JSONRun is a run as `loopbench load -format json` prints it: lower-case
// keys that carry their unit, durations as Go duration strings.
type JSONRun struct {
	Requests       int64         `json:"requests"`
	Errors         int64         `json:"errors"`
	ErrorTexts     []JSONError   `json:"error_texts"`
	ErrorRate      float64       `json:"error_rate"`
	OfferedRPS     float64       `json:"offered_rps"`
	AchievedRPS    float64       `json:"achieved_rps"`
	Behind         bool          `json:"behind_schedule"`
	Elapsed        string        `json:"elapsed"`
	Interrupted    bool          `json:"interrupted"`
	WindowStart    time.Time     `json:"window_start"`
	WindowEnd      time.Time     `json:"window_end"`
	CPUCores       float64       `json:"generator_cpu_cores"`
	PacingLagP99US int64         `json:"pacing_lag_p99_us"`
	Corrected      JSONLatencies `json:"corrected_latency"`
	Uncorrected    JSONLatencies `json:"uncorrected_latency"`
}

// JSONError is one group of errors.
type JSONError struct {
	Text  string `json:"text"`
	Count int64  `json:"count"`
}

// JSONLatencies are percentiles in µs.
type JSONLatencies struct {
	P50  int64 `json:"p50_us"`
	P90  int64 `json:"p90_us"`
	P99  int64 `json:"p99_us"`
	P999 int64 `json:"p99.9_us"`
	Max  int64 `json:"max_us"`
}

// JSONLat converts percentiles to their JSON form.
func JSONLat(l Latencies) JSONLatencies {
	return JSONLatencies{l.P50.Microseconds(), l.P90.Microseconds(), l.P99.Microseconds(), l.P999.Microseconds(), l.Max.Microseconds()}
}

// JSON returns the run in its JSON form.
func (r Report) JSON() JSONRun {
	errs := make([]JSONError, len(r.ErrorTexts))
	for i, e := range r.ErrorTexts {
		errs[i] = JSONError(e)
	}
	return JSONRun{
		Requests: r.Requests, Errors: r.Errors, ErrorTexts: errs, ErrorRate: r.ErrorRate(),
		OfferedRPS: r.Offered, AchievedRPS: r.Achieved, Behind: r.Behind,
		Elapsed: r.Elapsed.String(), Interrupted: r.Interrupted,
		WindowStart: r.WindowStart.UTC(), WindowEnd: r.WindowEnd.UTC(),
		CPUCores: r.Cores(), PacingLagP99US: r.PacingLagP99.Microseconds(),
		Corrected: JSONLat(r.Corrected), Uncorrected: JSONLat(r.Uncorrected),
	}
}
