//go:build linux

package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chromium is the browser the check runs, where Debian's package
// chromium puts it.
const chromium = "/usr/bin/chromium"

// overlapScript lists, after the page has loaded, every two non-empty
// texts of one SVG whose boxes as the browser lays them out overlap by
// more than a pixel each way, under a line "OVERLAPS n".
const overlapScript = `<script>
window.addEventListener('load', () => {
  const out = [];
  document.querySelectorAll('svg').forEach((svg, si) => {
    const rs = [...svg.querySelectorAll('text')]
      .filter(t => t.textContent.trim() !== '')
      .map(t => ({t: t.textContent.trim(), r: t.getBoundingClientRect()}));
    for (let i = 0; i < rs.length; i++) for (let j = i + 1; j < rs.length; j++) {
      const a = rs[i].r, b = rs[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) out.push('figure ' + (si + 1) + ': "' + rs[i].t + '" over "' + rs[j].t + '"');
    }
  });
  const pre = document.createElement('pre');
  pre.id = 'overlaps';
  pre.textContent = 'OVERLAPS ' + out.length + '\n' + out.join('\n');
  document.body.appendChild(pre);
});
</script>`

var overlapsRe = regexp.MustCompile(`(?s)OVERLAPS (\d+)\n(.*?)</pre>`)

// TestBrowserNoOverlappingLabels opens report.html of two machines' runs
// and of one run of many variants in headless Chromium, takes a
// screenshot, and fails when two labels of a figure overlap as the
// browser lays them out (panel titles, axis labels, ticks, legends).
// Without Chromium it is skipped with one line; CI does not install it.
func TestBrowserNoOverlappingLabels(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s not found (Debian package chromium): the browser check of report.html is skipped", chromium)
	}
	if testing.Short() {
		t.Skip("-short: the browser check is skipped")
	}
	for name, files := range map[string][]string{"hosts": hosts, "run": {"testdata/run.txt", "testdata/units.txt"}} {
		rep, err := Read(files, Options{Default: def})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := rep.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(filepath.Join(dir, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		probe := filepath.Join(dir, "probe.html")
		if err := os.WriteFile(probe, bytes.Replace(page, []byte("</body>"), []byte(overlapScript+"</body>"), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		dom := runChromium(t, "--dump-dom", "file://"+probe)
		m := overlapsRe.FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("%s: the page's check did not run; chromium printed %d bytes", name, len(dom))
		}
		if m[1] != "0" {
			t.Errorf("%s: %s labels overlap in report.html:\n%s", name, m[1], m[2])
		}
		shot := filepath.Join(dir, name+".png")
		runChromium(t, "--screenshot="+shot, "file://"+filepath.Join(dir, "report.html"))
		if b, err := os.ReadFile(shot); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s: no screenshot (%v)", name, err)
		} else if out := os.Getenv("LOOPBENCH_SCREENSHOTS"); out != "" {
			os.WriteFile(filepath.Join(out, name+".png"), b, 0o644)
		}
	}
}

// runChromium runs headless Chromium with args in a process group of its
// own, killed whole if it outlives two minutes, and returns its output.
func runChromium(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,6000", "--virtual-time-budget=10000"}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	// The browser's helpers share its group: none outlives the test.
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}
