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
// out among the waiters. Its methods are for the loop's goroutine.
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

// Put puts v in the queue, waiting while it is full. Waiting Puts are
// served first in, first out, and a new Put queues behind them (asyncio
// lets it overtake; a fair queue starves no producer). A cancelled Put
// puts nothing. After Shutdown it returns ErrQueueShutdown.
func (q *Queue[T]) Put(t *Task, v T) error {
	if !q.shutdown && q.max > 0 && q.putters.mustWait(q.max-q.items.len()) {
		for {
			if err := q.putters.wait(t); err != nil {
				q.wake() // a slot this Put was woken for goes to the next
				return err
			}
			if q.shutdown || !q.Full() {
				break
			}
		}
	}
	return q.PutNowait(v)
}

// PutNowait puts v without waiting: ErrQueueFull when the queue is full,
// ErrQueueShutdown after Shutdown. It takes a free slot even when Puts
// wait for one.
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
	q.wake()
	return nil
}

// Get takes an item, waiting while the queue is empty. Waiting Gets are
// served first in, first out, and a new Get queues behind them. A
// cancelled Get takes nothing. After Shutdown it takes what is left, then
// returns ErrQueueShutdown.
func (q *Queue[T]) Get(t *Task) (T, error) {
	if q.Empty() || (!q.shutdown && q.getters.mustWait(q.items.len())) {
		for !q.shutdown || !q.Empty() {
			if err := q.getters.wait(t); err != nil {
				q.wake() // an item this Get was woken for goes to the next
				var zero T
				return zero, err
			}
			if !q.Empty() {
				break
			}
		}
	}
	return q.GetNowait()
}

// GetNowait takes an item without waiting: ErrQueueEmpty when there is
// none (ErrQueueShutdown after Shutdown). It takes an item even when Gets
// wait for one.
func (q *Queue[T]) GetNowait() (T, error) {
	if q.Empty() {
		var zero T
		if q.shutdown {
			return zero, ErrQueueShutdown
		}
		return zero, ErrQueueEmpty
	}
	v := q.items.pop()
	q.wake()
	return v, nil
}

// wake wakes one waiting Get per item and one waiting Put per free slot,
// counting those woken already.
func (q *Queue[T]) wake() {
	q.getters.wakeUpTo(q.items.len())
	if q.max > 0 {
		q.putters.wakeUpTo(q.max - q.items.len())
	}
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
