package loopbench

import "testing"

// TestPartsMadeAndEnded checks that a new loop has every part, the
// dialer its own field, and that Close ends each: their sockets, tasks
// and coroutines are gone, and a second Close finds nothing to end.
func TestPartsMadeAndEnded(t *testing.T) {
	eachVariant(t, func(t *testing.T, l *Loop) {
		for kind, p := range l.c.parts {
			if p == nil {
				t.Fatalf("part %d not made", kind)
			}
		}
		if l.c.parts[partDialer] != &l.c.dialer {
			t.Fatal("the dialer part is not the loop's own dialer")
		}
		task := l.CreateTask(func(t *Task) (any, error) { return nil, Sleep(t, Never) })
		step := l.CreateTask(func(t *Task) (any, error) { return nil, Sleep(t, 0) })
		if _, err := l.RunUntilComplete(step); err != nil {
			t.Fatal(err)
		}
		if l.c.tasks().head != task {
			t.Fatal("the task waiting is not listed")
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if l.c.tasks().head != nil || l.c.coroutines().idle != nil || l.c.transports().open != nil || l.c.children().running != nil {
			t.Fatal("Close left a part's state behind")
		}
		if !task.Cancelled() {
			t.Fatal("the waiting task was not cancelled by Close")
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	})
}
