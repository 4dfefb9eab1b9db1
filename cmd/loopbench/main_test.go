package main

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/selectors"
)

func TestList(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"list"}, &out, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := 24 // 2 ready x 3 timers x 4 selectors (epoll, uring, poll, select)
	if err := selectors.Available("uring"); err != nil {
		want = 18
		if errb.String() != err.Error()+"\n" {
			t.Fatalf("list's stderr %q; want the line saying why uring is absent", errb.String())
		}
	}
	if len(lines) != want || lines[0] != "ready=ringbuffer/timers=heap4ary/selector=epoll" {
		t.Fatalf("list printed %q; want %d variants, the default first", out.String(), want)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := [][]string{{}, {"frobnicate"}, {"list", "-bogus"}, {"list", "extra"}}
	for _, args := range cases {
		var out, errb bytes.Buffer
		err := run(args, &out, &errb)
		if exitCode(err) != 2 || errb.Len() == 0 {
			t.Errorf("run(%q): exit %d, stderr %q; want 2 and a message", args, exitCode(err), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if err := run([]string{"list", "-h"}, &out, &errb); exitCode(err) != 0 || !strings.Contains(errb.String(), "usage: loopbench list") {
		t.Errorf("list -h: exit %d, stderr %q", exitCode(err), errb.String())
	}
}

// TestHelpGolden keeps every subcommand's -h text (usage, examples, flags)
// in golden files.
func TestHelpGolden(t *testing.T) {
	for _, cmd := range []string{"run", "serve", "load", "merge", "compare", "gate", "report", "history", "index", "peers", "list"} {
		var out, errb bytes.Buffer
		if err := run([]string{cmd, "-h"}, &out, &errb); exitCode(err) != 0 {
			t.Fatalf("%s -h: exit %d", cmd, exitCode(err))
		}
		golden(t, "help_"+cmd+".golden", errb.String())
	}
	var out bytes.Buffer
	run([]string{"help"}, &out, &bytes.Buffer{})
	golden(t, "help.golden", out.String())
}

// TestVersion prints the module version and the Go release.
func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"version"}, &out, &bytes.Buffer{}); err != nil || !strings.HasPrefix(out.String(), "loopbench ") || !strings.Contains(out.String(), "go1.") {
		t.Fatalf("version printed %q, %v", out.String(), err)
	}
}

// TestMain lets the test binary stand in for loopbench where a command
// starts loopbench itself (peers starts its echo servers with serve): with
// LOOPBENCH_AS_CLI=1 in its environment it runs the command line instead
// of the tests.
func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		os.Exit(exitCode(run(os.Args[1:], os.Stdout, os.Stderr)))
	}
	os.Exit(m.Run())
}

// TestBadFlag: for every subcommand a flag it does not define is one line
// on stderr, the flag package's error and where the usage is, exit 2 and
// nothing on stdout; -h still prints the whole usage, exit 0.
func TestBadFlag(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run([]string{name, "-bogus"}, &out, &errb)
			want := "loopbench " + name + ": flag provided but not defined: -bogus; run 'loopbench " + name + " -h' for usage\n"
			if exitCode(err) != 2 || errb.String() != want || out.Len() != 0 {
				t.Errorf("%s -bogus: exit %d, stdout %q, stderr %q; want 2 and %q", name, exitCode(err), out.String(), errb.String(), want)
			}
			out.Reset()
			errb.Reset()
			err = run([]string{name, "-h"}, &out, &errb)
			if exitCode(err) != 0 || !strings.HasPrefix(errb.String(), "usage: loopbench "+name) || strings.Count(errb.String(), "\n") < 3 {
				t.Errorf("%s -h: exit %d, stderr %q; want 0 and the usage", name, exitCode(err), errb.String())
			}
		})
	}
}
