package callgrind

import (
	"testing"
)

// TestSysmonLeftOut reads two recorded dumps of one window (Spin, 1000
// operations of 100 dependent multiply-adds, in two processes): the
// runtime's monitor thread ran 15 instructions in one and 714 in the
// other, so their totals differ, and without it both count the same
// instructions to the one.
func TestSysmonLeftOut(t *testing.T) {
	want := map[string]float64{"window.quiet.callgrind": 15, "window.sysmon.callgrind": 714}
	var irs []float64
	for name, sysmon := range want {
		total, d := recordedDump(t, name)
		if d.Reason != "loopbench-window N=1000 Spin" || d.Sysmon.Ir != sysmon {
			t.Errorf("%s: reason %q, sysmon ran %v instructions, want %v", name, d.Reason, d.Sysmon.Ir, sysmon)
		}
		if d.Counts.Ir+d.Sysmon.Ir != total.Ir || d.Counts.Dr+d.Sysmon.Dr != total.Dr {
			t.Errorf("%s: %+v and sysmon's %+v do not add up to the totals %+v", name, d.Counts, d.Sysmon, total)
		}
		irs = append(irs, d.Counts.Ir)
	}
	if irs[0] != irs[1] || irs[0] != 715021 {
		t.Fatalf("the window without sysmon counted %v instructions: want 715021 in both", irs)
	}
}

// TestSysmonNames: a compressed name an earlier file of the process
// defined is known by its id in the next, as a call's target too; a
// function of the same name's prefix is not sysmon.
func TestSysmonNames(t *testing.T) {
	head := "events: Ir sysCount\n"
	first := head + "fn=(3) runtime.sysmon\n10 5\ncfn=(4) runtime.usleep\ncalls=2 20\n* 7 2\nfn=(5) runtime.sysmonUpdateGOMAXPROCS\n1 100\ntotals: 112 2\n"
	second := head + "fn=(5)\n1 100\nfn=(3)\n+1 4 0\ncfn=(4)\ncalls=1 20\n* 3 1\nfn=(4)\n20 1000 1\ntotals: 1107 1\n"
	ids := map[string]string{}
	want := []Counts{{Ir: 12, SysCount: 2}, {Ir: 7, SysCount: 1}}
	for i, text := range []string{first, second} {
		d, err := parseDump(text, ids)
		if err != nil {
			t.Fatal(err)
		}
		if d.Sysmon != want[i] {
			t.Errorf("file %d: sysmon %+v, want %+v", i+1, d.Sysmon, want[i])
		}
	}
	if d, err := parseDump(second, map[string]string{}); err != nil || d.Sysmon.Ir != 0 {
		t.Errorf("without the first file's names: sysmon %+v, %v; want none", d.Sysmon, err)
	}
	// Numbered instances are sysmon (callgrind starts one when sysmon's
	// code runs again with no call on its stack, as in a process's second
	// window), and a call of one by another is not counted twice.
	inst := head + "fn=(3) runtime.sysmon\n10 5\ncfn=(6) runtime.sysmon'2\ncalls=1 20\n* 50 1\nfn=(6)\n20 40 0\ncfn=(4) runtime.usleep\ncalls=1 20\n* 10 1\nfn=(4)\n20 10 1\nfn=(7) runtime.sysmon'3\n5 7\ntotals: 72 1\n"
	if d, err := parseDump(inst, map[string]string{}); err != nil || d.Sysmon != (Counts{Ir: 62, SysCount: 1}) || d.Counts.Ir != 10 {
		t.Errorf("instances: sysmon %+v, counts %+v, %v; want 62 and 1 syscall, and 10 left", d.Sysmon, d.Counts, err)
	}
	for _, bad := range []string{"fn=(3) runtime.sysmon\n10 5\n", head + "fn=(3) runtime.sysmon\n10 x\n", head + "fn=(3) runtime.sysmon\n10 1 2 3\n"} {
		if _, err := parseDump(bad, map[string]string{}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
