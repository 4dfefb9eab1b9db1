//go:build !linux

package load

import "time"

// PacingMethod names how the generator waits for a send time here.
const PacingMethod = "runtime timer (kqueue)"

// sleepFor blocks the calling goroutine for d. Off Linux the Go runtime
// waits for its timers in kevent, whose timeout has nanosecond
// resolution, so its timers pace a schedule to within the scheduler's
// wake-up latency.
func sleepFor(d time.Duration) { time.Sleep(d) }

// procsFor is the GOMAXPROCS an open-loop run of conns connections
// needs: off Linux no wait holds a P, so the current one.
func procsFor(conns, current int) int { return current }
