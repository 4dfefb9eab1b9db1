package loopbench

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/loopbench/loopbench/internal/sys/proc"
	"github.com/loopbench/loopbench/internal/sys/sock"
)

// seqBytes returns n bytes of the sequence that starts at offset off.
func seqBytes(off, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((off + i) % 251)
	}
	return b
}

// eachVariant runs f on a fresh loop of every variant.
func eachVariant(t *testing.T, f func(t *testing.T, l *Loop)) {
	for _, cfg := range Variants() {
		t.Run(cfg.String(), func(t *testing.T) {
			l, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			f(t, l)
		})
	}
}

// TestPipeBufferReclaimsWrittenPrefix: a write pipe whose reader takes as
// much as is written each round never drains fully; its buffer must stay
// as large as what waits, not grow by everything written. The rounds write
// 3.3 MiB, three times the capacity allowed: enough for a buffer that
// keeps the prefix to fail, few enough for the race detector on a loaded
// machine (each round's bytes are made and compared byte by byte).
func TestPipeBufferReclaimsWrittenPrefix(t *testing.T) {
	const rounds, limit = 200, 1 << 20
	eachVariant(t, func(t *testing.T, l *Loop) {
		w, r, err := proc.Pipe(false)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(r)
		p := newPipeTransport(l, &SubprocessTransport{loop: l, proto: SubprocessProtocolBase{}}, w, 0, true)
		defer p.lost(nil)
		const chunk = 16 << 10
		written, read := 0, 0
		write := func(n int) {
			if err := p.Write(seqBytes(written, n)); err != nil {
				t.Fatal(err)
			}
			written += n
		}
		write(200 << 10)
		got := make([]byte, chunk)
		for range rounds {
			for k := 0; k < chunk; {
				n, err := unix.Read(r, got[k:])
				if err != nil || n == 0 {
					t.Fatalf("read: %d, %v", n, err)
				}
				k += n
			}
			if want := seqBytes(read, chunk); string(got) != string(want) {
				t.Fatalf("bytes %d..%d differ from what was written", read, read+chunk)
			}
			read += chunk
			if err := l.runOnce(); err != nil {
				t.Fatal(err)
			}
			write(chunk)
		}
		if p.WriteBufferSize() == 0 {
			t.Fatal("the buffer drained: the test needs one that never does")
		}
		if written < 3*limit {
			t.Fatalf("%d KiB written: too few to tell a buffer that keeps them", written>>10)
		}
		if c := cap(p.wb.buf); c > limit {
			t.Fatalf("buffer capacity %d KiB with %d KiB waiting: the written prefix is kept", c>>10, p.WriteBufferSize()>>10)
		}
	})
}

// pausingDatagrams records the flow control a datagram endpoint exerts.
type pausingDatagrams struct {
	DatagramProtocolBase
	paused, pauses, resumes int
}

func (p *pausingDatagrams) PauseWriting()  { p.pauses++; p.paused = 1 }
func (p *pausingDatagrams) ResumeWriting() { p.resumes++; p.paused = 0 }

// TestDatagramFlowControl: datagrams a full socket does not take are
// buffered, the protocol is paused above the high-water mark and resumed
// at the low one, and every datagram arrives, in order.
func TestDatagramFlowControl(t *testing.T) {
	eachVariant(t, func(t *testing.T, l *Loop) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range fds {
			unix.SetNonblock(fd, true)
		}
		defer unix.Close(fds[1])
		proto := &pausingDatagrams{}
		dt := l.wrapDatagram(fds[0], new(sock.Addr), proto)
		const size = 1000
		sent := 0
		for proto.paused == 0 && sent < 10000 {
			if err := dt.SendTo(seqBytes(sent, size), nil); err != nil {
				t.Fatal(err)
			}
			sent++
		}
		if proto.pauses != 1 {
			t.Fatalf("%d datagrams sent (%d KiB buffered): PauseWriting called %d times, want 1", sent, dt.BufferSize()>>10, proto.pauses)
		}
		if n := dt.BufferSize(); n > defaultHighWater+size {
			t.Fatalf("%d bytes buffered when paused, high-water mark %d", n, defaultHighWater)
		}
		buf := make([]byte, 2*size)
		for got := 0; got < sent; got++ {
			n, err := unix.Read(fds[1], buf)
			for err == unix.EAGAIN {
				if err := l.runOnce(); err != nil {
					t.Fatal(err)
				}
				n, err = unix.Read(fds[1], buf)
			}
			if err != nil || string(buf[:n]) != string(seqBytes(got, size)) {
				t.Fatalf("datagram %d of %d: %d bytes, %v, or not the one sent", got, sent, n, err)
			}
		}
		if proto.resumes != 1 || dt.BufferSize() != 0 {
			t.Fatalf("after draining: ResumeWriting called %d times, %d bytes buffered", proto.resumes, dt.BufferSize())
		}
	})
}
