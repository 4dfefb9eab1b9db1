package verdict

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadFloors reads arbitrary floors files: never a panic; a refusal
// names the file and returns no floors; what it accepts, written by
// Floors.Write and read again, writes the same text.
func FuzzReadFloors(f *testing.F) {
	f.Add([]byte("# loopbench noise floors\n\tCallSoon/ready=ringbuffer/timers=heap4ary/selector=epoll/mode=chain\tsec/op\t12.4%\n"))
	f.Add([]byte("# two groups\ngoos=linux\tTimers/op=churn/p=1000\tsec/op\t3.5%\ngoos=linux\tTimers/op=churn/p=1000\tB/op\t0%\n\n"))
	f.Add([]byte("\tX\tsec/op\t7.5\n"))
	f.Add([]byte("\tX\tsec/op\n"))
	f.Add([]byte("\tX\tsec/op\tNaN%\n"))
	f.Add([]byte("\tX\tsec/op\t+Inf%\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		floors, err := readFloorsOf(t, dir, "floors", data)
		if err != nil {
			if floors != nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "floors")) {
				t.Fatalf("refused with %v, returned %d floors", err, len(floors))
			}
			return
		}
		for k, v := range floors {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("accepted floor %v for %q: want a finite percentage", v, k)
			}
		}
		var once, twice bytes.Buffer
		if err := floors.Write(&once, "fuzz"); err != nil {
			t.Fatal(err)
		}
		back, err := readFloorsOf(t, dir, "again", once.Bytes())
		if err != nil {
			t.Fatalf("%q, written as %q, does not read back: %v", data, once.String(), err)
		}
		if err := back.Write(&twice, "fuzz"); err != nil || twice.String() != once.String() {
			t.Fatalf("written as %q, read and written again as %q (%v)", once.String(), twice.String(), err)
		}
	})
}

// readFloorsOf writes data to the file name in dir and reads it as floors.
func readFloorsOf(t *testing.T, dir, name string, data []byte) (Floors, error) {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return ReadFloors(path)
}
