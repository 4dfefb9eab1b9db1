//go:build linux

package selectors_test

import (
	"slices"
	"testing"

	"github.com/loopbench/loopbench/selectors"
)

// TestNames: epoll first, then uring where the kernel allows io_uring
// (absent otherwise, with the line saying why), poll and select.
func TestNames(t *testing.T) {
	want := []string{"epoll", "uring", "poll", "select"}
	if err := selectors.Available("uring"); err != nil {
		t.Logf("uring absent: %v", err)
		want = []string{"epoll", "poll", "select"}
	}
	if got := selectors.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	if selectors.Default() != "epoll" {
		t.Fatalf("Default() = %q", selectors.Default())
	}
}
