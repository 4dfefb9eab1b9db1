package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/cpu"
	"github.com/loopbench/loopbench/internal/echo"
	"github.com/loopbench/loopbench/internal/load"
)

const loadUsage = `usage: loopbench load -addr host:port [flags]

Sends request/response round trips of -size bytes over -conns TCP
connections to an echo server (loopbench serve, gonet, or any other), for
-warmup and then -duration (or -requests). With -rate R it keeps a fixed
schedule of R requests per second and measures latency from each request's
intended send time (coordinated omission corrected, as wrk2), with the
uncorrected figure next to it; -rate 0 is a closed loop. Prints
percentiles, achieved vs offered rate and errors, and warns when the run
fell behind its schedule.

Examples:
  loopbench load -addr 127.0.0.1:9000 -conns 10 -rate 20000 -duration 10s
  loopbench load -addr 127.0.0.1:9000 -format benchfmt >> results.txt

Flags:
`

func runLoad(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, loadUsage); fs.PrintDefaults() }
	var cfg load.Config
	fs.StringVar(&cfg.Addr, "addr", "", "address of the echo server (required)")
	fs.IntVar(&cfg.Conns, "conns", 10, "connections")
	fs.IntVar(&cfg.Size, "size", 1024, "message size in bytes")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "measured time")
	fs.DurationVar(&cfg.Warmup, "warmup", time.Second, "time before measuring")
	fs.Float64Var(&cfg.Rate, "rate", 0, "requests per second over all connections; 0 = closed loop")
	fs.Int64Var(&cfg.Requests, "requests", 0, "stop after this many measured requests (0: no limit)")
	format := fs.String("format", "table", "output: table, benchfmt or json")
	cpus := fs.String("cpu", "", "pin the generator to these CPUs (e.g. 1 or 2-3)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	switch {
	case cfg.Addr == "":
		return usageError{"-addr is required"}
	case *format != "table" && *format != "benchfmt" && *format != "json":
		return usageError{fmt.Sprintf("-format %q: want table, benchfmt or json", *format)}
	case cfg.Conns < 1 || cfg.Size < 1 || cfg.Duration <= 0 || cfg.Rate < 0 || cfg.Warmup < 0:
		return usageError{"-conns, -size and -duration must be positive, -rate and -warmup not negative"}
	}
	if err := pin(*cpus); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := load.Run(ctx, cfg)
	if err != nil {
		return err
	}
	for _, e := range rep.ConnErrors {
		fmt.Fprintf(stderr, "loopbench load: connection failed: %s\n", e)
	}
	if rep.PacingLagP99 > 100*time.Microsecond {
		fmt.Fprintf(stderr, "loopbench load: warning: the generator's own pacing lagged by %v (p99); the corrected latencies include it: pin the generator apart (-cpu) or lower -rate\n", rep.PacingLagP99)
	}
	if rep.Behind {
		fmt.Fprintf(stderr, "loopbench load: warning: fell behind the schedule (%.0f of %.0f req/s): the server or the generator saturates; pin them apart with -cpu\n", rep.Achieved, rep.Offered)
	}
	return writeReport(stdout, cfg, rep, *format)
}

func pin(list string) error {
	if list == "" {
		return nil
	}
	cpus, err := cpu.Parse(list)
	if err != nil {
		return usageError{err.Error()}
	}
	return cpu.Pin(cpus)
}

func writeReport(w io.Writer, cfg load.Config, rep load.Report, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Config load.Config
			Report load.Report
		}{cfg, rep})
	case "benchfmt":
		writeBenchfmt(w, cfg, rep)
		return nil
	}
	fmt.Fprintf(w, "%d requests in %v over %d connections of %d bytes: %.0f req/s", rep.Requests, rep.Elapsed.Round(time.Millisecond), cfg.Conns-len(rep.ConnErrors), cfg.Size, rep.Achieved)
	if rep.Offered > 0 {
		fmt.Fprintf(w, " (offered %.0f)", rep.Offered)
	}
	fmt.Fprintf(w, ", %d errors\n", rep.Errors+int64(len(rep.ConnErrors)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "latency\tp50\tp90\tp99\tp99.9\tmax\t")
	row := func(name string, l load.Latencies) {
		fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t%v\t%v\t\n", name, l.P50, l.P90, l.P99, l.P999, l.Max)
	}
	row("corrected", rep.Corrected)
	row("uncorrected", rep.Uncorrected)
	return tw.Flush()
}

// writeBenchfmt writes the report as one benchmark result, with the unit
// metadata benchstat needs.
func writeBenchfmt(w io.Writer, cfg load.Config, rep load.Report) {
	for _, kv := range machineConfig() {
		fmt.Fprintf(w, "%s: %s\n", kv[0], kv[1])
	}
	fmt.Fprintln(w, "Unit req/s better=higher")
	for _, u := range []string{"p50-ns", "p99-ns", "p99.9-ns", "max-ns", "p99-uncorrected-ns"} {
		fmt.Fprintf(w, "Unit %s better=lower\n", u)
	}
	fmt.Fprintf(w, "BenchmarkLoad/size=%d/conns=%d/rate=%.0f-%d\t%d\t%.0f req/s\t%d p50-ns\t%d p99-ns\t%d p99.9-ns\t%d max-ns\t%d p99-uncorrected-ns\n",
		cfg.Size, cfg.Conns, cfg.Rate, runtime.GOMAXPROCS(0), rep.Requests, rep.Achieved,
		rep.Corrected.P50, rep.Corrected.P99, rep.Corrected.P999, rep.Corrected.Max, rep.Uncorrected.P99)
}

const serveUsage = `usage: loopbench serve [flags]

Runs an echo server until interrupted (or for -duration): a protocol-style
or task-style server on a loopbench variant, or gonet, the
goroutine-per-connection server on the net package. Prints "listening on
ADDR" once it accepts connections, for loopbench load or another client.

Examples:
  loopbench serve -addr 127.0.0.1:9000
  loopbench serve -variant ready=deque/selector=poll -style task -cpu 0
  loopbench serve -impl gonet -addr 127.0.0.1:9001

Flags:
`

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(stderr, serveUsage); fs.PrintDefaults() }
	variant := fs.String("variant", "", "loop variant (as 'loopbench list' prints); default: the default variant")
	impl := fs.String("impl", "", "gonet: serve with the net package instead of a loop")
	style := fs.String("style", "protocol", "protocol or task")
	addr := fs.String("addr", "127.0.0.1:0", "listen address (a literal IP and port)")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	cpus := fs.String("cpu", "", "pin the server to these CPUs (e.g. 0)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	cfg, err := loopbench.ParseVariant(*variant)
	switch {
	case err != nil:
		return usageError{err.Error()}
	case *impl != "" && *impl != "gonet":
		return usageError{fmt.Sprintf("-impl %q: the only baseline server is gonet", *impl)}
	case *style != "protocol" && *style != "task":
		return usageError{fmt.Sprintf("-style %q: want protocol or task", *style)}
	}
	if err := pin(*cpus); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *duration)
		defer cancel()
	}
	if *impl == "gonet" {
		g, err := echo.ServeGonet("tcp", *addr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "listening on %s (gonet)\n", g.Addr())
		<-ctx.Done()
		return g.Close()
	}
	return serveLoop(ctx, cfg, *style, *addr, stdout)
}

// serveLoop runs the echo server on a loop until ctx is done.
func serveLoop(ctx context.Context, cfg loopbench.Config, style, addr string, stdout io.Writer) error {
	l, err := loopbench.New(cfg)
	if err != nil {
		return err
	}
	defer l.Close()
	a, err := bench.EchoServerAt(l, style, addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening on %s (%v, %s style)\n", a, l.Config(), style)
	go func() {
		<-ctx.Done()
		l.CallSoonThreadsafe(l.Stop)
	}()
	return l.RunForever()
}
