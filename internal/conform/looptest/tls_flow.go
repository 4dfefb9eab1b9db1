package looptest

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/loopbench/loopbench"
)

// flowTotal is what the flow-control tests send each way.
const flowTotal = 16 << 20

// RunTLSFlow runs 16 MiB each way between a loop TLS endpoint (server
// and client) and crypto/tls, with a slow reader on the receiving side:
// the loop's writes are paused at the high-water mark of the encrypted
// buffer, and the loop's reads pause as its protocol asks, delivering
// nothing meanwhile and never more than the read buffer at once.
func RunTLSFlow(t *testing.T, cfg loopbench.Config) {
	var cases []loopTest
	for _, side := range []string{"Server", "Client"} {
		cases = append(cases,
			loopTest{"LoopWrites16MiB" + side, func(t *testing.T, l *loopbench.Loop) { testTLSLoopWrites(t, l, side) }},
			loopTest{"LoopReads16MiB" + side, func(t *testing.T, l *loopbench.Loop) { testTLSLoopReads(t, l, side) }})
	}
	runEach(t, cfg, cases)
}

// withPeer runs the loop protocol p as side ("Server" or "Client")
// against a crypto/tls peer that runs peer on its own goroutine; the loop
// runs until peer returns.
func withPeer(t *testing.T, l *loopbench.Loop, side string, p loopbench.BaseProtocol, peer func(c *tls.Conn) error) {
	f := certs(t)
	run := func(c *tls.Conn) error {
		defer c.Close()
		c.SetDeadline(time.Now().Add(60 * time.Second))
		if err := c.Handshake(); err != nil {
			return err
		}
		return peer(c)
	}
	if side == "Server" {
		s, err := l.CreateServer("tcp", "127.0.0.1:0", func() loopbench.BaseProtocol { return p }, loopbench.WithTLS(f.serverConfig(0)))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		whileClient(t, l, func() error {
			c, err := tls.Dial("tcp", s.Addr().String(), f.clientConfig(0))
			if err != nil {
				return err
			}
			return run(c)
		})
		return
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", f.serverConfig(0))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	result := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			result <- err
			return
		}
		result <- run(c.(*tls.Conn))
	}()
	conn := l.CreateConnection("tcp", ln.Addr().String(), func() loopbench.BaseProtocol { return p },
		loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("localhost"))
	whileClient(t, l, func() error { return <-result })
	if _, err := conn.Result(); err != nil {
		t.Fatal(err)
	}
}

// signalProducer is a producer that tells the peer when its transport
// first paused it.
type signalProducer struct {
	producer
	once   sync.Once
	paused chan struct{}
}

func (p *signalProducer) PauseWriting() {
	p.producer.PauseWriting()
	p.once.Do(func() { close(p.paused) })
}

// testTLSLoopWrites: the loop writes 16 MiB as fast as flow control lets
// it to a peer that reads nothing until the loop is paused.
func testTLSLoopWrites(t *testing.T, l *loopbench.Loop, side string) {
	chunk := pattern(64 << 10)
	p := &signalProducer{producer: producer{total: flowTotal, chunk: chunk, lost: make(chan error, 1)}, paused: make(chan struct{})}
	withPeer(t, l, side, p, func(c *tls.Conn) error {
		select {
		case <-p.paused:
		case <-time.After(30 * time.Second):
			return errors.New("the loop was never paused")
		}
		return readPattern(c, chunk, flowTotal)
	})
	// The encrypted buffer stays within its high-water mark plus one
	// write (a 64 KiB chunk is five records, 22 bytes each more).
	if p.pauses == 0 || p.resumes == 0 || p.maxBuffered > 256<<10+64<<10+1<<10 {
		t.Fatalf("pauses %d, resumes %d, max buffered %d: flow control did not engage, release or bound", p.pauses, p.resumes, p.maxBuffered)
	}
	if err := <-p.lost; err != nil {
		t.Fatalf("ConnectionLost(%v), want nil", err)
	}
}

// readPattern reads until the end of the stream and checks that it is
// total bytes of chunk repeated.
func readPattern(r io.Reader, chunk []byte, total int) error {
	buf := make([]byte, 32<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		for i := 0; i < k; {
			off := (n + i) % len(chunk)
			m := min(k-i, len(chunk)-off)
			if !bytes.Equal(buf[i:i+m], chunk[off:off+m]) {
				return fmt.Errorf("bytes %d..%d differ from what was sent", n+i, n+i+m)
			}
			i += m
		}
		n += k
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("after %d bytes: %w", n, err)
		}
	}
	if n != total {
		return fmt.Errorf("read %d bytes, want %d", n, total)
	}
	return nil
}

// slowReader is a loop protocol that pauses reading after each MiB and
// resumes a millisecond later, checking what it gets.
type slowReader struct {
	loopbench.ProtocolBase
	l                   *loopbench.Loop
	t                   *loopbench.Transport
	chunk               []byte
	n, sinceResume      int
	paused              bool
	pauses, whilePaused int
	maxData             int
	bad                 error
	lost                chan error
}

func (r *slowReader) ConnectionMade(t *loopbench.Transport) { r.t = t }

func (r *slowReader) DataReceived(data []byte) {
	if r.paused {
		r.whilePaused++
	}
	r.maxData = max(r.maxData, len(data))
	for i := 0; i < len(data) && r.bad == nil; {
		off := r.n % len(r.chunk)
		m := min(len(data)-i, len(r.chunk)-off)
		if !bytes.Equal(data[i:i+m], r.chunk[off:off+m]) {
			r.bad = fmt.Errorf("bytes %d..%d differ from what was sent", r.n, r.n+m)
		}
		i, r.n = i+m, r.n+m
	}
	if r.sinceResume += len(data); r.sinceResume >= 1<<20 && !r.paused {
		r.paused, r.sinceResume = true, 0
		r.pauses++
		r.t.PauseReading()
		r.l.CallLater(time.Millisecond, func() { r.paused = false; r.t.ResumeReading() })
	}
}

func (r *slowReader) ConnectionLost(err error) { r.lost <- err }

// testTLSLoopReads: the peer writes 16 MiB as fast as it can to a loop
// protocol that keeps pausing its reading.
func testTLSLoopReads(t *testing.T, l *loopbench.Loop, side string) {
	chunk := pattern(64 << 10)
	r := &slowReader{l: l, chunk: chunk, lost: make(chan error, 1)}
	withPeer(t, l, side, r, func(c *tls.Conn) error {
		for sent := 0; sent < flowTotal; sent += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return err
			}
		}
		if err := c.CloseWrite(); err != nil {
			return err
		}
		_, err := io.ReadAll(c) // until the loop's close_notify
		return err
	})
	if err := <-r.lost; err != nil || r.bad != nil || r.n != flowTotal {
		t.Fatalf("ConnectionLost(%v), %d of %d bytes, %v", err, r.n, flowTotal, r.bad)
	}
	if r.pauses == 0 || r.whilePaused != 0 || r.maxData > 256<<10 {
		t.Fatalf("%d pauses, %d deliveries while paused, largest %d bytes: want pauses, none while paused, at most 256 KiB", r.pauses, r.whilePaused, r.maxData)
	}
}
