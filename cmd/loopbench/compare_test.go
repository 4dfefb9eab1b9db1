package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// synth writes a results file: n samples per benchmark around the given
// centers (ns/op, and req/s for the echo one), with 1 % noise from seed.
func synth(t *testing.T, name string, seed uint64, n int, scale float64, cfg string) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	var b strings.Builder
	b.WriteString(cfg)
	b.WriteString("Unit req/s better=higher\n")
	for range n {
		noise := func() float64 { return 1 + (r.Float64()-0.5)*0.02 }
		fmt.Fprintf(&b, "BenchmarkCallSoon/ready=ringbuffer/batch=1000-2\t1000000\t%.3f ns/op\n", 7.0*scale*noise())
		fmt.Fprintf(&b, "BenchmarkEcho/conns=10-2\t10000\t6000 ns/op\t%.0f req/s\n", 150000/scale*noise())
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const machineA = "goos: linux\ncpu: Test CPU\ngo: go1.26\n"

func TestCompareRegression(t *testing.T) {
	base := synth(t, "base.txt", 1, 10, 1.0, machineA)
	head := synth(t, "head.txt", 2, 10, 1.10, machineA) // 10 % slower, 9 % fewer req/s
	var out, errb bytes.Buffer
	err := run([]string{"compare", "-min-effect", "5%", base, head}, &out, &errb)
	if exitCode(err) != 1 || !strings.Contains(errb.String(), "2 significant regressions") {
		t.Fatalf("exit %d, stderr %q\n%s", exitCode(err), errb.String(), out.String())
	}
	if strings.Count(out.String(), "REGRESSION") != 2 {
		t.Fatalf("want both units flagged:\n%s", out.String())
	}
	// The same change under a 15 % threshold is not a regression.
	out.Reset()
	errb.Reset()
	if err := run([]string{"compare", "-min-effect", "15%", base, head}, &out, &errb); err != nil {
		t.Fatalf("under -min-effect 15%%: %v", err)
	}
}

func TestCompareSameDistribution(t *testing.T) {
	base := synth(t, "base.txt", 3, 10, 1.0, machineA)
	head := synth(t, "head.txt", 4, 10, 1.0, machineA)
	var out, errb bytes.Buffer
	if err := run([]string{"compare", base, head}, &out, &errb); err != nil {
		t.Fatalf("two samples of one distribution: %v\n%s", err, out.String())
	}
	golden(t, "compare_same.golden", strings.ReplaceAll(out.String(), filepath.Dir(base), "DIR"))
}

func TestCompareTooFewSamples(t *testing.T) {
	base := synth(t, "base.txt", 5, 2, 1.0, machineA)
	head := synth(t, "head.txt", 6, 2, 1.5, machineA)
	var out, errb bytes.Buffer
	if err := run([]string{"compare", base, head}, &out, &errb); err != nil {
		t.Fatalf("too few samples must not fail the gate: %v", err)
	}
	if !strings.Contains(out.String(), "need >= 4 samples to detect a difference") {
		t.Fatalf("no too-few-samples notice:\n%s", out.String())
	}
}

func TestCompareRefusals(t *testing.T) {
	base := synth(t, "base.txt", 1, 6, 1.0, machineA)
	other := synth(t, "other.txt", 2, 6, 1.0, "goos: linux\ncpu: Other CPU\ngo: go1.26\n")
	bad := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(bad, []byte("BenchmarkX 12 ns/op\nBenchmarkY-2 notanumber 3 ns/op\n"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare", base, other}, 1, `cpu "Test CPU" vs "Other CPU"`},
		{[]string{"compare", base, bad}, 1, "malformed results file"},
		{[]string{"compare", base, filepath.Join(t.TempDir(), "missing.txt")}, 1, "no such file"},
		{[]string{"compare", base}, 2, "want two files"},
		{[]string{"compare", "-min-effect", "lots", base, base}, 2, "-min-effect"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		err := run(c.args, &out, &errb)
		if exitCode(err) != c.code || !strings.Contains(errb.String(), c.want) || strings.Count(errb.String(), "\n") > 1 && c.code == 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q on one line", c.args, exitCode(err), errb.String(), c.code, c.want)
		}
	}
	var out, errb bytes.Buffer
	if err := run([]string{"compare", "-force", base, other}, &out, &errb); err != nil {
		t.Fatalf("-force: %v", err)
	}
}
