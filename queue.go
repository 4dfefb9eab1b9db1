package loopbench

import (
	"container/heap"
	"errors"
)

// Errors of the queues: asyncio's QueueFull, QueueEmpty and QueueShutDown,
// and the ValueError of a TaskDone too many.
var (
	ErrQueueFull     = errors.New("loopbench: queue is full")
	ErrQueueEmpty    = errors.New("loopbench: queue is empty")
	ErrQueueShutdown = errors.New("loopbench: queue is shut down")
	ErrTaskDone      = errors.New("loopbench: TaskDone called more times than there were items")
)

// Queue is asyncio's Queue, typed: FIFO (NewQueue), LIFO (NewLifoQueue) or
// by priority (NewPriorityQueue). A maxsize <= 0 means unbounded. Put
// waits while the queue is full, Get while it is empty, first in, first
// out among the waiters, which a newcomer may overtake, as in asyncio.
// Its methods are for the loop's goroutine.
type Queue[T any] struct {
	max        int
	items      store[T]
	getters    waitList
	putters    waitList
	unfinished int
	finished   Event
	shutdown   bool
}

// store is a queue's order.
type store[T any] interface {
	push(v T)
	pop() T
	len() int
}

// NewQueue returns a FIFO queue.
func NewQueue[T any](maxsize int) *Queue[T] { return newQueue[T](maxsize, &fifo[T]{}) }

// NewLifoQueue returns a LIFO queue: Get takes the most recent item.
func NewLifoQueue[T any](maxsize int) *Queue[T] { return newQueue[T](maxsize, &lifo[T]{}) }

// NewPriorityQueue returns a queue whose Get takes the least item by less
// (equal items in no set order, as with asyncio's heapq).
func NewPriorityQueue[T any](maxsize int, less func(a, b T) bool) *Queue[T] {
	return newQueue[T](maxsize, &prio[T]{less: less})
}

func newQueue[T any](maxsize int, s store[T]) *Queue[T] {
	q := &Queue[T]{max: maxsize, items: s}
	q.finished.set = true
	return q
}

// Len returns the number of items in the queue (asyncio's qsize).
func (q *Queue[T]) Len() int { return q.items.len() }

// MaxSize returns the queue's bound; <= 0 is unbounded.
func (q *Queue[T]) MaxSize() int { return q.max }

// Empty reports whether the queue holds no item.
func (q *Queue[T]) Empty() bool { return q.items.len() == 0 }

// Full reports whether a bounded queue holds maxsize items.
func (q *Queue[T]) Full() bool { return q.max > 0 && q.items.len() >= q.max }

// Put puts v in the queue, waiting while it is full, as asyncio's put:
// each slot freed wakes the first waiting Put, and a Put woken that finds
// the queue full again (a new Put or a PutNowait took the slot first, as
// asyncio lets them) waits again, behind the others. A cancelled Put puts
// nothing, and passes on a wake-up it had. After Shutdown it returns
// ErrQueueShutdown.
func (q *Queue[T]) Put(t *Task, v T) error {
	for q.Full() {
		if q.shutdown {
			return ErrQueueShutdown
		}
		if woken, err := q.putters.waitWoken(t); err != nil {
			if woken && !q.Full() {
				q.putters.wakeFirst() // the slot this Put was woken for
			}
			return err
		}
	}
	return q.PutNowait(v)
}

// PutNowait puts v without waiting: ErrQueueFull when the queue is full,
// ErrQueueShutdown after Shutdown. It wakes the first waiting Get.
func (q *Queue[T]) PutNowait(v T) error {
	switch {
	case q.shutdown:
		return ErrQueueShutdown
	case q.Full():
		return ErrQueueFull
	}
	q.items.push(v)
	q.unfinished++
	q.finished.set = false
	q.getters.wakeFirst()
	return nil
}

// Get takes an item, waiting while the queue is empty, as asyncio's get:
// each item put wakes the first waiting Get, and a Get woken that finds
// the queue empty again (a new Get or a GetNowait took the item first,
// as asyncio lets them) waits again, behind the others. A cancelled Get
// takes nothing, and passes on a wake-up it had. After Shutdown it takes
// what is left, then returns ErrQueueShutdown.
func (q *Queue[T]) Get(t *Task) (T, error) {
	for q.Empty() {
		var zero T
		if q.shutdown {
			return zero, ErrQueueShutdown
		}
		if woken, err := q.getters.waitWoken(t); err != nil {
			if woken && !q.Empty() {
				q.getters.wakeFirst() // the item this Get was woken for
			}
			return zero, err
		}
	}
	return q.GetNowait()
}

// GetNowait takes an item without waiting: ErrQueueEmpty when there is
// none (ErrQueueShutdown after Shutdown). It wakes the first waiting Put.
func (q *Queue[T]) GetNowait() (T, error) {
	if q.Empty() {
		var zero T
		if q.shutdown {
			return zero, ErrQueueShutdown
		}
		return zero, ErrQueueEmpty
	}
	v := q.items.pop()
	if q.max > 0 {
		q.putters.wakeFirst()
	}
	return v, nil
}

// TaskDone tells the queue that an item taken earlier is processed; Join
// returns once every item put is. Calling it more often than items were
// put returns ErrTaskDone.
func (q *Queue[T]) TaskDone() error {
	if q.unfinished <= 0 {
		return ErrTaskDone
	}
	if q.unfinished--; q.unfinished == 0 {
		q.finished.Set()
	}
	return nil
}

// Join waits until every item put is processed (TaskDone).
func (q *Queue[T]) Join(t *Task) error { return q.finished.Wait(t) }

// Shutdown shuts the queue down (Python 3.13): Put and PutNowait then
// return ErrQueueShutdown, and Get does once the queue is empty; waiting
// Puts and Gets wake to see it. With immediate, the items left are
// dropped, counted done for Join.
func (q *Queue[T]) Shutdown(immediate bool) {
	q.shutdown = true
	if immediate {
		for !q.Empty() {
			q.items.pop()
			if q.unfinished > 0 {
				q.unfinished--
			}
		}
		if q.unfinished == 0 {
			q.finished.Set()
		}
	}
	q.getters.wakeAll()
	q.putters.wakeAll()
}

// fifo is a ring-free FIFO: a slice and the index of its head, compacted
// when the head passes half.
type fifo[T any] struct {
	s    []T
	head int
}

func (f *fifo[T]) push(v T) { f.s = append(f.s, v) }
func (f *fifo[T]) len() int { return len(f.s) - f.head }
func (f *fifo[T]) pop() T {
	v := f.s[f.head]
	var zero T
	f.s[f.head] = zero
	if f.head++; f.head == len(f.s) {
		f.s, f.head = f.s[:0], 0
	} else if f.head > len(f.s)/2 && f.head > 32 {
		f.s = f.s[:copy(f.s, f.s[f.head:])]
		f.head = 0
	}
	return v
}

type lifo[T any] struct{ s []T }

func (l *lifo[T]) push(v T) { l.s = append(l.s, v) }
func (l *lifo[T]) len() int { return len(l.s) }
func (l *lifo[T]) pop() T {
	n := len(l.s) - 1
	v := l.s[n]
	var zero T
	l.s[n] = zero
	l.s = l.s[:n]
	return v
}

// prio is a binary heap through container/heap.
type prio[T any] struct {
	s    []T
	less func(a, b T) bool
}

func (p *prio[T]) push(v T) { heap.Push((*prioHeap[T])(p), v) }
func (p *prio[T]) pop() T   { return heap.Pop((*prioHeap[T])(p)).(T) }
func (p *prio[T]) len() int { return len(p.s) }

type prioHeap[T any] prio[T]

func (h *prioHeap[T]) Len() int           { return len(h.s) }
func (h *prioHeap[T]) Less(i, j int) bool { return h.less(h.s[i], h.s[j]) }
func (h *prioHeap[T]) Swap(i, j int)      { h.s[i], h.s[j] = h.s[j], h.s[i] }
func (h *prioHeap[T]) Push(x any)         { h.s = append(h.s, x.(T)) }
func (h *prioHeap[T]) Pop() any {
	n := len(h.s) - 1
	v := h.s[n]
	var zero T
	h.s[n] = zero
	h.s = h.s[:n]
	return v
}
