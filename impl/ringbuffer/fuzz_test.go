package ringbuffer_test

import (
	"testing"

	"github.com/loopbench/loopbench/internal/conform/queuetest"
)

// FuzzOps replays byte-encoded push, pop, release, clear and lookup
// sequences against queuetest's slice model (see queuetest.Replay).
func FuzzOps(f *testing.F) { queuetest.Fuzz(f, newQueue) }
