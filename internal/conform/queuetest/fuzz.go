package queuetest

import "testing"

// Replay drives q with the operations ops encodes and checks it against a
// slice model after each: FIFO order, Len, Head, positions, At and Clear.
// Each operation is two bytes, an opcode and an argument:
//
//	0  Push arg+1 items, checking each position
//	1  TryPush arg+1 items (Push where it declines), checking each position
//	2  Pop min(arg, Len) items; a cleared item pops as nil
//	3  Pop one item, or check that Pop on an empty queue panics
//	4  Release
//	5  Clear the position arg%(Len+2) - 1 places from Head (one before
//	   Head to one past the tail): true only for a queued one
//	6  At that same position, checked against the model
//
// Bursts of up to 256 pushes cross the deque's 64-slot blocks and the
// ring's doublings with a few bytes of input.
func Replay(t *testing.T, q Queue, ops []byte) {
	t.Helper()
	r := &replay{t: t, q: q, m: &model{t: t}, cleared: map[uint64]bool{}}
	for i := 0; i+1 < len(ops); i += 2 {
		r.step(ops[i]%7, ops[i+1], i/2)
		if q.Len() != len(r.m.vals) || q.Head() != r.next-uint64(len(r.m.vals)) {
			t.Fatalf("op %d (%d): Len = %d, Head = %d; model %d, %d",
				i/2, ops[i]%7, q.Len(), q.Head(), len(r.m.vals), r.next-uint64(len(r.m.vals)))
		}
	}
}

// replay is the state of one Replay: the queue, its model, the positions
// cleared and the position the next push must return.
type replay struct {
	t       *testing.T
	q       Queue
	m       *model
	cleared map[uint64]bool
	next    uint64
}

func (r *replay) step(op, arg byte, i int) {
	switch op {
	case 0, 1:
		for range int(arg) + 1 {
			r.push(op == 1, i)
		}
	case 2:
		for range min(int(arg), len(r.m.vals)) {
			popNext(r.t, r.q, r.m, r.cleared, i)
		}
	case 3:
		if len(r.m.vals) > 0 {
			popNext(r.t, r.q, r.m, r.cleared, i)
		} else if !panics(func() { r.q.Pop() }) {
			r.t.Fatalf("op %d: Pop on an empty queue did not panic", i)
		}
	case 4:
		r.q.Release()
	case 5:
		pos := r.around(arg)
		queued := pos >= r.q.Head() && pos < r.next
		if got := r.q.Clear(pos); got != queued {
			r.t.Fatalf("op %d: Clear(%d) = %v with head %d, len %d", i, pos, got, r.q.Head(), len(r.m.vals))
		}
		if queued {
			r.cleared[pos] = true
		}
	case 6:
		checkAt(r.t, r.q, r.m, r.cleared, r.around(arg), i)
	}
}

// push pushes the next item, by TryPush first when try is set.
func (r *replay) push(try bool, i int) {
	v := int(r.next)
	pos, ok := uint64(0), false
	if try {
		pos, ok = r.q.TryPush(r.m.item(v))
	}
	if !ok {
		pos = r.q.Push(r.m.item(v))
	}
	if pos != r.next {
		r.t.Fatalf("op %d: pushed at position %d, want %d", i, pos, r.next)
	}
	r.next++
	r.m.vals = append(r.m.vals, v)
}

// around is the position arg%(Len+2) - 1 places from Head.
func (r *replay) around(arg byte) uint64 {
	return r.q.Head() + uint64(int(arg)%(len(r.m.vals)+2)) - 1
}

// Fuzz is the shared fuzz target of the ready queues: operation sequences
// (see Replay) replayed against the slice model.
func Fuzz(f *testing.F, newQueue func() Queue) {
	f.Add([]byte{0, 0, 3, 0, 3, 0})
	f.Add([]byte{0, 99, 2, 40, 4, 0, 1, 200, 5, 3, 6, 3, 2, 255, 4, 0})
	f.Add([]byte{1, 63, 1, 0, 5, 1, 6, 1, 3, 0, 3, 0, 0, 127, 2, 120, 4, 0, 6, 9})
	f.Fuzz(func(t *testing.T, ops []byte) {
		Replay(t, newQueue(), ops)
	})
}
