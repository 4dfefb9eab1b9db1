package loopbench

// fnChunk is the number of callbacks in one chunk of a fnTable.
const fnChunk = 1 << fnShift

const fnShift = 10

// fnTable holds the callbacks of the loop's slots, by slot id, in chunks
// of fnChunk that are allocated as the table grows and never move.
//
// The slots themselves hold no pointer, so the garbage collector never
// scans them, and growing them is a plain copy. The callbacks, which it
// must scan, are here: a dense run of pointers in fixed chunks, never
// copied by a growth (a copy of pointers while the collector marks goes
// through its write barrier, pointer by pointer), never left behind as
// garbage, and with no spare capacity beyond the last chunk for the
// collector to walk through. A loop that schedules 10^5 timers from cold
// in a fresh process, where several collections run while its tables
// grow, so spends about half the instructions on them it did.
type fnTable struct {
	chunks []*[fnChunk]func()
	first  [4]*[fnChunk]func() // the backing of chunks up to 4 chunks: no allocation for the list
}

// at returns the callback cell of slot id, which must be below the
// table's capacity.
func (t *fnTable) at(id uint32) *func() {
	return &t.chunks[id>>fnShift][id&(fnChunk-1)]
}

// reserve makes room for the callbacks of slots below n.
func (t *fnTable) reserve(n int) {
	if t.chunks == nil {
		t.chunks = t.first[:0]
	}
	for len(t.chunks)*fnChunk < n {
		t.chunks = append(t.chunks, new([fnChunk]func()))
	}
}
