// Command loopbench lists, runs and compares loopbench's event-loop variants.
//
// Usage:
//
//	loopbench run [-quick] [-count N] [-variants …] [-workloads …]
//	                      run the workloads on the variants, interleaved,
//	                      and write results/<date>-<host>-<commit>/{raw.txt,...}
//	loopbench serve [-variant V | -impl gonet] [-style protocol|task] [-addr A]
//	                      an echo server, until interrupted or -duration
//	loopbench load -addr A [-conns N] [-rate R] [-duration D] [-format F]
//	                      load an echo server, wrk2-style
//	loopbench merge [-format F] [-force] FILE...
//	                      merge the results of N load generators: rates
//	                      summed, percentiles from the merged histograms
//	loopbench compare base.txt head.txt
//	                      compare two results files (Mann-Whitney U, as
//	                      benchstat, Holm over the run); exit 1 on a
//	                      significant regression
//	loopbench gate [-base REV] [-head REV] [-bench RE] [-count N]
//	                      build two revisions' benchmarks, run them
//	                      interleaved, and decide as compare does
//	loopbench report FILE...
//	                      summary.md, plots and report.html from any
//	                      benchmark results
//	loopbench history DIR | FILE...
//	                      the change points of saved instruction counts
//	                      over the commits, with a page of plots
//	loopbench peers [-count N]
//	                      asyncio, uvloop, libuv, libev, libevent (and
//	                      liburing on bench.c) on loopbench's workloads,
//	                      interleaved with it
//	loopbench index [DIR]
//	                      a Markdown index of the run directories in DIR
//	                      (default results), from what each run recorded
//	loopbench list        print the variants available on this machine
//	loopbench version     print the version
//
// Exit status: 0 ok, 1 failure or regression, 2 usage error (and, for
// compare and gate, nothing to compare or a gate that could not run), 3
// (compare and gate) too few samples to decide.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/machine"
	"github.com/loopbench/loopbench/selectors"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(exitCode(err))
}

// usageError is a bad command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitError is an error with its own exit status: compare and gate exit 2
// when they cannot compare and 3 when they cannot decide.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	var u usageError
	var x exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		return 2
	case errors.As(err, &x):
		return x.code
	}
	return 1
}

const usage = `usage: loopbench <command> [flags]

Commands:
  run       run every workload on every variant, interleaved, and summarize
  serve     run an echo server on a variant (or gonet) for load
  load      load an echo server: open or closed loop, HDR percentiles
  merge     merge the results of N load generators into one
  compare   compare two results files; exit 1 on a significant regression
  gate      measure two git revisions interleaved and decide; exit 1 on a regression
  report    summary.md, SVG plots and report.html from results files
  history   change points in a series of saved instruction counts, one a commit
  peers     asyncio, uvloop, libuv, libev and libevent on the same workloads
  index     a Markdown index of the run directories in results/
  list      print the variants available on this machine
  version   print the version

Run 'loopbench <command> -h' for a command's flags.
`

// commands are the subcommands by name.
var commands = map[string]func([]string, io.Writer, io.Writer) error{
	"list":    runList,
	"run":     runRun,
	"compare": runCompare,
	"gate":    runGate,
	"report":  runReport,
	"history": runHistory,
	"peers":   runPeers,
	"serve":   runServe,
	"load":    runLoad,
	"merge":   runMerge,
	"index":   runIndex,
	"version": runVersion,
}

// run is the whole program: it parses args, writes results to stdout and
// diagnostics to stderr, and returns an error whose kind sets the exit code.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{"no command given"}
	}
	cmd, ok := commands[args[0]]
	if !ok {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			fmt.Fprint(stdout, usage)
			return nil
		}
		fmt.Fprintf(stderr, "loopbench: unknown command %q\n\n%s", args[0], usage)
		return usageError{fmt.Sprintf("unknown command %q", args[0])}
	}
	err := cmd(args[1:], stdout, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil
	case err != nil:
		// Library errors carry the package's prefix; one is enough.
		fmt.Fprintf(stderr, "loopbench %s: %s\n", args[0], strings.TrimPrefix(err.Error(), "loopbench: "))
	}
	return err
}

// flagSetParsed, when not nil, is given every subcommand's FlagSet as it
// is parsed: the test of the flags' documentation reads them there.
var flagSetParsed func(*flag.FlagSet)

// parseArgs parses a subcommand's flags and leaves its arguments in fs. A
// bad flag is a usage error of one line, the flag package's, pointing at
// -h: the flag package would print the whole usage after it, burying it,
// so it prints nothing here and -h alone prints the usage.
func parseArgs(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	if flagSetParsed != nil {
		flagSetParsed(fs)
	}
	usage := fs.Usage
	if usage == nil {
		usage = func() { fmt.Fprintf(stderr, "usage: loopbench %s [flags]\n\nFlags:\n", fs.Name()); fs.PrintDefaults() }
	}
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = usage
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
		return err
	case err != nil:
		return usageError{fmt.Sprintf("%v; run 'loopbench %s -h' for usage", err, fs.Name())}
	}
	return nil
}

// parseFlags parses a subcommand that takes flags only; a bad flag, or an
// argument, is a usage error.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	if err := parseArgs(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected arguments: %q", fs.Args())}
	}
	return nil
}

// given is the set of the flags given on fs's command line, by name.
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

func runList(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loopbench list\n\nPrints every variant available on this machine, the default first,\nin the form ParseVariant and -variants accept, and on stderr a line for\neach selector this machine's kernel refuses (uring without io_uring).")
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	for _, v := range loopbench.Variants() {
		fmt.Fprintln(stdout, v)
	}
	for _, err := range selectors.Unavailable() {
		fmt.Fprintln(stderr, err)
	}
	return nil
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loopbench version\n\nPrints loopbench's module version, the commit it was built from and whether\nthe tree had changes (when the build recorded them), and the Go release\nthat built it.")
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, machine.Version(bi))
	return nil
}

// interruptContext is the context of a long command: done on the first
// Ctrl-C or SIGTERM, which it acknowledges on stderr, saying what the
// command does now (doing: measuring or serving, the constants below); a
// second one exits at once (status 130). Tests replace it to interrupt a
// command at a chosen moment.
var interruptContext = func(doing string) (context.Context, context.CancelFunc) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := watchInterrupts(sigs, os.Stderr, os.Exit, doing)
	return ctx, func() { signal.Stop(sigs); cancel() }
}

// What a command does at the first interrupt, as interruptContext says it.
const (
	// measuring: run, peers, load and gate stop measuring and report.
	measuring = "finishing the current measurement and writing what was measured"
	// serving: serve stops its server (a loop's or gonet's listener and
	// connections closed, a peer's server sent SIGTERM).
	serving = "stopping the server and closing its connections"
)

// watchInterrupts cancels the context at the first signal on sigs, saying
// on stderr what the command does now (doing), and calls exit(130) at the
// second.
func watchInterrupts(sigs <-chan os.Signal, stderr io.Writer, exit func(int), doing string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-stopped:
			return
		}
		fmt.Fprintf(stderr, "loopbench: interrupt seen: %s; interrupt again to exit at once\n", doing)
		cancel()
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "loopbench: second interrupt: exiting now")
			exit(130)
		case <-stopped:
		}
	}()
	var once sync.Once
	return ctx, func() { once.Do(func() { close(stopped) }); cancel() }
}
