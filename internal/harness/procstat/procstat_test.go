package procstat

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeProc serves files from a map; a missing one is fs.ErrNotExist.
func fakeProc(files map[string]string) Proc {
	return Proc{
		ReadFile: func(path string) ([]byte, error) {
			s, ok := files[path]
			if !ok {
				return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
			}
			return []byte(s), nil
		},
		ReadDir: func(path string) ([]string, error) {
			seen := map[string]bool{}
			var out []string
			for p := range files {
				rest, ok := strings.CutPrefix(p, path+"/")
				if !ok {
					continue
				}
				name, _, _ := strings.Cut(rest, "/")
				if !seen[name] {
					seen[name] = true
					out = append(out, name)
				}
			}
			return out, nil
		},
	}
}

// stat is a /proc/PID/stat line whose command name holds a space and a
// parenthesis, with utime and stime as given.
func stat(utime, stime string) string {
	return "4242 (serve (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 " + utime + " " + stime + " 0 0 20 0 5 0 72644 3133440 409\n"
}

func status(vol, invol string) string {
	return "Name:\tserve\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t" + vol + "\nnonvoluntary_ctxt_switches:\t" + invol + "\n"
}

// TestRead: CPU is utime+stime of /proc/PID/stat in ticks of 1/100 s;
// context switches are summed over the threads' status files.
func TestRead(t *testing.T) {
	p := fakeProc(map[string]string{
		"/proc/4242/stat":             stat("150", "25"),
		"/proc/4242/task/4242/status": status("1000", "7"),
		"/proc/4242/task/4243/status": status("20", "3"),
	})
	u, err := p.Read(4242)
	if err != nil {
		t.Fatal(err)
	}
	want := Usage{CPU: 1750 * time.Millisecond, Voluntary: 1020, Involuntary: 10}
	if u != want {
		t.Errorf("got %+v, want %+v", u, want)
	}
}

// TestPerRequest: two readings make a window, divided over the requests
// answered in it.
func TestPerRequest(t *testing.T) {
	before := Usage{CPU: 2 * time.Second, Voluntary: 100, Involuntary: 5}
	after := Usage{CPU: 2*time.Second + 525*time.Millisecond, Voluntary: 35100, Involuntary: 10}
	cpu, cs := after.Sub(before).PerRequest(35000)
	if cpu != 15000 || cs != 35005.0/35000 {
		t.Errorf("got %v ns/req, %v switches/req; want 15000 and %v", cpu, cs, 35005.0/35000)
	}
	if cpu, cs := after.Sub(before).PerRequest(0); cpu != 0 || cs != 0 {
		t.Errorf("no requests: %v %v, want 0 0", cpu, cs)
	}
}

// TestCores: a window's CPU time over its wall time; 0 for a window with
// no wall time.
func TestCores(t *testing.T) {
	u := Usage{CPU: 1500 * time.Millisecond}
	if got := u.Cores(2 * time.Second); got != 0.75 {
		t.Errorf("1.5 s of CPU over 2 s: %v cores, want 0.75", got)
	}
	if got := u.Cores(0); got != 0 {
		t.Errorf("no wall time: %v cores, want 0", got)
	}
}

// TestReadBad: each malformed file is an error naming it.
func TestReadBad(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"/proc/7/stat":             {"/proc/7/stat": "7 serve S 1 2"},
		"utime or stime":           {"/proc/7/stat": stat("x", "1")},
		"/proc/7/task/7/status":    {"/proc/7/stat": stat("1", "1"), "/proc/7/task/7/status": "Name:\tserve\n"},
		"nonvoluntary_ctxt_switch": {"/proc/7/stat": stat("1", "1"), "/proc/7/task/7/status": status("1", "-2")},
	} {
		_, err := fakeProc(files).Read(7)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v", name, err)
		}
	}
	if _, err := fakeProc(nil).Read(7); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a process that is gone: %v", err)
	}
}

// TestChildren lists the children of every thread.
func TestChildren(t *testing.T) {
	p := fakeProc(map[string]string{
		"/proc/10/task/10/children": "11 ",
		"/proc/10/task/12/children": "13 14",
	})
	got, err := p.Children(10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0]+got[1]+got[2] != 38 {
		t.Errorf("children %v, want 11, 13, 14", got)
	}
}

// TestReadSelf reads this process, whose CPU time only grows.
func TestReadSelf(t *testing.T) {
	if !Supported {
		if _, err := (Proc{}).Read(os.Getpid()); err != ErrUnsupported {
			t.Fatalf("on %s: %v, want ErrUnsupported", runtime.GOOS, err)
		}
		return
	}
	a, err := Proc{}.Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Proc{}.Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := b.Sub(a); d.CPU < 0 || d.Voluntary < 0 || d.Involuntary < 0 || b.Voluntary+b.Involuntary == 0 {
		t.Errorf("%+v then %+v", a, b)
	}
}

// TestParsePerf reads perf stat's CSV lines, and refuses an event it
// could not count.
func TestParsePerf(t *testing.T) {
	out := "# started on Sun Nov 29 00:40:00 2026\n\n" +
		"70123,,raw_syscalls:sys_enter,4001234567,100.00,,\n" +
		"812,,syscalls:sys_enter_futex,4001234567,100.00,,\n" +
		"95,,syscalls:sys_enter_nanosleep,4001234567,100.00,,\n"
	s, err := ParsePerf([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if s != (Syscalls{Total: 70123, Futex: 812, Nanosleep: 95}) || s.Runtime() != 907 {
		t.Errorf("%+v", s)
	}
	bad := strings.Replace(out, "812,", "<not supported>,", 1)
	if _, err := ParsePerf([]byte(bad)); err == nil || !strings.Contains(err.Error(), "syscalls:sys_enter_futex") {
		t.Errorf("<not supported>: %v", err)
	}
	if _, err := ParsePerf([]byte(out[:strings.Index(out, "95,")])); err == nil || !strings.Contains(err.Error(), "nanosleep") {
		t.Errorf("a missing event: %v", err)
	}
}

// TestFindPerfMissing: without perf (or off Linux) one line says system
// calls are not counted; a perf that fails its probe is refused the same
// way.
func TestFindPerfMissing(t *testing.T) {
	missing := func(string) (string, error) { return "", errors.New("not found") }
	_, err := FindPerf(context.Background(), missing)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "not counted") {
		t.Errorf("missing perf: %v", err)
	}
	if runtime.GOOS != "linux" {
		return
	}
	if !strings.Contains(err.Error(), "perf is not installed") {
		t.Errorf("missing perf: %v", err)
	}
	refusing := func(string) (string, error) { return "/bin/false", nil }
	if _, err := FindPerf(context.Background(), refusing); err == nil || !strings.Contains(err.Error(), "may not count") {
		t.Errorf("a refusing perf: %v", err)
	}
}

// TestPerfPrefix: the counts go to the file named, perf attached to the
// process, the program after "--".
func TestPerfPrefix(t *testing.T) {
	got := strings.Join((&Perf{Path: "/usr/bin/perf"}).Prefix(99, "/tmp/x"), " ")
	want := "/usr/bin/perf stat -x , -e raw_syscalls:sys_enter -e syscalls:sys_enter_futex -e syscalls:sys_enter_nanosleep -o /tmp/x -p 99 --"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
