//go:build !linux

package machine

// Read returns ErrUnsupported: the counters are read from /proc.
func Read() (Sample, error) { return Sample{}, ErrUnsupported }

// Governor is "" off Linux.
func Governor() string { return "" }

// memory is not read off Linux.
func memory() (uint64, bool) { return 0, false }
