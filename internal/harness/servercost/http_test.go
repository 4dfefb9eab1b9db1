package servercost

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestDuringCommand: the function runs while the command line under
// runs, after it has started its command (here env, running duringCommand's
// shell), and duringCommand returns once the command has ended; with no
// command line the function runs alone.
func TestDuringCommand(t *testing.T) {
	done := filepath.Join(t.TempDir(), "done")
	under := []string{"/bin/sh", "-c", `"$@"; echo > "$0"`, done, "env"}
	var during error
	got, err := duringCommand(context.Background(), under, func() (int, error) {
		_, during = os.Stat(done)
		return 7, nil
	})
	if err != nil || got != 7 {
		t.Fatalf("%d, %v; want 7 and no error", got, err)
	}
	if !os.IsNotExist(during) {
		t.Errorf("the command line had ended before the function ran: %v", during)
	}
	if _, err := os.Stat(done); err != nil {
		t.Errorf("duringCommand returned before the command line ended: %v", err)
	}
	if got, err := duringCommand(context.Background(), nil, func() (int, error) { return 8, nil }); got != 8 || err != nil {
		t.Errorf("alone: %d, %v; want 8 and no error", got, err)
	}
}
