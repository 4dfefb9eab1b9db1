package cpu

import (
	"slices"
	"testing"
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

func TestFormat(t *testing.T) {
	if got := Format([]int{0, 1, 2, 5, 7, 8}); got != "0-2,5,7-8" {
		t.Fatalf("Format = %q", got)
	}
}
