package heap4ary

// SetSeq sets the next sequence number, so tests can cross the wrap.
func SetSeq(h *Heap, s uint32) { h.seq = s }
