package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/loopbench/loopbench/internal/harness/load"
	"github.com/loopbench/loopbench/internal/harness/verdict"
	"github.com/loopbench/loopbench/internal/measure/loadresult"
	"github.com/loopbench/loopbench/internal/sys/cpu"
)

const loadUsage = `usage: loopbench load -addr host:port [flags]
       loopbench load -url http://host:port/path [flags]

Sends request/response round trips to an echo server over TCP, UDP or
TLS, or HTTP/1.1 requests (-proto http, -url), and reports their
latency: at a fixed -rate from each request's intended send time
(coordinated omission corrected, as wrk2), or in closed loop (-rate 0).
-sweep runs rising rates and reports the knee. What is counted, how a
run and a sweep are judged and what the generator says about itself:
docs/cli.md, section Load.

Exit status: 0 requests completed within -max-errors (and -slo when
given); 1 nothing completed, errors over -max-errors, a run's corrected
p99 over -slo, a run below 90% of its offered rate, a failed -tls
handshake, or an interrupt; 2 a usage error, or an -out, -report or
-hgrm path that cannot be written (checked before measuring).

Examples:
  loopbench load -addr 127.0.0.1:9000 -conns 10 -rate 20000 -duration 10s
  loopbench load -url http://127.0.0.1:8080/index.html -conns 10 -rate 5000
  loopbench load -addr 127.0.0.1:9000 -sweep 2000:400000:x1.4 -slo 1ms -report sweep/

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
	httpf, headers := addLoadHTTPFlags(fs)
	fs.StringVar(&f.sweep, "sweep", "", "open-loop steps of rising rate: 2000,4000,8000 or 2000:400000:x1.4 (see docs/cli.md)")
	fs.DurationVar(&f.slo, "slo", 0, "the corrected p99 a sweep's step must stay within (default 1ms with -sweep); a run without -sweep is judged against it only when given")
	if err := parseFlags(fs, args, stderr); err != nil {
		return f, err
	}
	set := given(fs)
	if !set["interval"] {
		c.Interval = 0 // load's default: a second, at most the window, at most load.DefaultIntervals of them
	}
	if f.udp {
		c.Network = "udp"
	}
	httpf.Headers = *headers
	if err := httpf.Apply(c, tlsf, set); err != nil {
		return f, usageError{err.Error()}
	}
	line, err := tlsf.Apply(c)
	if err != nil {
		return f, usageError{err.Error()}
	}
	f.tlsLine = line
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

// checkFormat checks a load result's -format, load's or merge's.
func checkFormat(format string) error {
	if format != "table" && format != "benchfmt" && format != "json" {
		return usageError{fmt.Sprintf("-format %q: want table, benchfmt or json", format)}
	}
	return nil
}

// check validates the flags after parsing; set holds the ones given.
func (f *loadFlags) check(set map[string]bool) error {
	c, badFormat := &f.cfg, checkFormat(f.format)
	switch {
	case c.Addr == "":
		return usageError{"-addr (or -url) is required"}
	case badFormat != nil:
		return badFormat
	case f.count < 1:
		return usageError{fmt.Sprintf("-count %d: want at least 1", f.count)}
	case c.Timeout == 0:
		return usageError{"-timeout 0s: want a positive duration"}
	}
	if f.udp && c.Label == "" {
		c.Label = "udp:" + c.Addr // never merged with TCP runs
	}
	if err := c.Validate(); err != nil {
		return usageError{err.Error()}
	}
	e, err := verdict.ParseEffect(f.maxErrors)
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
	out, err := openOutputs(f)
	if err != nil {
		return err
	}
	defer out.Abandon()
	if f.rates != nil {
		return runSweep(f, out, stdout, stderr)
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
			return load.TLSFailure(f.cfg, err)
		}
		rep.CPUs = load.UsableCPUs()
		reps = append(reps, rep)
		load.WarnRun(stderr, rep, f.cpus != "")
		if rep.Interrupted || ctx.Err() != nil {
			break
		}
	}
	if err := writeLoad(stdout, stderr, f, reps); err != nil {
		return err
	}
	if f.out != "" && len(reps) > 0 {
		if err := out.Write(stdout, []loadresult.Result{f.named(reps[0])}); err != nil {
			return err
		}
	}
	if err := writeLoadFiles(f, reps, stderr); err != nil {
		return err
	}
	if err := load.CheckRuns(reps, f.limits()); err != nil {
		return err
	}
	return load.CheckSLO(stderr, reps, f.limits())
}

// named is a run's result as -out writes it: named by -name, with the
// CPUs this process may use.
func (f loadFlags) named(r loadresult.Result) loadresult.Result {
	r.Name, r.CPUs = f.name, load.UsableCPUs()
	return r
}

// limits are what the runs are judged by.
func (f loadFlags) limits() load.RunLimits {
	return load.RunLimits{Count: f.count, MaxErrors: f.maxErr, MaxErrorsText: f.maxErrors, SLO: f.slo, SLOSet: f.sloSet}
}

// pin restricts the process to the CPUs of list (-cpu), with one spare
// P (load.PinSpare).
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
	return load.PinSpare(cpus)
}

// headerList is a repeated -header flag.
type headerList []string

func (h *headerList) String() string     { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error { *h = append(*h, v); return nil }

func addLoadHTTPFlags(fs *flag.FlagSet) (*load.HTTPOptions, *headerList) {
	h, headers := &load.HTTPOptions{}, &headerList{}
	fs.StringVar(&h.Proto, "proto", "echo", "what to speak: echo (loopbench's echo protocol) or http (HTTP/1.1 keep-alive)")
	fs.StringVar(&h.URL, "url", "", "with -proto http (implied): the URL to load, http://host:port/path or https:// (then over -tls); instead of -addr and -path")
	fs.StringVar(&h.Method, "method", "GET", "with -proto http: the request method")
	fs.StringVar(&h.Path, "path", "/", "with -proto http: the request target")
	fs.Var(headers, "header", "with -proto http: a request header line, Name: value (repeat the flag for more)")
	fs.StringVar(&h.Body, "body", "", "with -proto http: the request body")
	fs.StringVar(&h.BodyFile, "body-file", "", "with -proto http: read the request body from this file")
	return h, headers
}

func addLoadTLSFlags(fs *flag.FlagSet) *load.TLSOptions {
	t := &load.TLSOptions{}
	fs.BoolVar(&t.On, "tls", false, "connect over TLS 1.3 (X25519), each connection's handshake made on the generator's loop before its first request")
	fs.BoolVar(&t.Insecure, "insecure", false, "with -tls: do not verify the server's certificate (serve -tls's throwaway one); the output says so")
	fs.StringVar(&t.CA, "ca", "", "with -tls: trust the certificates in this PEM file (default: the system's)")
	fs.StringVar(&t.ServerName, "servername", "", "with -tls: the name sent and verified (default: the host of -addr)")
	return t
}
