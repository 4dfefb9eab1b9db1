package selectors

// merger folds readiness that a backend learns piecemeal (kqueue reports
// one kernel event per filter, so an fd ready both ways comes twice, not
// necessarily adjacent) into one Event per fd, in the order fds first
// appear, in O(1) per report and with no allocation once pos has grown.
type merger struct {
	pos []int32 // pos[fd] = 1 + index of fd's Event in the result, during a Select
}

// add records that fd is ready for got, merging it into fd's Event if buf
// has one. fd must be below size, the backend's table length.
func (m *merger) add(buf []Event, fd int, got Events, size int) []Event {
	if len(m.pos) < size {
		m.pos = append(m.pos, make([]int32, size-len(m.pos))...)
	}
	if p := m.pos[fd]; p > 0 {
		buf[p-1].Events |= got
		return buf
	}
	buf = append(buf, Event{Fd: fd, Events: got})
	m.pos[fd] = int32(len(buf))
	return buf
}

// done clears the positions of buf's fds, ready for the next Select.
func (m *merger) done(buf []Event) {
	for _, e := range buf {
		m.pos[e.Fd] = 0
	}
}
