//go:build linux

package cpu

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestPin(t *testing.T) {
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Skip(err)
	}
	defer Pin(allOf(&before))
	if err := Pin([]int{0}); err != nil {
		t.Fatal(err)
	}
	var now unix.CPUSet
	unix.SchedGetaffinity(0, &now)
	if now.Count() != 1 || !now.IsSet(0) {
		t.Fatalf("after Pin(0) the thread may run on %d CPUs", now.Count())
	}
}

func allOf(s *unix.CPUSet) []int {
	var cpus []int
	for c := range 1024 {
		if s.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}
