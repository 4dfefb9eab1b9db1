package wheel

// heap holds the taken timers, those at or before the wheel's position, as
// a binary min-heap of ids ordered by (when, sequence); each node's prev
// field records its position. It holds one millisecond's timers, and those
// pushed before the wheel's position: few, and in the caches.
type heap struct {
	ids []uint32
}

func (h *heap) len() int    { return len(h.ids) }
func (h *heap) min() uint32 { return h.ids[0] }

func less(w *Wheel, a, b uint32) bool {
	wa, wb := w.nodes[a].when, w.nodes[b].when
	return wa < wb || (wa == wb && w.seq[a] < w.seq[b])
}

func (h *heap) set(w *Wheel, i int, id uint32) {
	h.ids[i] = id
	w.nodes[id].prev = tagHeap | uint32(i)
}

func (h *heap) push(w *Wheel, id uint32) {
	h.ids = append(h.ids, id)
	h.up(w, len(h.ids)-1, id)
}

// removeAt removes the id at position i.
func (h *heap) removeAt(w *Wheel, i int) {
	n := len(h.ids) - 1
	last := h.ids[n]
	h.ids = h.ids[:n]
	if i == n {
		return
	}
	if i > 0 && less(w, last, h.ids[(i-1)/2]) {
		h.up(w, i, last)
	} else {
		h.down(w, i, last)
	}
}

func (h *heap) up(w *Wheel, i int, id uint32) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(w, id, h.ids[p]) {
			break
		}
		h.set(w, i, h.ids[p])
		i = p
	}
	h.set(w, i, id)
}

func (h *heap) down(w *Wheel, i int, id uint32) {
	n := len(h.ids)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && less(w, h.ids[c+1], h.ids[c]) {
			c++
		}
		if !less(w, h.ids[c], id) {
			break
		}
		h.set(w, i, h.ids[c])
		i = c
	}
	h.set(w, i, id)
}
