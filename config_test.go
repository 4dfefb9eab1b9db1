package loopbench_test

import (
	"strings"
	"testing"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/selectors"
)

func TestVariants(t *testing.T) {
	vs := loopbench.Variants()
	want := 24 // 2 ready x 3 timers x 4 selectors: epoll, uring, poll, select
	if err := selectors.Available("uring"); err != nil {
		t.Logf("uring absent: %v", err)
		want = 18
	}
	if len(vs) != want {
		t.Fatalf("%d variants, want %d: 2 ready x 3 timers x %v", len(vs), want, selectors.Names())
	}
	if got := vs[0].String(); got != "ready=ringbuffer/timers=heap4ary/selector=epoll" {
		t.Fatalf("first variant %q, want the default", got)
	}
	if got := (loopbench.Config{}).String(); got != vs[0].String() {
		t.Fatalf("zero Config names %q, want the default %q", got, vs[0])
	}
	seen := map[string]bool{}
	for _, v := range vs {
		for _, mode := range []string{"eager", "lazy"} {
			v.TimerCancel = mode
			s := v.String()
			if seen[s] {
				t.Fatalf("variant %q listed twice", s)
			}
			seen[s] = true
			back, err := loopbench.ParseVariant(s)
			if err != nil || back.String() != s {
				t.Fatalf("ParseVariant(%q) = %v, %v", s, back, err)
			}
			l, err := loopbench.New(v)
			if err != nil {
				t.Fatalf("New(%v): %v", v, err)
			}
			if l.Config().String() != s {
				t.Fatalf("New(%v).Config() = %v", v, l.Config())
			}
			l.Close()
		}
	}
}

func TestParseVariantPartial(t *testing.T) {
	c, err := loopbench.ParseVariant("selector=poll/ready=deque")
	if err != nil || c.String() != "ready=deque/timers=heap4ary/selector=poll" {
		t.Fatalf("ParseVariant(partial) = %v, %v", c, err)
	}
	if c, err := loopbench.ParseVariant(""); err != nil || c.String() != (loopbench.Config{}).String() {
		t.Fatalf(`ParseVariant("") = %v, %v`, c, err)
	}
}

func TestUnknownNames(t *testing.T) {
	cases := []struct {
		in   string
		want []string // every one must appear in the error
	}{
		{"ready=list", []string{`"list"`, "ringbuffer", "deque"}},
		{"timers=calendar", []string{`"calendar"`, "heap4ary", "heap2ary", "wheel"}},
		{"selector=kqueue", []string{`"kqueue"`, "epoll", "poll", "select"}},
		{"cancel=never", []string{`"never"`, "eager", "lazy"}},
		{"queue=ring", []string{`"queue"`, "ready, timers, selector, cancel"}},
		{"ready", []string{`"ready"`, "key=value"}},
		{"ready=deque/ready=deque", []string{"twice"}},
	}
	for _, c := range cases {
		_, err := loopbench.ParseVariant(c.in)
		if err == nil {
			t.Errorf("ParseVariant(%q) succeeded", c.in)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ParseVariant(%q) = %q, missing %q", c.in, err, w)
			}
		}
	}
	_, err := loopbench.New(loopbench.Config{Ready: "list"})
	if err == nil || !strings.Contains(err.Error(), `unknown ready queue "list" (valid: ringbuffer, deque)`) {
		t.Fatalf("New(Ready: list) = %v", err)
	}
}
