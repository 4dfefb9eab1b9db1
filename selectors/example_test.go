package selectors_test

import (
	"fmt"
	"time"

	"github.com/loopbench/loopbench/selectors"
)

// A Select with nothing ready waits out its timeout, rounded up to the
// backend's Resolution: nanoseconds with epoll_pwait2, so a 200 µs wait is
// not stretched to a millisecond.
func ExampleSelector_Resolution() {
	s, err := selectors.New(selectors.Default())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	start := time.Now()
	evs, err := s.Select(200*time.Microsecond, nil)
	waited := time.Since(start)
	fmt.Println(len(evs), err, waited >= max(200*time.Microsecond, s.Resolution()))
	// Output: 0 <nil> true
}
