package callgrind

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestEnvSeedsMathRand: two processes started in Env draw the same
// numbers from math/rand's global source, also when they seed it from the
// clock, as many benchmarks do; without Env they draw different ones.
func TestEnvSeedsMathRand(t *testing.T) {
	if os.Getenv("CALLGRIND_ENV_CHILD") == "1" {
		//lint:ignore SA1019 seeding from the clock is what the benchmarks do
		rand.Seed(time.Now().UnixNano())
		fmt.Printf("draw %d\n", rand.Int63())
		return
	}
	draw := func(env []string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvSeedsMathRand$")
		cmd.Env = append(append(os.Environ(), "CALLGRIND_ENV_CHILD=1"), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "draw ") {
				return line
			}
		}
		t.Fatalf("child printed no draw: %q", out)
		return ""
	}
	if a, b := draw(Env), draw(Env); a != b {
		t.Errorf("in Env two processes drew %q and %q", a, b)
	}
	if a, b := draw(nil), draw(nil); a == b {
		t.Errorf("without Env two processes drew the same %q: the test cannot tell", a)
	}
}
