package selectors_test

import (
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/conform/seltest"
	"github.com/loopbench/loopbench/selectors"
)

func TestConformance(t *testing.T) {
	for _, name := range selectors.Names() {
		opt := seltest.Options{}
		if name == "select" {
			opt.MaxFd = 256 // FD_SETSIZE is 1024 (256 on NetBSD); fd 1100 is refused either way
		}
		t.Run(name, func(t *testing.T) { seltest.Run(t, name, opt) })
	}
}

func TestUnknown(t *testing.T) {
	_, err := selectors.New("bogus")
	if err == nil || !strings.Contains(err.Error(), `"bogus"`) || !strings.Contains(err.Error(), selectors.Default()) {
		t.Fatalf("New(bogus) = %v; want an error naming it and the valid ones", err)
	}
}
