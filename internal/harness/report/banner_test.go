package report

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// twinFile writes a Timers file with cold-fire on heap4ary in eager and
// lazy mode: lazy's values are eager's times shift, each with spread
// noise, 10 runs, and a header of config lines.
func twinFile(t *testing.T, header string, shift, spread float64) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString(header)
	for range 10 {
		for _, c := range []struct {
			cancel string
			f      float64
		}{{"", 1}, {"/cancel=lazy", shift}} {
			v := 500 * c.f * (1 + spread*(r.Float64()-0.5))
			fmt.Fprintf(&b, "BenchmarkTimers/ready=ringbuffer/timers=heap4ary/selector=epoll%s/op=cold-fire/k=1000 1 %g cpu-ns/timer\n", c.cancel, v)
		}
	}
	p := filepath.Join(t.TempDir(), "raw.txt")
	os.WriteFile(p, []byte(b.String()), 0o644)
	return p
}

func readReport(t *testing.T, path string) *Report {
	t.Helper()
	rep, err := Read([]string{path}, Options{Default: "ready=ringbuffer/timers=heap4ary/selector=epoll"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestTwinCheck: eager and lazy cold-fire, the same code, within noise:
// the check passes and says so; separated by 30 %: a banner.
func TestTwinCheck(t *testing.T) {
	rep := readReport(t, twinFile(t, "", 1, 0.04))
	if len(rep.Banners) != 0 || len(rep.Checks) != 1 || !strings.Contains(rep.Checks[0], "separates none of the 1 pairs") {
		t.Fatalf("banners %q checks %q", rep.Banners, rep.Checks)
	}
	rep = readReport(t, twinFile(t, "", 1.3, 0.04))
	if len(rep.Banners) != 1 || !strings.HasPrefix(rep.Banners[0], "In-run A/A check failed") {
		t.Fatalf("banners %q", rep.Banners)
	}
}

// TestBusyAndNoisyBanners: a run recorded busy, or with most cells wider
// than ±10 %, gets a banner in every format; an interrupted one too.
func TestBusyAndNoisyBanners(t *testing.T) {
	rep := readReport(t, twinFile(t, "machine-busy: yes (rounds 2 past 0.20 cores)\ninterrupted: after 3 of 20 measurements (Ctrl-C)\n", 1, 0.04))
	if len(rep.Banners) != 2 || !strings.Contains(rep.Banners[1], "Interrupted after 3 of 20") || !strings.Contains(rep.Banners[0], "machine was busy") {
		t.Fatalf("banners %q", rep.Banners)
	}
	var md, txt strings.Builder
	rep.WriteMarkdown(&md)
	rep.WriteText(&txt)
	if !strings.Contains(md.String(), "> **The machine was busy") || !strings.Contains(txt.String(), "!! Interrupted") {
		t.Fatalf("markdown:\n%s\ntext:\n%s", md.String(), txt.String())
	}
	rep = readReport(t, twinFile(t, "machine-busy: no (other processes at most 0.01 cores)\n", 1, 0.8))
	if len(rep.Banners) != 1 || !strings.HasPrefix(rep.Banners[0], "A noisy run: 2 of 2 cells") {
		t.Fatalf("banners %q", rep.Banners)
	}
}

// TestNoisyBannerSkipsExactUnits: allocs/op of a setup allocation
// amortised over a varying b.N, and a unit marked assume=exact, spread
// far past ±10 % while the times are steady: no noisy-run banner. The
// same spread in a timed unit raises it.
func TestNoisyBannerSkipsExactUnits(t *testing.T) {
	write := func(unit string) string {
		var b strings.Builder
		b.WriteString("Unit instructions/op assume=exact\n")
		for i := range 10 {
			n := 1000 * (i + 1)
			fmt.Fprintf(&b, "BenchmarkTimers/ready=ringbuffer/timers=heap4ary/selector=epoll/op=churn/p=1000 %d %g ns/op %g allocs/op %g %s\n",
				n, 100+0.1*float64(i), 1/float64(n), 1+float64(i), unit)
		}
		p := filepath.Join(t.TempDir(), "raw.txt")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if rep := readReport(t, write("instructions/op")); len(rep.Banners) != 0 {
		t.Fatalf("exact units counted: %q", rep.Banners)
	}
	rep := readReport(t, write("cpu-ns/op"))
	if len(rep.Banners) != 1 || !strings.HasPrefix(rep.Banners[0], "A noisy run: 1 of 1 cells") {
		t.Fatalf("banners %q", rep.Banners)
	}
}
