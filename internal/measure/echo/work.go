package echo

import "time"

// Work is CPU time an echo server spends on every request before echoing
// it, busy on the loop's thread, which makes a server of known capacity:
// 1/D requests per second per loop thread.
//
// The echo protocol has no framing, so a request is Size bytes of a
// connection's stream (loopbench load's -size: one request outstanding
// per connection, of that many bytes); with Size 0, each read is one
// request. Bytes short of a request wait, per connection, for the rest.
type Work struct {
	D    time.Duration // spent on each request
	Size int           // bytes of a request; 0: a read is one request

	// Now reads the clock the busy loop watches; nil: time.Now (whose
	// monotonic reading it uses).
	Now func() time.Time
}

// meter applies a Work to one connection's reads.
type meter struct {
	w       *Work
	pending int // bytes of a request not complete yet
}

func (w *Work) meter() *meter { return &meter{w: w} }

// received spends the work of the requests that n more bytes complete.
func (m *meter) received(n int) {
	if m == nil || m.w == nil || m.w.D <= 0 || n <= 0 {
		return
	}
	if m.w.Size <= 0 {
		m.w.spin()
		return
	}
	m.pending += n
	for m.pending >= m.w.Size {
		m.pending -= m.w.Size
		m.w.spin()
	}
}

// spin busies the thread until D has passed on the clock.
func (w *Work) spin() {
	now := w.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	for now().Sub(start) < w.D {
	}
}
