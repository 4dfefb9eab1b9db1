//go:build !linux

package cpu

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrUnsupported is returned by Pin, Check and Allowed where the system
// offers no CPU affinity call that loopbench uses (only Linux does).
var ErrUnsupported = errors.New("CPU pinning is not supported on " + runtime.GOOS + " (it needs Linux's sched_setaffinity); run without -cpu")

// Pin fails with ErrUnsupported: this system has no affinity call.
func Pin(cpus []int) error { return fmt.Errorf("pin to CPUs %s: %w", Format(cpus), ErrUnsupported) }

// Check fails with ErrUnsupported: this system has no affinity call.
func Check(cpus []int) error { return fmt.Errorf("CPUs %s: %w", Format(cpus), ErrUnsupported) }

// Allowed fails with ErrUnsupported: this system has no affinity call.
func Allowed() ([]int, error) { return nil, ErrUnsupported }
