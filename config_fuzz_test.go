package loopbench_test

import (
	"strings"
	"testing"

	"github.com/loopbench/loopbench"
)

// FuzzParseVariant: ParseVariant never panics; it rejects with an error
// and a zero Config; what it accepts, Config.String names in a form it
// reads back to the same variant, and that form is a fixed point.
func FuzzParseVariant(f *testing.F) {
	for _, c := range loopbench.Variants() {
		f.Add(c.String())
		c.TimerCancel = "lazy"
		f.Add(c.String())
	}
	for _, s := range []string{"", "ready=deque", "cancel=eager/timers=wheel", "ready=deque/ready=deque",
		"ready=", "=deque", "ready", "/", "ready=deque/", "speed=fast", "timers=heap4ary/selector=kqueue"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := loopbench.ParseVariant(s)
		if err != nil {
			if c != (loopbench.Config{}) {
				t.Fatalf("ParseVariant(%q) failed (%v) but returned %+v", s, err, c)
			}
			if !strings.HasPrefix(err.Error(), "loopbench: variant ") {
				t.Fatalf("ParseVariant(%q): error %q does not name the variant", s, err)
			}
			return
		}
		name := c.String()
		back, err := loopbench.ParseVariant(name)
		if err != nil {
			t.Fatalf("ParseVariant(%q) = %+v, whose String %q does not parse: %v", s, c, name, err)
		}
		if back.String() != name {
			t.Fatalf("ParseVariant(%q) names %q, read back as %q", s, name, back.String())
		}
		again, err := loopbench.ParseVariant(back.String())
		if err != nil || again != back {
			t.Fatalf("ParseVariant(%q) = %+v, %v; want %+v", back.String(), again, err, back)
		}
	})
}
