package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
)

// TestServeWorkBadValue: a -work that is no duration is exit 2, the
// message naming the flag.
func TestServeWorkBadValue(t *testing.T) {
	for _, v := range []string{"abc", "10", "1ms1"} {
		_, errs, code := runOut("serve", "-work", v)
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if last := lines[len(lines)-1]; code != 2 || !strings.Contains(last, "flag -work") {
			t.Errorf("serve -work %s: exit %d, last line %q; want 2 naming -work", v, code, last)
		}
	}
}

// TestServeWork: serve -work says the work it spends on a request in its
// listening line, and echoes requests, each sent in two writes, in every
// style and the order's floors.
func TestServeWork(t *testing.T) {
	for _, style := range []string{"protocol", "task", "stream", "protocol-next", "protocol-coroutine"} {
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			err := run([]string{"serve", "-style", style, "-work", "200us", "-size", "16", "-duration", "5s"}, pw, io.Discard)
			pw.Close()
			done <- err
		}()
		line, _ := bufio.NewReader(pr).ReadString('\n')
		go io.Copy(io.Discard, pr)
		addr, _, _ := strings.Cut(strings.TrimPrefix(line, "listening on "), " ")
		if !strings.Contains(line, style+" style, 200µs of work a request of 16 bytes)") {
			t.Errorf("serve -style %s -work 200us -size 16: %q", style, line)
		}
		if err := roundTrips(addr, 3, 16); err != nil {
			t.Errorf("%s style: %v", style, err)
		}
		if err := <-done; err != nil {
			t.Fatalf("serve -style %s -work: %v", style, err)
		}
	}
}

// roundTrips sends n requests of size bytes to an echo server, each in
// two writes, and reads each echo.
func roundTrips(addr string, n, size int) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	buf := make([]byte, size)
	for range n {
		if _, err := c.Write(buf[:size/2]); err != nil {
			return err
		}
		if _, err := c.Write(buf[size/2:]); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			return err
		}
	}
	return nil
}

// TestServeInterrupt: serve answers an interrupt by saying that it stops
// its server, not that it finishes a measurement, and exits 0 once the
// server (a loop's, gonet's) is stopped.
func TestServeInterrupt(t *testing.T) {
	for _, args := range [][]string{{}, {"-impl", "gonet"}} {
		var errb syncBuffer
		errb.mu = new(sync.Mutex)
		saved := interruptContext
		interruptContext = func(doing string) (context.Context, context.CancelFunc) {
			sigs := make(chan os.Signal, 1)
			sigs <- os.Interrupt
			return watchInterrupts(sigs, &errb, func(int) { t.Error("exited") }, doing)
		}
		var out bytes.Buffer
		err := run(append([]string{"serve", "-addr", "127.0.0.1:0"}, args...), &out, io.Discard)
		interruptContext = saved
		want := "loopbench: interrupt seen: stopping the server and closing its connections; interrupt again to exit at once\n"
		if err != nil || errb.String() != want || !strings.HasPrefix(out.String(), "listening on ") {
			t.Errorf("serve %v: %v, stdout %q, stderr %q, want %q", args, err, out.String(), errb.String(), want)
		}
	}
}
