package wheel_test

import (
	"testing"

	"github.com/loopbench/loopbench/impl/wheel"
	"github.com/loopbench/loopbench/internal/conform/timerqtest"
)

func newQueue() timerqtest.Queue { return new(wheel.Wheel) }

func TestConformance(t *testing.T) { timerqtest.Run(t, newQueue) }

func FuzzOps(f *testing.F) { timerqtest.Fuzz(f, newQueue) }

func BenchmarkWheel(b *testing.B) { timerqtest.Bench(b, newQueue) }
