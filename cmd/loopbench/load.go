package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/loadresult"
	"github.com/loopbench/loopbench/internal/harness/report"
	"github.com/loopbench/loopbench/internal/sys/cpu"
)

const loadUsage = `usage: loopbench load -addr host:port [flags]
       loopbench load -url http://host:port/path [flags]

Sends request/response round trips of -size bytes over -conns TCP
connections (-udp: datagrams over connected UDP sockets) to an echo
server (loopbench serve, gonet, or any other). With -proto http (or
-url) the requests are HTTP/1.1 over keep-alive connections (-method,
-path, -header, -body; https:// and -tls for HTTPS), one in flight per
connection as wrk2 sends them, and each response is read by its framing
(Content-Length, chunked, or to the close); a status outside 2xx is an
error named by its code, and a closed connection is dialled again. With
-rate R it keeps a fixed schedule of R requests per second and measures
latency from each request's intended send time (coordinated omission
corrected, as wrk2), with the uncorrected figure next to it; -rate 0 is a
closed loop. Prints percentiles, achieved vs offered rate, errors grouped
by text, and what the generator reports about itself: its CPU per
answered request, how late it sent (pacing lag) and how late it read
the answers that had arrived (receive lag; Linux, without -tls).

The generator runs on loopbench's own event loop, as wrk2 runs on ae: one
loop per CPU of -cpu (one loop when -cpu is not given), each on its own
thread pinned to its CPU, the connections dealt among them. A loop owns
its connections, their schedule, histograms and counters, with no lock
and no goroutine per connection: a send is one non-blocking write, the
answer comes through a reader callback, and the next send time and each
timeout are loop timers. -spin D makes a loop whose next send (in the
schedule, even while its connection awaits an answer) is less than D
away poll with a zero timeout instead of sleeping: sends within
microseconds of their time, at the cost of a CPU kept busy while it
waits. The polls that found nothing to do are reported as spin and left
out of the CPU-bound verdict. A spin helps only where it is longer than
the machine's wake-up lateness (peers' Wakeup lines); with D at least the
interval between a loop's sends it never sleeps. Give a spinning
generator a CPU of its own.

After a stall (of the server or the generator) the schedule is not
moved: every request whose time has passed is sent at once, as each
connection becomes free, in a burst as fast as the connections allow.
That catch-up is what the corrected latency measures, and it is not
smoothed; a server that recovers slowly sees it as a spike of load.

What is counted: requests are sent for -warmup and then -duration. The
latencies are those of the requests scheduled in the -duration window
(sent in it, in closed loop), each recorded once: answered, whenever the
answer comes; timed out (an error, recorded at its time to the timeout,
at least -timeout); or still unsent when the window closed because its
connection was busy (recorded at its lateness then, and counted). Other
failures are errors, not latencies; errors are the window's only. The
achieved rate counts the answers that arrived in the window, whenever
their requests were scheduled (under overload, the server's rate). No
request is sent after the window, and each has -timeout from its send:
a stalled server ends the run by the window's end plus -timeout.

Over time: -out also holds the window cut into -interval intervals
(1s; 10ms to -duration), each with its requests answered, its errors and
their corrected latencies, a request counting in the interval it was
scheduled in (sent in, in closed loop), so the intervals add up to the
run; -report draws them (series.svg: throughput, errors, corrected p50,
p99 and max over time, a row per run or step).

-sweep SPEC runs one open-loop run (with its warmup) per rate, rising:
a list (2000,4000,8000) or geometric steps (2000:400000:x1.4). It stops
after the server fell behind on two steps in a row (achieved below 99 %
of offered, or corrected p99 over -slo) or when a step's errors pass
-max-errors, and reports the knee: the highest offered rate met within
the SLO among the steps the generator did not limit, below the first
where it was CPU-bound (90 % of the CPUs its loops can use, spinning
left out; a loop runs on one thread, so that is the number of loops, at
most the usable CPUs): its ceiling. A step where it was late (pacing
lag p99 over a tenth of -slo) or connection-bound (achieved rate times mean uncorrected latency at
90 % of -conns or more, the rate behind and the server answering within
twice its first step's p50: more connections would have sent more) is
left out, neither met nor failed, and the steps after it still count;
the knee is a lower bound when such a step, or the ceiling, comes before
the server's next failure. A step the generator was late in (and not
CPU-bound) is measured once more before it is left out, except with
-start-at. A run or a step is
behind when it achieved less than 99 % of the rate offered. With
-start-at, step k starts at -start-at plus k times (warmup + duration +
timeout + 0.5 s), so N generators given the same flags step together and
'loopbench merge' merges their sweeps step by step. Ctrl-C in a sweep
leaves the step it came in out of the outputs and the knee.

A run without -sweep is judged against -slo only when it is given: its
corrected p99 (the sweep's SLO measure) over -slo fails it (exit 1), and
one line says which; within it, one line says so; without -slo, one
line says it was not judged against one. An open-loop run that achieved
less than 90 % of its offered rate fell far behind: it fails (exit 1),
one line giving the achieved rate, the unsent requests and what limited
it (the server going away, the generator's CPU, the connections, the
generator sending late, or else the server).

The output counts the window's requests once: intended = answered +
timed out + failed otherwise + unsent (timeouts are errors too). A
request whose answer does not match it, or a run that no answer came
back in, fails with a line that says load speaks loopbench's echo
protocol (the server sends each request's bytes back), which an HTTP
or other server does not.

Exit status: 0 when requests completed and errors stayed within
-max-errors, and the corrected p99 within -slo when given (a sweep: when
it ran); 1 when nothing completed, errors passed -max-errors, a run's
corrected p99 passed -slo, a run fell far behind (below 90 % of its
offered rate), a -tls handshake failed (one line naming why; an
unverified certificate names -ca and -insecure), or the run was
interrupted (Ctrl-C: the output says "interrupted after X of Y" and the
benchfmt output carries it as a config line); 2 a usage error, or an
-out or -report path that cannot be written (checked before measuring).

Examples:
  loopbench load -addr 127.0.0.1:9000 -conns 10 -rate 20000 -duration 10s
  loopbench load -addr 127.0.0.1:9000 -count 10 -format benchfmt > load.txt
  loopbench load -url http://127.0.0.1:8080/index.html -conns 10 -rate 5000
  loopbench load -addr 127.0.0.1:9000 -conns 10 -sweep 2000:400000:x1.4 -slo 1ms -report sweep/
  loopbench load -addr server:9000 -rate 20000 -start-at 2026-11-23T10:00:00Z -out gen1.json
  loopbench merge gen1.json gen2.json gen3.json

Flags:
`

// defaultSLO is a sweep's -slo when none is given.
const defaultSLO = time.Millisecond

type loadFlags struct {
	cfg       load.Config
	format    string
	cpus      string
	count     int
	maxErrors string
	maxErr    float64
	reportDir string
	hgrm      string // -hgrm: the corrected histogram's .hgrm file
	out       string // -out: the mergeable result ("-": stdout)
	name      string // -name
	startAt   string // -start-at, as given
	sweep     string // -sweep, as given
	rates     []float64
	slo       time.Duration
	sloSet    bool   // -slo was given: a single run is judged against it
	tlsLine   string // what -tls dials with, for the output
	udp       bool   // -udp
}

func parseLoad(args []string, stderr io.Writer) (loadFlags, error) {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, loadUsage); fs.PrintDefaults() }
	var f loadFlags
	c := &f.cfg
	fs.StringVar(&c.Addr, "addr", "", "address of the server (required, unless -url)")
	fs.StringVar(&c.Label, "label", "", "names the run in benchfmt and JSON output (default: the address)")
	fs.IntVar(&c.Conns, "conns", 10, "connections")
	fs.IntVar(&c.Size, "size", 1024, "message size in bytes (at least 8)")
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "the measured window (of each step, with -sweep)")
	fs.DurationVar(&c.Warmup, "warmup", time.Second, "sending before the window")
	fs.DurationVar(&c.Timeout, "timeout", load.DefaultTimeout, "per-request timeout")
	fs.Float64Var(&c.Rate, "rate", 0, "requests per second over all connections; 0 = closed loop")
	fs.Int64Var(&c.Requests, "requests", 0, "stop after this many of the window's requests are answered (0: no limit)")
	fs.IntVar(&f.count, "count", 1, "runs, one after the other, into one output")
	fs.StringVar(&f.maxErrors, "max-errors", "1%", "the error rate above which the run fails (exit 1) or the sweep stops")
	fs.StringVar(&f.format, "format", "table", "output: table, benchfmt or json")
	fs.StringVar(&f.cpus, "cpu", "", "pin the generator to these CPUs (e.g. 1 or 2-3), one loop on each")
	fs.DurationVar(&c.Spin, "spin", 0, "poll instead of sleeping when the next send is less than this away (0: off; costs a busy CPU)")
	fs.StringVar(&f.reportDir, "report", "", "write the latency percentile spectrum (latency.svg), or the sweep's plot (sweep.svg), and the run or each step over time (series.svg) to this directory")
	fs.DurationVar(&c.Interval, "interval", load.DefaultInterval, "the intervals of the series over time that -out holds and -report draws: 10ms to the -duration, at most 3600 of them; by default longer for a -duration over 10 minutes (600 intervals)")
	fs.StringVar(&f.hgrm, "hgrm", "", "write the corrected latency histogram (the runs' merged) to this file in HdrHistogram's percentile-distribution format (.hgrm, in ms, as wrk2 --latency prints it)")
	fs.StringVar(&f.out, "out", "", "write the mergeable result (histograms, window, counts, CPU) to this file, one JSON line (a line per step with -sweep); - for stdout, after the table (see loopbench merge)")
	fs.StringVar(&f.name, "name", "", "names this generator in -out (default: the host name)")
	fs.StringVar(&f.startAt, "start-at", "", "start sending at this wall-clock instant (RFC 3339), connections opened before: give N generators the same one")
	fs.BoolVar(&f.udp, "udp", false, "send each request as one datagram over UDP (a connected socket per connection; a lost datagram is a timeout)")
	tlsf := addLoadTLSFlags(fs)
	httpf := addLoadHTTPFlags(fs)
	fs.StringVar(&f.sweep, "sweep", "", "open-loop steps of rising rate: 2000,4000,8000 or 2000:400000:x1.4 (see above)")
	fs.DurationVar(&f.slo, "slo", 0, "the corrected p99 a sweep's step must stay within (default 1ms with -sweep); a run without -sweep is judged against it only when given")
	if err := parseFlags(fs, args, stderr); err != nil {
		return f, err
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if !set["interval"] {
		c.Interval = 0 // load's default: a second, at most the window, at most load.DefaultIntervals of them
	}
	if err := httpf.apply(&f, tlsf, set); err != nil {
		return f, err
	}
	if err := tlsf.apply(&f); err != nil {
		return f, err
	}
	if err := f.check(set); err != nil {
		return f, err
	}
	if f.name == "" {
		f.name, _ = os.Hostname()
	}
	if c.Label == "" {
		c.Label = c.Addr
	}
	return f, nil
}

// check validates the flags after parsing; set holds the ones given.
func (f *loadFlags) check(set map[string]bool) error {
	c := &f.cfg
	switch {
	case c.Addr == "":
		return usageError{"-addr (or -url) is required"}
	case f.format != "table" && f.format != "benchfmt" && f.format != "json":
		return usageError{fmt.Sprintf("-format %q: want table, benchfmt or json", f.format)}
	case f.count < 1:
		return usageError{fmt.Sprintf("-count %d: want at least 1", f.count)}
	case c.Timeout == 0:
		return usageError{"-timeout 0s: want a positive duration"}
	}
	if f.udp {
		c.Network = "udp"
		if c.Label == "" {
			c.Label = "udp:" + c.Addr // never merged with TCP runs
		}
	}
	if err := c.Validate(); err != nil {
		return usageError{err.Error()}
	}
	e, err := parseEffect(f.maxErrors)
	if err != nil || e >= 1 {
		return usageError{fmt.Sprintf("-max-errors %q: want a percentage below 100%%, such as 1%%", f.maxErrors)}
	}
	f.maxErr = e
	if f.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, f.startAt)
		if err != nil {
			return usageError{fmt.Sprintf("-start-at %q: want an RFC 3339 time such as 2026-11-23T10:00:00Z", f.startAt)}
		}
		c.StartAt = t
	}
	if f.hgrm != "" && f.sweep != "" {
		return usageError{"-hgrm holds one run's histogram: not with -sweep (its -out has each step's)"}
	}
	if f.out != "" && f.count > 1 {
		return usageError{"-out holds one run: use -count 1 (run N generators side by side and merge them instead)"}
	}
	return f.checkSweep(set)
}

func (f *loadFlags) checkSweep(set map[string]bool) error {
	f.sloSet = set["slo"]
	if !f.sloSet {
		f.slo = defaultSLO
	}
	if f.slo <= 0 {
		return usageError{fmt.Sprintf("-slo %v: want a positive duration", f.slo)}
	}
	if f.sweep == "" {
		return nil
	}
	for _, other := range []string{"rate", "count", "requests"} {
		if set[other] {
			return usageError{fmt.Sprintf("-%s does not go with -sweep: the sweep sets each step's rate and runs each once", other)}
		}
	}
	rates, err := load.ParseRates(f.sweep)
	if err != nil {
		return usageError{err.Error()}
	}
	f.rates = rates
	return nil
}

func runLoad(args []string, stdout, stderr io.Writer) error {
	f, err := parseLoad(args, stderr)
	if err != nil {
		return err
	}
	if err := pin(f.cpus); err != nil {
		return err
	}
	if f.cpus != "" {
		f.cfg.CPUs, _ = cpu.Parse(f.cpus) // pin parsed it
	}
	outs, err := openOutputs(f)
	if err != nil {
		return err
	}
	defer outs.abandon()
	if f.hgrm != "" { // checked before measuring
		if err := os.WriteFile(f.hgrm, nil, 0o644); err != nil {
			return usageError{fmt.Sprintf("-hgrm: %v", err)}
		}
	}
	if f.rates != nil {
		return runSweep(f, outs, stdout, stderr)
	}
	ctx, stop := interruptContext(measuring)
	defer stop()
	var reps []loadresult.Result
	for range f.count {
		rep, err := load.Run(ctx, f.cfg)
		if err != nil {
			if len(reps) > 0 {
				writeLoad(stdout, stderr, f, reps)
			}
			return tlsFailure(f, err)
		}
		rep.CPUs = generatorCPUs()
		reps = append(reps, rep)
		warnLoad(stderr, rep, f.cpus != "")
		if rep.Interrupted || ctx.Err() != nil {
			break
		}
	}
	if err := writeLoad(stdout, stderr, f, reps); err != nil {
		return err
	}
	if f.out != "" && len(reps) > 0 {
		if err := outs.write(stdout, []loadresult.Result{f.named(reps[0])}); err != nil {
			return err
		}
	}
	if err := writeLoadReport(f, reps, stderr); err != nil {
		return err
	}
	if err := writeHgrm(f.hgrm, reps, stderr); err != nil {
		return err
	}
	if err := loadVerdict(f, reps); err != nil {
		return err
	}
	return sloVerdict(f, reps, stderr)
}

// writeSpectrum draws the runs' corrected and uncorrected latency as a
// percentile spectrum, from their merged histograms; in closed loop, where
// the two are one measure, one series.
func writeSpectrum(dir string, cfg load.Config, reps []loadresult.Result) error {
	type measure struct {
		name string
		h    func(loadresult.Result) *hdrhistogram.Histogram
	}
	measures := []measure{{"round trip", func(r loadresult.Result) *hdrhistogram.Histogram { return r.CorrectedHist }}}
	if cfg.Rate > 0 {
		measures = []measure{
			{"corrected (from the intended send)", func(r loadresult.Result) *hdrhistogram.Histogram { return r.CorrectedHist }},
			{"uncorrected (from the actual send)", func(r loadresult.Result) *hdrhistogram.Histogram { return r.UncorrectedHist }},
		}
	}
	var series []report.SpectrumSeries
	for _, m := range measures {
		merged := loadresult.NewHistogram()
		for _, r := range reps {
			if h := m.h(r); h != nil {
				merged.Merge(h)
			}
		}
		series = append(series, report.SpectrumSeries{Name: m.name, Points: spectrumPoints(merged)})
	}
	title := fmt.Sprintf("%s: %d conns, %d bytes, %s", cfg.Label, cfg.Conns, cfg.Size, rateName(cfg.Rate))
	svg, err := report.Spectrum(title, series)
	if err != nil {
		return fmt.Errorf("-report: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "latency.svg"), svg, 0o644)
}

func rateName(r float64) string {
	if r == 0 {
		return "closed loop"
	}
	return fmt.Sprintf("%.0f req/s offered", r)
}

// spectrumPoints reads a histogram (in ns) at quantiles spaced evenly on
// the spectrum's axis, ten a decade of 1/(1-q), up to what its count
// resolves.
func spectrumPoints(h *hdrhistogram.Histogram) []report.SpectrumPoint {
	var pts []report.SpectrumPoint
	n := float64(h.TotalCount())
	for k := 0; ; k++ {
		x := math.Pow(10, float64(k)/10)
		if x > n {
			break
		}
		q := 1 - 1/x
		pts = append(pts, report.SpectrumPoint{Quantile: q, Latency: time.Duration(h.ValueAtQuantile(100 * q))})
	}
	return pts
}

// named is a run's result as -out writes it: named by -name, with the
// CPUs this process may use.
func (f loadFlags) named(r loadresult.Result) loadresult.Result {
	r.Name, r.CPUs = f.name, generatorCPUs()
	return r
}

// generatorCPUs is the CPUs this process may use.
func generatorCPUs() int {
	cpus := runtime.GOMAXPROCS(0)
	if allowed, err := cpu.Allowed(); err == nil && len(allowed) > 0 {
		cpus = min(cpus, len(allowed))
	}
	return cpus
}

// pin restricts the process to the CPUs of list (-cpu), and sets
// GOMAXPROCS to one more than their number. A loop waits in its
// selector's system call; Go's monitor thread takes the P of a thread in
// a system call, waking another thread to look for work, unless another
// P is idle. Left alone, GOMAXPROCS follows the affinity down to the
// pinned CPUs (Go 1.25 and later), and with one CPU every wait of the
// loop costs that hand-off and a wake-up on return: the one spare P
// keeps the loop's P its own.
func pin(list string) error {
	if list == "" {
		return nil
	}
	cpus, err := cpu.Parse(list)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := cpu.Check(cpus); err != nil {
		return usageError{fmt.Sprintf("-cpu %s: %v", list, err)}
	}
	return pinSpare(cpus)
}

// pinSpare pins the process to cpus and sets GOMAXPROCS to one more
// than their number (pin).
func pinSpare(cpus []int) error {
	if err := cpu.Pin(cpus); err != nil {
		return err
	}
	runtime.GOMAXPROCS(len(cpus) + 1)
	return nil
}

// writeLoad writes the runs in -format, after the TLS line (the runs
// made their handshakes).
func writeLoad(w, stderr io.Writer, f loadFlags, reps []loadresult.Result) error {
	writeTLSLine(f, w, stderr)
	return byFormat(f.format, func() error { return writeLoadJSON(w, f.cfg, reps) },
		func() error { return writeBenchfmt(w, f.cfg, reps) }, func() error { return writeTables(w, reps) })
}

// writeTables writes a table per run and, for several, their summary.
func writeTables(w io.Writer, reps []loadresult.Result) error {
	for i, rep := range reps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := rep.WriteText(w); err != nil {
			return err
		}
	}
	if len(reps) > 1 {
		writeRunsSummary(w, reps)
	}
	return nil
}
