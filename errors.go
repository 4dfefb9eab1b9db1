package loopbench

import (
	"context"
	"errors"
	"fmt"
	"syscall"
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

// ErrConnectionLost says that a connection is gone. Drain returns it,
// wrapped, once the connection is lost (asyncio raises
// ConnectionResetError). An error that says the peer broke the connection
// (a broken pipe or a reset: syscall.EPIPE, ECONNRESET, ECONNABORTED) wraps
// it too, beside the errno, wherever the loop returns one: Write, Drain,
// the read side's error, ConnectionLost's and PipeConnectionLost's, and
// the Sock* operations. errors.Is then matches both ErrConnectionLost and
// the errno, as asyncio's BrokenPipeError and ConnectionResetError are
// both ConnectionError.
var ErrConnectionLost = errors.New("loopbench: connection lost")

// connectionError is err, wrapped to match ErrConnectionLost too when it
// says the peer broke the connection; any other error (nil included) is
// returned as it is.
func connectionError(err error) error {
	switch {
	case err == nil || errors.Is(err, ErrConnectionLost):
		return err
	case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED):
		return fmt.Errorf("%w: %w", ErrConnectionLost, err)
	}
	return err
}

// closedError is what the scheduling calls panic with after Close.
func closedError(op string) error {
	return fmt.Errorf("%s on a closed loop: %w", op, ErrClosed)
}

// CancelledError is the error of a cancelled future or task (asyncio's
// CancelledError), carrying the cancel message. errors.Is matches it to
// both ErrCancelled and context.Canceled, and errors.As finds it however
// it was wrapped: the message never needs parsing out of Error().
type CancelledError struct {
	Message string // the message given to Cancel, if any
}

func (e *CancelledError) Error() string {
	if e.Message == "" {
		return ErrCancelled.Error()
	}
	return ErrCancelled.Error() + ": " + e.Message
}

// Unwrap returns ErrCancelled and context.Canceled.
func (e *CancelledError) Unwrap() []error { return []error{ErrCancelled, context.Canceled} }

// cancelledError is the error of a cancellation with message msg.
func cancelledError(msg string) error { return &CancelledError{Message: msg} }

// cancelMessage returns the cancel message err carries, if any.
func cancelMessage(err error) string {
	if ce, ok := errors.AsType[*CancelledError](err); ok {
		return ce.Message
	}
	return ""
}
