package looptest

import (
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// RunSignals runs the signal suite on one loop of cfg. It sends signals
// to the process, so it must not run in parallel with another test that
// handles the same ones.
func RunSignals(t *testing.T, cfg loopbench.Config) {
	runEach(t, cfg, []loopTest{
		{"Delivered", testSignalDelivered},
		{"SeveralAtOnce", testSignalsTogether},
		{"Replace", testSignalReplace},
		{"Remove", testSignalRemove},
		{"BadSignals", testBadSignals},
		{"CloseRemoves", testSignalClose},
	})
}

// guard keeps sig from killing the process while a test juggles its
// handlers: a channel of the test's own also asks os/signal for it.
func guard(t *testing.T, sigs ...os.Signal) {
	ch := make(chan os.Signal, 16)
	signal.Notify(ch, sigs...)
	t.Cleanup(func() { signal.Stop(ch) })
}

func kill(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), sig); err != nil {
		t.Fatal(err)
	}
}

// testSignalDelivered: the handler runs once, as a callback of the loop
// (it touches state only the loop's goroutine may: the race detector
// would see another goroutine), and its Stop stops that iteration.
func testSignalDelivered(t *testing.T, l *loopbench.Loop) {
	guard(t, syscall.SIGUSR1)
	got, iterations := 0, 0
	var tick func()
	tick = func() {
		if iterations++; iterations < 1e6 {
			l.CallLater(time.Millisecond, tick)
		}
	}
	tick()
	if err := l.AddSignalHandler(syscall.SIGUSR1, func() {
		got++
		l.CallSoon(l.Stop)
	}); err != nil {
		t.Fatal(err)
	}
	l.CallSoon(func() { kill(t, syscall.SIGUSR1) })
	RunFor(t, l, 10*time.Second)
	if got != 1 {
		t.Fatalf("handler ran %d times, want once", got)
	}
}

func testSignalsTogether(t *testing.T, l *loopbench.Loop) {
	sigs := []syscall.Signal{syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGHUP}
	guard(t, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGHUP)
	var ran []syscall.Signal
	for _, s := range sigs {
		if err := l.AddSignalHandler(s, func() {
			ran = append(ran, s)
			if len(ran) == len(sigs) {
				l.Stop()
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	l.CallSoon(func() {
		for _, s := range sigs {
			kill(t, s)
		}
	})
	RunFor(t, l, 10*time.Second)
	slices.Sort(ran)
	want := slices.Clone(sigs)
	slices.Sort(want)
	if !slices.Equal(ran, want) {
		t.Fatalf("handlers ran for %v, want each of %v once", ran, want)
	}
}

func testSignalReplace(t *testing.T, l *loopbench.Loop) {
	guard(t, syscall.SIGUSR2)
	var ran []string
	l.AddSignalHandler(syscall.SIGUSR2, func() { ran = append(ran, "first"); l.Stop() })
	l.AddSignalHandler(syscall.SIGUSR2, func() { ran = append(ran, "second"); l.Stop() })
	l.CallSoon(func() { kill(t, syscall.SIGUSR2) })
	RunFor(t, l, 10*time.Second)
	if !slices.Equal(ran, []string{"second"}) {
		t.Fatalf("ran %q, want only the replacing handler", ran)
	}
}

func testSignalRemove(t *testing.T, l *loopbench.Loop) {
	guard(t, syscall.SIGUSR1)
	ran := 0
	l.AddSignalHandler(syscall.SIGUSR1, func() { ran++ })
	if !l.RemoveSignalHandler(syscall.SIGUSR1) {
		t.Fatal("RemoveSignalHandler of a handler: false")
	}
	if l.RemoveSignalHandler(syscall.SIGUSR1) {
		t.Fatal("second RemoveSignalHandler: true")
	}
	kill(t, syscall.SIGUSR1) // the guard's channel takes it
	l.CallLater(50*time.Millisecond, l.Stop)
	RunFor(t, l, 10*time.Second)
	if ran != 0 {
		t.Fatalf("a removed handler ran %d times", ran)
	}
}

func testBadSignals(t *testing.T, l *loopbench.Loop) {
	for _, s := range []os.Signal{syscall.SIGKILL, syscall.SIGSTOP, syscall.Signal(0), syscall.Signal(200), os.Interrupt} {
		err := l.AddSignalHandler(s, func() {})
		if s == os.Interrupt {
			if err != nil {
				t.Errorf("os.Interrupt: %v", err)
			}
			l.RemoveSignalHandler(s)
			continue
		}
		if err == nil {
			t.Errorf("AddSignalHandler(%v) accepted", s)
		}
	}
}

func testSignalClose(t *testing.T, l *loopbench.Loop) {
	guard(t, syscall.SIGUSR1)
	l.AddSignalHandler(syscall.SIGUSR1, func() {})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.RemoveSignalHandler(syscall.SIGUSR1) {
		t.Fatal("Close left the handler")
	}
	if err := l.AddSignalHandler(syscall.SIGUSR1, func() {}); err == nil {
		t.Fatal("AddSignalHandler on a closed loop")
	}
}
