//go:build linux

package selectors_test

import (
	"slices"
	"testing"

	"github.com/loopbench/loopbench/selectors"
)

func TestNames(t *testing.T) {
	if got := selectors.Names(); !slices.Equal(got, []string{"epoll", "poll", "select"}) {
		t.Fatalf("Names() = %v", got)
	}
	if selectors.Default() != "epoll" {
		t.Fatalf("Default() = %q", selectors.Default())
	}
}
