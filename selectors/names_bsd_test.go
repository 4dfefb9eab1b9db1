//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package selectors_test

import (
	"slices"
	"testing"

	"github.com/loopbench/loopbench/selectors"
)

func TestNames(t *testing.T) {
	if got := selectors.Names(); !slices.Equal(got, []string{"kqueue", "poll", "select"}) {
		t.Fatalf("Names() = %v", got)
	}
	if selectors.Default() != "kqueue" {
		t.Fatalf("Default() = %q", selectors.Default())
	}
}
