package callgrind

import (
	"strings"
	"testing"
)

// TestSysmonLeftOut reads recorded dumps of windows of Spin (100
// dependent multiply-adds an op). At 1000 operations, in two processes:
// the runtime's monitor thread ran 699 instructions in one, while the
// other holds only a sleep it was in when the window opened, whose
// inclusive cost (15, its entry) callgrind books before the window; so
// their totals differ, and without sysmon both count the same
// instructions. At one operation, sysmon was waiting for a lock when
// the window opened: the 724 instructions its call of lock2 books ran
// before the window, and the benchmark's 753 are all the totals hold.
func TestSysmonLeftOut(t *testing.T) {
	for _, tc := range []struct {
		name          string
		sysmon, count float64
	}{
		{"window.quiet.callgrind", 0, 715036},
		{"window.sysmon.callgrind", 699, 715036},
		{"window.inprogress.callgrind", 0, 753},
	} {
		total, d := recordedDump(t, tc.name)
		if !strings.HasPrefix(d.Reason, "loopbench-window N=") || d.Sysmon.Ir != tc.sysmon || d.Counts.Ir != tc.count {
			t.Errorf("%s: reason %q, sysmon ran %v instructions, %v left; want %v and %v", tc.name, d.Reason, d.Sysmon.Ir, d.Counts.Ir, tc.sysmon, tc.count)
		}
		if d.Counts.Ir+d.Sysmon.Ir != total.Ir || d.Counts.Dr+d.Sysmon.Dr != total.Dr {
			t.Errorf("%s: %+v and sysmon's %+v do not add up to the totals %+v", tc.name, d.Counts, d.Sysmon, total)
		}
	}
}

// TestSysmonBounded: a call of sysmon's costs at most what its callee's
// lines (and their calls, bounded alike) hold in the file. A call in
// progress when the window opened books its entry, which ran before;
// one its callee's lines hold in part ran in part in the window.
func TestSysmonBounded(t *testing.T) {
	head := "events: Ir sysCount\n"
	for _, tc := range []struct {
		text string
		want Counts
	}{
		// Nothing of notetsleep's in the window: all of the 108 before it.
		{head + "fn=(1) runtime.sysmon\ncfn=(2) runtime.notetsleep\ncalls=0 10\n5 108 2\nfn=(3) main.f\n1 700\n", Counts{}},
		// notetsleep's lines hold 8 and its call of futex 30, of which
		// futex's lines hold 5 (and one system call).
		{head + "fn=(1) runtime.sysmon\n1 4\ncfn=(2) runtime.notetsleep\ncalls=0 10\n5 108 2\n" +
			"fn=(2)\n10 8\ncfn=(4) runtime.futex\ncalls=0 20\n11 30 1\nfn=(4)\n20 5 1\n", Counts{Ir: 4 + 8 + 5, SysCount: 1}},
		// Two instances' calls of usleep together, bounded once.
		{head + "fn=(1) runtime.sysmon\ncfn=(2) runtime.usleep\ncalls=1 10\n5 15\n" +
			"fn=(5) runtime.sysmon'2\ncfn=(2)\ncalls=1 10\n5 15\nfn=(2)\n10 18\n", Counts{Ir: 18}},
		// Recursion: a function met again down its calls holds its lines.
		{head + "fn=(1) runtime.sysmon\ncfn=(2) runtime.f\ncalls=1 10\n5 50\n" +
			"fn=(2)\n10 6\ncfn=(2)\ncalls=1 10\n11 40\n", Counts{Ir: 12}},
	} {
		g, err := readGraph(tc.text, map[string]string{})
		if c := g.costOf(SysmonFunc); err != nil || c != tc.want {
			t.Errorf("%q: sysmon %+v, %v; want %+v", tc.text, c, err, tc.want)
		}
	}
}

// TestSysmonNames: a compressed name an earlier file of the process
// defined is known by its id in the next, as a call's target too; a
// function of the same name's prefix is not sysmon.
func TestSysmonNames(t *testing.T) {
	head := "events: Ir sysCount\n"
	first := head + "fn=(3) runtime.sysmon\n10 5\ncfn=(4) runtime.usleep\ncalls=2 20\n* 7 2\nfn=(4)\n20 7 2\nfn=(5) runtime.sysmonUpdateGOMAXPROCS\n1 100\ntotals: 112 2\n"
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
