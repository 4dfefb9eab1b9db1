package load

import "time"

// JSONRun is a run as `loopbench load -format json` prints it: lower-case
// keys that carry their unit, durations as Go duration strings, latencies
// in µs with their nanoseconds as decimals.
type JSONRun struct {
	Requests    int64         `json:"requests"`
	Scheduled   int64         `json:"scheduled"`
	Answered    int64         `json:"answered"`
	TimedOut    int64         `json:"timed_out"`
	Unsent      int64         `json:"unsent"`
	Errors      int64         `json:"errors"`
	ErrorTexts  []JSONError   `json:"error_texts"`
	ErrorRate   float64       `json:"error_rate"`
	OfferedRPS  float64       `json:"offered_rps"`
	AchievedRPS float64       `json:"achieved_rps"`
	Behind      bool          `json:"behind_schedule"`
	Elapsed     string        `json:"elapsed"`
	Interrupted bool          `json:"interrupted"`
	WindowStart time.Time     `json:"window_start"`
	WindowEnd   time.Time     `json:"window_end"`
	CPUCores    float64       `json:"generator_cpu_cores"`
	Overflow    int64         `json:"overflow"`
	PacingLag   JSONLatencies `json:"pacing_lag"`
	Corrected   JSONLatencies `json:"corrected_latency"`
	Uncorrected JSONLatencies `json:"uncorrected_latency"`
}

// JSONError is one group of errors.
type JSONError struct {
	Text  string `json:"text"`
	Count int64  `json:"count"`
}

// JSONLatencies are percentiles in µs, to the nanosecond.
type JSONLatencies struct {
	P50  float64 `json:"p50_us"`
	P90  float64 `json:"p90_us"`
	P99  float64 `json:"p99_us"`
	P999 float64 `json:"p99.9_us"`
	Max  float64 `json:"max_us"`
}

// JSONLat converts percentiles to their JSON form.
func JSONLat(l Latencies) JSONLatencies {
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	return JSONLatencies{us(l.P50), us(l.P90), us(l.P99), us(l.P999), us(l.Max)}
}

// JSON returns the run in its JSON form.
func (r Report) JSON() JSONRun {
	errs := make([]JSONError, len(r.ErrorTexts))
	for i, e := range r.ErrorTexts {
		errs[i] = JSONError(e)
	}
	return JSONRun{
		Requests: r.Requests, Scheduled: r.Scheduled, Answered: r.Answered, TimedOut: r.TimedOut, Unsent: r.Unsent,
		Errors: r.Errors, ErrorTexts: errs, ErrorRate: r.ErrorRate(),
		OfferedRPS: r.Offered, AchievedRPS: r.Achieved, Behind: r.Behind,
		Elapsed: r.Elapsed.String(), Interrupted: r.Interrupted,
		WindowStart: r.WindowStart.UTC(), WindowEnd: r.WindowEnd.UTC(),
		CPUCores: r.Cores(), Overflow: r.Overflow, PacingLag: JSONLat(r.PacingLag),
		Corrected: JSONLat(r.Corrected), Uncorrected: JSONLat(r.Uncorrected),
	}
}

// JSONGenerator is what a generator reports about itself beyond JSONRun,
// in load's own JSON output (a merged run has no such figures).
type JSONGenerator struct {
	CPUPerRequestUS float64       `json:"cpu_per_request_us"`
	SpinUS          float64       `json:"spin_us"`
	ConnsBusy       float64       `json:"connections_busy"`
	ReceiveLag      JSONLatencies `json:"receive_lag"`
}

// JSONGenerator returns what the run's generator reports about itself.
func (r Report) JSONGenerator() JSONGenerator {
	return JSONGenerator{CPUPerRequestUS: float64(r.CPUPerRequest()) / 1e3, SpinUS: float64(r.Spin) / 1e3,
		ConnsBusy: r.Concurrency(), ReceiveLag: JSONLat(r.ReceiveLag)}
}
