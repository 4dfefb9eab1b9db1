// Package deque is a ready queue for the loop laid out like CPython's
// collections.deque, which backs asyncio's _ready: callbacks live in
// 64-slot blocks linked in order, so a push writes into the current block
// and a new block is linked only every 64 pushes.
//
// Positions are absolute (the n-th item ever pushed has position n-1) and
// never repeat, so a position names one item for the queue's whole life:
// the loop uses it as the handle of a CallSoon callback. Finding an item by
// position walks the blocks, O(n/64). Pop leaves the popped callback in
// its slot; a block is cleared when it leaves the queue, and Release, which
// the loop calls once per iteration, clears the popped part of the oldest
// block.
//
// asyncio uses only append and popleft on _ready, so only those two
// operations (Push and Pop) and the forward link are kept. Emptied blocks go
// to a free-block cache bounded by bytes (MaxFreeBytes), so a burst of
// thousands of items is absorbed by reused blocks instead of allocating a
// block every 64 pushes, while an idle queue does not pin unbounded memory.
package deque

import "unsafe"

// BlockLen is the number of items per block, as in CPython.
const BlockLen = 64

// MaxFreeBytes bounds the memory held by the free-block cache.
const MaxFreeBytes = 256 << 10

type block struct {
	data [BlockLen]func()
	next *block
}

const maxFreeBlocks = MaxFreeBytes / int(unsafe.Sizeof(block{}))

// Deque is a FIFO queue of callbacks. The zero value is an empty deque
// ready to use. A Deque is not safe for concurrent use.
type Deque struct {
	left, right *block // oldest and newest blocks
	li          int    // index in left of the oldest item
	rfree       int    // free slots left in right (0 with no block)
	head, tail  uint64 // positions of the oldest item and one past the newest
	free        []*block
}

// Len returns the number of queued items. O(1).
func (d *Deque) Len() int { return int(d.tail - d.head) }

// Head returns the position of the oldest item: the number of items popped
// so far. O(1).
func (d *Deque) Head() uint64 { return d.head }

// FreeBlocks returns the number of blocks held in the free-block cache.
func (d *Deque) FreeBlocks() int { return len(d.free) }

// Push appends fn at the right end and returns its position. O(1); it
// links a block every BlockLen pushes, taken from the free-block cache
// when one is there.
func (d *Deque) Push(fn func()) uint64 {
	if d.rfree == 0 {
		d.linkBlock()
	}
	d.right.data[(BlockLen-d.rfree)&(BlockLen-1)] = fn
	d.rfree--
	p := d.tail
	d.tail = p + 1
	return p
}

// TryPush appends fn if the right block has a free slot and returns its
// position and true; otherwise it returns false. It never links a block
// and is small enough to inline: the fast path of Push.
func (d *Deque) TryPush(fn func()) (uint64, bool) {
	if d.rfree == 0 {
		return 0, false
	}
	d.right.data[(BlockLen-d.rfree)&(BlockLen-1)] = fn
	d.rfree--
	p := d.tail
	d.tail = p + 1
	return p, true
}

// Pop removes and returns the item at the left end. O(1). The slot keeps
// the callback until its block leaves the queue or the next Release. It
// panics if the deque is empty; callers check Len first.
func (d *Deque) Pop() func() {
	h := d.head
	if h == d.tail {
		panic("deque: Pop on empty deque")
	}
	fn := d.left.data[d.li&(BlockLen-1)]
	d.li++
	d.head = h + 1
	if d.li == BlockLen || h+1 == d.tail {
		d.unlinkLeft()
	}
	return fn
}

// At returns the item at position pos and whether pos is still queued.
// O(n/64).
func (d *Deque) At(pos uint64) (func(), bool) {
	p := d.slot(pos)
	if p == nil {
		return nil, false
	}
	return *p, true
}

// Clear replaces the item at position pos by nil if pos is still queued
// and reports whether it was. Pop returns the nil in its turn. O(n/64).
func (d *Deque) Clear(pos uint64) bool {
	p := d.slot(pos)
	if p != nil {
		*p = nil
	}
	return p != nil
}

// slot returns the slot of position pos, or nil if pos is not queued.
func (d *Deque) slot(pos uint64) *func() {
	if pos < d.head || pos >= d.tail {
		return nil
	}
	k := int(pos-d.head) + d.li
	b := d.left
	for ; k >= BlockLen; k -= BlockLen {
		b = b.next
	}
	return &b.data[k]
}

// Release clears the popped slots of the oldest block, so the deque holds
// no reference to a callback that has left it (the slots of blocks that
// left the queue were cleared then). O(BlockLen).
func (d *Deque) Release() {
	if d.left != nil {
		clear(d.left.data[:d.li])
	}
}

// linkBlock appends a block on the right (or creates the first one).
func (d *Deque) linkBlock() {
	b := d.newBlock()
	if d.right == nil {
		d.left, d.right, d.li = b, b, 0
	} else {
		d.right.next = b
		d.right = b
	}
	d.rfree = BlockLen
}

// unlinkLeft retires the exhausted left block, cleared. When the deque
// became empty the single remaining block is cleared and rewound, as
// CPython recentres it.
func (d *Deque) unlinkLeft() {
	if d.head == d.tail && d.left == d.right {
		clear(d.left.data[:d.li])
		d.li, d.rfree = 0, BlockLen
		return
	}
	b := d.left
	d.left = b.next
	d.li = 0
	clear(b.data[:])
	b.next = nil
	if len(d.free) < maxFreeBlocks {
		d.free = append(d.free, b)
	}
}

func (d *Deque) newBlock() *block {
	if k := len(d.free); k > 0 {
		b := d.free[k-1]
		d.free = d.free[:k-1]
		return b
	}
	return new(block)
}
