// Package deque is a ready queue for the loop laid out like CPython's
// collections.deque, which backs asyncio's _ready: items live in 64-slot
// blocks linked in order, so a push writes into the current block and a new
// block is linked only every 64 pushes.
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
	data [BlockLen]uint32
	next *block
}

const maxFreeBlocks = MaxFreeBytes / int(unsafe.Sizeof(block{}))

// Deque is a FIFO queue of uint32 (handle references). The zero value is an
// empty deque ready to use. A Deque is not safe for concurrent use.
type Deque struct {
	left, right *block // oldest and newest blocks
	li          int    // next index to pop in left
	rfree       int    // free slots left in right (0 with no block)
	n           int
	free        []*block
}

// Len returns the number of queued items. O(1).
func (d *Deque) Len() int { return d.n }

// FreeBlocks returns the number of blocks held in the free-block cache.
func (d *Deque) FreeBlocks() int { return len(d.free) }

// Push appends v at the right end. O(1); it links a block every BlockLen
// pushes, taken from the free-block cache when one is there.
func (d *Deque) Push(v uint32) {
	if d.rfree == 0 {
		d.linkBlock()
	}
	d.right.data[(BlockLen-d.rfree)&(BlockLen-1)] = v
	d.rfree--
	d.n++
}

// TryPush appends v if the right block has a free slot and reports
// whether it did. It never links a block and is small enough to inline:
// the fast path of Push.
func (d *Deque) TryPush(v uint32) bool {
	if d.rfree == 0 {
		return false
	}
	d.right.data[(BlockLen-d.rfree)&(BlockLen-1)] = v
	d.rfree--
	d.n++
	return true
}

// Pop removes and returns the item at the left end. O(1). It panics if the
// deque is empty; callers check Len first.
func (d *Deque) Pop() uint32 {
	if d.n == 0 {
		panic("deque: Pop on empty deque")
	}
	v := d.left.data[d.li&(BlockLen-1)]
	d.li++
	d.n--
	if d.li == BlockLen || d.n == 0 {
		d.unlinkLeft()
	}
	return v
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

// unlinkLeft retires the exhausted left block. When the deque became empty
// the single remaining block is kept and rewound, as CPython recentres it.
func (d *Deque) unlinkLeft() {
	if d.n == 0 && d.left == d.right {
		d.li, d.rfree = 0, BlockLen
		return
	}
	b := d.left
	d.left = b.next
	d.li = 0
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
