package asyncdiff

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestGenerateDeterministic: a seed always gives the same schedule, which
// survives its trip through JSON, and other seeds give others.
func TestGenerateDeterministic(t *testing.T) {
	a, b := Generate(7), Generate(7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("Generate(7) gave two schedules")
	}
	js, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back Schedule
	if err := json.Unmarshal(js, &back); err != nil || !reflect.DeepEqual(a, back) {
		t.Fatalf("JSON round trip changed the schedule (%v)", err)
	}
	if reflect.DeepEqual(a, Generate(8)) {
		t.Fatal("seeds 7 and 8 gave the same schedule")
	}
}

// TestGenerateCovers: the schedules of the seeds the check runs use every
// operation, equal and negative delays, and catching and propagating
// tasks.
func TestGenerateCovers(t *testing.T) {
	seen := map[string]int{}
	for seed := range 200 {
		s := Generate(uint64(seed))
		count := func(acts []Act) {
			for _, a := range acts {
				seen[a.Op]++
				if a.Op == "later" && a.B < 0 {
					seen["negative delay"]++
				}
			}
		}
		count(s.Init)
		for _, n := range s.Nodes {
			count(n)
		}
		for _, p := range s.Tasks {
			count(p.Steps)
			seen[map[bool]string{true: "catching task", false: "propagating task"}[p.Catch]]++
		}
	}
	for _, op := range []string{"soon", "later", "at", "cancel", "stop", "ts", "add_reader", "remove_reader",
		"add_writer", "remove_writer", "send", "recv", "fut_cb", "fut_rm", "set_result", "fut_cancel",
		"create_task", "task_cancel", "task_cb", "await_fut", "await_task", "sleep", "negative delay",
		"catching task", "propagating task"} {
		if seen[op] < 20 {
			t.Errorf("%q in %d places over 200 schedules, want at least 20", op, seen[op])
		}
	}
}

func TestDiff(t *testing.T) {
	if d := Diff([]string{"a", "b"}, []string{"a", "b"}); d != "" {
		t.Fatalf("equal traces: %q", d)
	}
	for _, c := range []struct {
		want, got []string
		says      string
	}{
		{[]string{"a", "b", "c"}, []string{"a", "c", "b"}, `entry 1: asyncio "b", loopbench "c"; before it: ["a"]`},
		{[]string{"a"}, []string{"a", "x"}, `entry 1: asyncio (end), loopbench "x"`},
	} {
		if d := Diff(c.want, c.got); !strings.HasPrefix(d, c.says) {
			t.Errorf("Diff(%q, %q) = %q, want %q...", c.want, c.got, d, c.says)
		}
	}
}
