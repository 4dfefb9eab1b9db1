//go:build !linux

package cpu

import (
	"errors"
	"strings"
	"testing"
)

func TestUnsupported(t *testing.T) {
	err := Pin([]int{0})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "not supported on") {
		t.Fatalf("Pin = %v, want ErrUnsupported", err)
	}
	if _, err := Allowed(); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Allowed = %v", err)
	}
	if err := Check([]int{1}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Check = %v", err)
	}
}
