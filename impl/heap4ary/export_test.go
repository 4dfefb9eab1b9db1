package heap4ary

// SetSeq sets the next sequence number, so tests can cross the wrap.
func SetSeq(h *Heap, s uint32) { h.seq = s }

// Slot returns the slot of queued timer id, so tests can see entries move.
func Slot(h *Heap, id uint32) int { return int(h.pos[id]) }
