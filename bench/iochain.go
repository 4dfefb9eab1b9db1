package bench

import (
	"errors"
	"fmt"
	"time"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/sys/sock"
)

// ErrFdLimit is returned when a workload needs more fds than the process
// may open.
var ErrFdLimit = errors.New("bench: not enough file descriptors")

// IOChain is libevent's bench.c on a loop: P socketpairs, each with a
// reader that reads one byte and writes one byte to the next pair, and A
// chains of such writes in flight. Where the selector's cost grows with
// the number of registered fds (poll, select) and where it grows with the
// number of ready ones (epoll) shows here. The pairs and readers are set
// up once and reused by every Run.
type IOChain struct {
	l      *loopbench.Loop
	pairs  [][2]int // [reading end, writing end]
	writes int      // writes still to make
	fired  int      // writes made
	count  int      // bytes read
	buf    [1]byte
	one    [1]byte
}

// NewIOChain sets up p socketpairs with their readers on l.
func NewIOChain(l *loopbench.Loop, p int) (*IOChain, error) {
	if need := 2*p + sock.OpenFds() + 2; sock.FdLimit() < need {
		return nil, fmt.Errorf("%w: %d pairs need %d, the limit is %d", ErrFdLimit, p, need, sock.FdLimit())
	}
	c := &IOChain{l: l, one: [1]byte{'e'}}
	for range p {
		a, b, err := sock.Socketpair()
		if err != nil {
			c.Close()
			return nil, err
		}
		c.pairs = append(c.pairs, [2]int{a, b})
	}
	for i, pair := range c.pairs { // all pairs first: each reader writes to the next
		if err := l.AddReader(pair[0], c.reader(i)); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// reader is bench.c's read_cb for pair i.
func (c *IOChain) reader(i int) func() {
	fd := c.pairs[i][0]
	next := c.pairs[(i+1)%len(c.pairs)][1]
	return func() {
		if n, _ := sock.Read(fd, c.buf[:]); n == 1 {
			c.count++
		}
		if c.writes > 0 {
			sock.Write(next, c.one[:])
			c.writes--
			c.fired++
		}
		if c.count == c.fired {
			c.l.Stop()
		}
	}
}

// Run makes n writes along active chains spread evenly over the pairs, as
// bench.c does, and times the event processing until every byte written
// has been read. It reports us/write.
func (c *IOChain) Run(t Timer, active, n int) error {
	space := max(len(c.pairs)/active, 1)
	c.fired, c.count, c.writes = 0, 0, n
	t.ResetTimer()
	start := time.Now()
	for i := range active {
		sock.Write(c.pairs[(i*space)%len(c.pairs)][1], c.one[:])
		c.fired++
	}
	err := c.l.RunForever()
	elapsed := time.Since(start)
	t.StopTimer()
	if n > 0 {
		t.ReportMetric(float64(elapsed.Nanoseconds())/1e3/float64(n), "us/write")
	}
	return err
}

// RunOnce is Run in bench.c's own shape: the loop runs one iteration at a
// time from outside, Stop() then RunForever() (libevent's
// event_base_loop(EVLOOP_ONCE|EVLOOP_NONBLOCK)), until every byte written
// has been read. It reports us/write.
func (c *IOChain) RunOnce(t Timer, active, n int) error {
	space := max(len(c.pairs)/active, 1)
	c.fired, c.count, c.writes = 0, 0, n
	t.ResetTimer()
	start := time.Now()
	for i := range active {
		sock.Write(c.pairs[(i*space)%len(c.pairs)][1], c.one[:])
		c.fired++
	}
	for c.count != c.fired {
		c.l.Stop()
		if err := c.l.RunForever(); err != nil {
			return err
		}
	}
	elapsed := time.Since(start)
	t.StopTimer()
	if n > 0 {
		t.ReportMetric(float64(elapsed.Nanoseconds())/1e3/float64(n), "us/write")
	}
	return nil
}

// Close removes the readers and closes the pairs.
func (c *IOChain) Close() {
	for _, p := range c.pairs {
		c.l.RemoveReader(p[0])
		sock.Close(p[0])
		sock.Close(p[1])
	}
	c.pairs = nil
}
