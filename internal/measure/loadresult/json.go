package loadresult

import "time"

// JSON is a result as `loopbench load -format json` and `loopbench
// merge -format json` print it: lower-case keys, every duration in
// integer nanoseconds with "_ns" in its key.
type JSON struct {
	Requests    int64         `json:"requests"`
	Scheduled   int64         `json:"scheduled"`
	Answered    int64         `json:"answered"`
	TimedOut    int64         `json:"timed_out"`
	Unsent      int64         `json:"unsent"`
	Errors      int64         `json:"errors"`
	ErrorTexts  []ErrorCount  `json:"error_texts"`
	ErrorRate   float64       `json:"error_rate"`
	OfferedRPS  float64       `json:"offered_rps"`
	AchievedRPS float64       `json:"achieved_rps"`
	Behind      bool          `json:"behind_schedule"`
	ElapsedNS   int64         `json:"elapsed_ns"`
	Interrupted bool          `json:"interrupted"`
	WindowStart time.Time     `json:"window_start"`
	WindowEnd   time.Time     `json:"window_end"`
	Overflow    int64         `json:"overflow"`
	PacingLag   Latencies     `json:"pacing_lag"`
	Corrected   Latencies     `json:"corrected_latency"`
	Uncorrected Latencies     `json:"uncorrected_latency"`
	Generator   GeneratorJSON `json:"generator"`
}

// GeneratorJSON is what the generator reports about itself: its CPU and
// wall time, the cores it kept busy, its CPU per answered request
// (spinning left out), its spinning, the connections its answered
// requests kept busy on average, and the receive lag.
type GeneratorJSON struct {
	CPUNS           int64     `json:"cpu_ns"`
	WallNS          int64     `json:"wall_ns"`
	Cores           float64   `json:"cpu_cores"`
	CPUPerRequestNS int64     `json:"cpu_per_request_ns"`
	SpinNS          int64     `json:"spin_ns"`
	ConnsBusy       float64   `json:"connections_busy"`
	ReceiveLag      Latencies `json:"receive_lag"`
}

// JSON returns r in its JSON form.
func (r Result) JSON() JSON {
	errs := append([]ErrorCount{}, r.ErrorTexts...)
	return JSON{
		Requests: r.Requests, Scheduled: r.Scheduled, Answered: r.Answered, TimedOut: r.TimedOut, Unsent: r.Unsent,
		Errors: r.Errors, ErrorTexts: errs, ErrorRate: r.ErrorRate(),
		OfferedRPS: r.Offered, AchievedRPS: r.Achieved, Behind: r.Behind,
		ElapsedNS: int64(r.Elapsed), Interrupted: r.Interrupted,
		WindowStart: r.WindowStart.UTC(), WindowEnd: r.WindowEnd.UTC(), Overflow: r.Overflow,
		PacingLag: r.PacingLag, Corrected: r.Corrected, Uncorrected: r.Uncorrected,
		Generator: GeneratorJSON{CPUNS: int64(r.CPU), WallNS: int64(r.Wall), Cores: r.Cores(), CPUPerRequestNS: int64(r.CPUPerRequest()),
			SpinNS: int64(r.Spin), ConnsBusy: r.Concurrency(), ReceiveLag: r.ReceiveLag},
	}
}
