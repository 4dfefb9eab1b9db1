package selectors_test

import (
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/seltest"
	"github.com/loopbench/loopbench/selectors"
)

func TestConformance(t *testing.T) {
	for _, name := range selectors.Names() {
		opt := seltest.Options{}
		if name == "select" {
			opt.MaxFd = 1024
		}
		t.Run(name, func(t *testing.T) { seltest.Run(t, name, opt) })
	}
}

func TestUnknown(t *testing.T) {
	_, err := selectors.New("kqueue")
	if err == nil || !strings.Contains(err.Error(), `"kqueue"`) || !strings.Contains(err.Error(), "epoll") {
		t.Fatalf("New(kqueue) = %v; want an error naming it and the valid ones", err)
	}
}
