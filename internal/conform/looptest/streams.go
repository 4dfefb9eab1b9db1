package looptest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// RunStreams runs the streams suite on cfg: asyncio's StreamReader and
// StreamWriter over StartServer and OpenConnection, with host names.
func RunStreams(t *testing.T, cfg loopbench.Config) {
	runEach(t, cfg, []loopTest{
		{"EchoByHostName", testStreamEcho},
		{"ReadLineSplitPackets", testReadLineSplit},
		{"ReadExactlyAtEOF", testReadExactlyEOF},
		{"ReadReturnsEOF", testReadEOF},
		{"ReadUntilPastLimit", testReadUntilLimit},
		{"DrainPausesForSlowPeer", testDrain},
		{"UnknownHostName", testUnknownHost},
		{"ReadUntilSeparators", testReadUntilSeparators},
		{"LimitOption", testStreamLimitOption},
		{"DrainAfterReset", testDrainAfterReset},
		{"WriteAfterPeerClosed", testWriteAfterPeerClosed},
	})
}

// streamServer starts a stream server on localhost whose client function
// is serve, and returns its port.
func streamServer(t *testing.T, l *loopbench.Loop, serve func(t *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter)) string {
	t.Helper()
	s, err := loopbench.StartServer(l, "tcp", "localhost:0", serve)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	_, port, _ := net.SplitHostPort(s.Addr().String())
	return port
}

// runTask runs l until fn, in a task, returns, and fails the test with
// its error.
func runTask(t *testing.T, l *loopbench.Loop, fn func(tk *loopbench.Task) error) {
	t.Helper()
	task := l.CreateTask(func(tk *loopbench.Task) (any, error) { return nil, fn(tk) })
	if _, err := complete(t, l, task); err != nil {
		t.Fatal(err)
	}
}

func testStreamEcho(t *testing.T, l *loopbench.Loop) {
	port := streamServer(t, l, upperLines)
	runTask(t, l, func(tk *loopbench.Task) error {
		r, w, err := loopbench.OpenConnection(tk, "tcp", "localhost:"+port)
		if err != nil {
			return err
		}
		for _, msg := range []string{"hello\n", "stream world\n"} {
			w.Write([]byte(msg))
			if err := w.Drain(tk); err != nil {
				return err
			}
			got, err := r.ReadLine(tk)
			if err != nil || string(got) != strings.ToUpper(msg) {
				return errorf("echo of %q: %q, %v", msg, got, err)
			}
		}
		w.Close()
		return w.WaitClosed(tk)
	})
}

// goClient runs client on its own goroutine against 127.0.0.1:port.
func goClient(t *testing.T, port string, client func(c net.Conn) error) <-chan error {
	done := make(chan error, 1)
	go func() {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		done <- client(c)
	}()
	return done
}

func testReadLineSplit(t *testing.T, l *loopbench.Loop) {
	lines := make(chan []string, 1)
	port := streamServer(t, l, func(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		var got []string
		for {
			line, err := r.ReadLine(tk)
			if err != nil {
				got = append(got, "error: "+err.Error())
				break
			}
			got = append(got, string(line))
			if len(line) == 0 {
				break
			}
		}
		lines <- got
		l.Stop()
	})
	done := goClient(t, port, func(c net.Conn) error {
		for _, part := range []string{"hel", "lo\nwor", "ld\nno newline at the end"} {
			if _, err := c.Write([]byte(part)); err != nil {
				return err
			}
			time.Sleep(5 * time.Millisecond) // separate segments
		}
		return nil
	})
	RunFor(t, l, 30*time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := <-lines
	want := []string{"hello\n", "world\n", "no newline at the end", ""}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q, want %q", got, want)
	}
}

func testReadExactlyEOF(t *testing.T, l *loopbench.Loop) {
	result := make(chan error, 1)
	port := streamServer(t, l, func(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		if got, err := r.ReadExactly(tk, 3); err != nil || string(got) != "abc" {
			result <- errorf("first ReadExactly: %q, %v", got, err)
		} else {
			_, err := r.ReadExactly(tk, 10)
			var inc *loopbench.IncompleteReadError
			if !errors.As(err, &inc) || string(inc.Partial) != "defgh" || inc.Expected != 10 || !errors.Is(err, io.ErrUnexpectedEOF) || !r.AtEOF() {
				result <- errorf("ReadExactly at EOF: %v (%+v), at EOF %v", err, inc, r.AtEOF())
			} else {
				result <- nil
			}
		}
		l.Stop()
	})
	done := goClient(t, port, func(c net.Conn) error {
		_, err := c.Write([]byte("abcdefgh"))
		return err
	})
	RunFor(t, l, 30*time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-result; err != nil {
		t.Fatal(err)
	}
}

// testReadEOF: Read gives what is buffered, then io.EOF at the end of the
// stream, so the usual Go read loop ends.
func testReadEOF(t *testing.T, l *loopbench.Loop) {
	r := loopbench.NewStreamReader(l, 0)
	r.FeedData([]byte("abc"))
	runTask(t, l, func(tk *loopbench.Task) error {
		l.CallSoon(r.FeedEOF)
		var got []string
		for range 10 {
			data, err := r.Read(tk, 2)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			got = append(got, string(data))
		}
		if fmt.Sprint(got) != "[ab c]" {
			return errorf("read %q before io.EOF, want [ab c]", got)
		}
		if data, err := r.Read(tk, -1); len(data) != 0 || err != nil {
			return errorf("Read(-1) at the end = %q, %v, want nothing and no error", data, err)
		}
		return nil
	})
}

func testReadUntilLimit(t *testing.T, l *loopbench.Loop) {
	result := make(chan error, 1)
	long := strings.Repeat("x", loopbench.DefaultStreamLimit+100)
	port := streamServer(t, l, func(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		result <- func() error {
			_, err := r.ReadUntil(tk, []byte(";"))
			var over *loopbench.LimitOverrunError
			if !errors.As(err, &over) || over.Consumed <= loopbench.DefaultStreamLimit {
				return errorf("ReadUntil past the limit: %v", err)
			}
			// The data stays: a ReadLine drops the long line, the next reads.
			if _, err := r.ReadLine(tk); !errors.As(err, &over) {
				return errorf("ReadLine of the long line: %v", err)
			}
			if line, err := r.ReadLine(tk); err != nil || string(line) != "next\n" {
				return errorf("the line after: %q, %v", line, err)
			}
			return nil
		}()
		l.Stop()
	})
	done := goClient(t, port, func(c net.Conn) error {
		_, err := c.Write([]byte(long + "\nnext\n"))
		return err
	})
	RunFor(t, l, 30*time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-result; err != nil {
		t.Fatal(err)
	}
}

// testDrain: a writer to a peer that does not read yet fills the
// transport's buffer past its high-water mark; Drain then waits until the
// buffer is down to the low mark, and every byte arrives.
func testDrain(t *testing.T, l *loopbench.Loop) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const total = 8 << 20
	received := make(chan int, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			received <- -1
			return
		}
		defer c.Close()
		time.Sleep(100 * time.Millisecond) // a slow peer: read nothing at first
		c.SetDeadline(time.Now().Add(30 * time.Second))
		n, _ := io.Copy(io.Discard, c)
		received <- int(n)
	}()
	waited := 0
	runTask(t, l, func(tk *loopbench.Task) error {
		_, w, err := loopbench.OpenConnection(tk, "tcp", ln.Addr().String())
		if err != nil {
			return err
		}
		chunk := bytes.Repeat([]byte("d"), 64<<10)
		for sent := 0; sent < total; sent += len(chunk) {
			w.Write(chunk)
			over := w.Transport().WriteBufferSize() > 64<<10 // past the high-water mark: paused
			if err := w.Drain(tk); err != nil {
				return err
			}
			n := w.Transport().WriteBufferSize()
			switch {
			case over && n > 16<<10:
				return errorf("Drain waited and returned with %d bytes buffered, above the low-water mark", n)
			case n > 64<<10:
				return errorf("Drain returned with %d bytes buffered, above the high-water mark", n)
			}
			if over {
				waited++
			}
		}
		w.Close()
		return w.WaitClosed(tk)
	})
	if got := <-received; got != total || waited == 0 {
		t.Fatalf("the peer received %d of %d bytes; Drain waited %d times, want some", got, total, waited)
	}
}

func testUnknownHost(t *testing.T, l *loopbench.Loop) {
	runTask(t, l, func(tk *loopbench.Task) error {
		_, _, err := loopbench.OpenConnection(tk, "tcp", "no.such.host.invalid:80")
		if err == nil || !strings.Contains(err.Error(), "lookup no.such.host.invalid") {
			return errorf("OpenConnection to an unknown name: %v", err)
		}
		// The resolver's error is kept, for errors.As.
		if dns, ok := errors.AsType[*net.DNSError](err); !ok || dns.Name != "no.such.host.invalid" {
			return errorf("OpenConnection to an unknown name: %v (%T), want a wrapped *net.DNSError naming it", err, err)
		}
		return nil
	})
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
