package loopbench

import (
	"sync"
	"sync/atomic"

	"github.com/loopbench/loopbench/selectors"
)

// threadsafe is the queue CallSoonThreadsafe feeds from other goroutines:
// records under a mutex, a wakeup fd registered with the selector, and an
// atomic flag so that a burst of calls costs one wakeup write.
//
// Protocol: a producer appends under mu and, if the flag was clear, sets it
// and writes the wakeup fd (under mu, so Close cannot close the fd under
// it). The loop clears the flag before it takes the queue, so anything
// appended after the take sees the flag clear and wakes the loop again.
type threadsafe struct {
	mu      sync.Mutex
	recs    []tsRecord
	freeRec []uint32
	queue   []uint32 // record indices the loop has not taken yet
	closed  bool

	flag    atomic.Bool // a wakeup is outstanding
	wake    wakeup
	spare   []uint32 // the loop's swap buffer for queue
	ids     []uint32 // the loop's buffer of slot ids for the taken records
	slotRec []uint32 // slotRec[slot id] = record a flagTS slot runs
}

// tsRecord is one CallSoonThreadsafe callback until it runs.
type tsRecord struct {
	fn        func()
	gen       uint32
	live      bool
	cancelled bool
}

func (t *threadsafe) open(sel selectors.Selector) error {
	if err := t.wake.open(); err != nil {
		return err
	}
	if err := sel.Register(t.wake.rfd, selectors.Read); err != nil {
		t.wake.close()
		return err
	}
	return nil
}

func (t *threadsafe) fd() int { return t.wake.rfd }

func (t *threadsafe) pending() bool { return t.flag.Load() }

// take frees record idx and returns its callback (nil if it was
// cancelled) and the generation its handle had.
func (t *threadsafe) take(idx uint32) (func(), uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := &t.recs[idx]
	fn, gen := r.fn, r.gen
	*r = tsRecord{gen: gen + 1}
	t.freeRec = append(t.freeRec, idx)
	return fn, gen
}

func (t *threadsafe) cancel(idx, gen uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if int(idx) < len(t.recs) && t.recs[idx].live && t.recs[idx].gen == gen {
		t.recs[idx].cancelled = true
		t.recs[idx].fn = nil
	}
}

func (t *threadsafe) cancelled(idx, gen uint32) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return int(idx) < len(t.recs) && t.recs[idx].live && t.recs[idx].gen == gen && t.recs[idx].cancelled
}

func (t *threadsafe) drainWakeup() { t.wake.drain() }

func (t *threadsafe) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	t.queue, t.recs, t.freeRec = nil, nil, nil
	return t.wake.close()
}
