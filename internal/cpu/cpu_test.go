//go:build linux

package cpu

import (
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParse(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "1,3": {1, 3}, "0-2,5": {0, 1, 2, 5}} {
		if got, err := Parse(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("Parse(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "-1"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

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
