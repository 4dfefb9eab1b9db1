package loopbench

import (
	"errors"
	"fmt"
)

// Errors returned (or panicked with, see the package doc) by the loop.
var (
	ErrClosed            = errors.New("loopbench: loop is closed")
	ErrRunning           = errors.New("loopbench: loop is already running")
	ErrCancelled         = errors.New("loopbench: cancelled")
	ErrInvalidState      = errors.New("loopbench: invalid state")
	ErrStoppedBeforeDone = errors.New("loopbench: loop stopped before the future completed")
	ErrTimeout           = errors.New("loopbench: timeout") // a WaitFor or WithTimeout deadline passed (asyncio's TimeoutError)
)

// closedError is what the scheduling calls panic with after Close.
func closedError(op string) error {
	return fmt.Errorf("%s on a closed loop: %w", op, ErrClosed)
}
