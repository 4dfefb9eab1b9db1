//go:build linux

package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// probeScript checks, after the page has loaded, what only a browser
// can see. It lists every two non-empty texts of one SVG whose boxes as
// the browser lays them out overlap by more than a pixel each way, under
// a line "OVERLAPS n"; and, under "LEGENDS n", every legend entry of
// LEGENDS (per SVG, the texts of its figure's legend) that is missing,
// too small to read, outside its figure or the window, or, but for a
// line of text alone, without a coloured mark just left of it.
const probeScript = `<script>
const LEGENDS = %s;
window.addEventListener('load', () => {
  const out = [], bad = [];
  document.querySelectorAll('svg').forEach((svg, si) => {
    const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim() !== '');
    const rs = texts.map(t => ({t: t.textContent.trim(), r: t.getBoundingClientRect()}));
    for (let i = 0; i < rs.length; i++) for (let j = i + 1; j < rs.length; j++) {
      const a = rs[i].r, b = rs[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) out.push('figure ' + (si + 1) + ': "' + rs[i].t + '" over "' + rs[j].t + '"');
    }
    const box = svg.getBoundingClientRect();
    const marks = [...svg.querySelectorAll('path')]
      .filter(p => {
        const st = getComputedStyle(p), plain = ['none', 'rgb(255, 255, 255)', 'rgb(0, 0, 0)'];
        return !plain.includes(st.fill) || !plain.includes(st.stroke);
      })
      .map(p => p.getBoundingClientRect());
    const want = LEGENDS[si] || [];
    if (want.length === 0) bad.push('figure ' + (si + 1) + ': no legend');
    want.forEach((name, k) => {
      const e = rs.find(x => x.t === name);
      if (!e) { bad.push('figure ' + (si + 1) + ': no legend entry "' + name + '"'); return; }
      const r = e.r;
      if (r.height < 9 || r.width < 4 || r.left < Math.max(box.left, 0) - 1 || r.right > Math.min(box.right, window.innerWidth) + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        bad.push('figure ' + (si + 1) + ': legend entry "' + name + '" not readable at ' + [r.left, r.top, r.width, r.height].map(Math.round).join(','));
      }
      const marked = marks.some(m => m.right <= r.left + 1 && m.right > r.left - 40 && m.bottom > r.top && m.top < r.bottom && m.width > 2);
      if (!name.startsWith('colour: ') && !marked) bad.push('figure ' + (si + 1) + ': legend entry "' + name + '" has no coloured mark');
    });
  });
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = 'OVERLAPS ' + out.length + '\n' + out.join('\n') + '\nLEGENDS ' + bad.length + '\n' + bad.join('\n') + '\nEND';
  document.body.appendChild(pre);
});
</script>`

var probeRe = regexp.MustCompile(`(?s)OVERLAPS (\d+)\n(.*?)\nLEGENDS (\d+)\n(.*?)\nEND</pre>`)

// TestBrowserReport opens report.html of two machines' runs, of one run
// of many variants, and of a run whose figures once read badly (columns
// of different keys, a case only the baseline ran, allocations below one
// per op) in headless Chromium 1280 pixels wide, and fails when two labels of a figure overlap as the browser lays them out
// (panel titles, axis labels, ticks, legends), or when a figure's legend
// is missing, an entry of it is too small to read or outside the figure
// or the window, or a colour entry has no coloured mark beside it.
// Without Chromium it is skipped with one line. LOOPBENCH_SCREENSHOTS
// names a directory to write a screenshot of each page to.
func TestBrowserReport(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s not found (Debian package chromium): the browser check of report.html is skipped", chromium)
	}
	if testing.Short() {
		t.Skip("-short: the browser check is skipped")
	}
	figureFile := filepath.Join(t.TempDir(), "raw.txt")
	if err := os.WriteFile(figureFile, []byte(figureRun), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, files := range map[string][]string{"hosts": hosts, "run": {"testdata/run.txt", "testdata/units.txt"}, "figures": {figureFile}} {
		rep, err := Read(files, Options{Default: def})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := rep.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		probe := writeProbe(t, rep, dir)
		dom := runChromium(t, "--dump-dom", "file://"+probe)
		m := probeRe.FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("%s: the page's check did not run; chromium printed %d bytes", name, len(dom))
		}
		if m[1] != "0" {
			t.Errorf("%s: %s labels overlap in report.html:\n%s", name, m[1], m[2])
		}
		if m[3] != "0" {
			t.Errorf("%s: %s legend faults in report.html:\n%s", name, m[3], m[4])
		}
		if out := os.Getenv("LOOPBENCH_SCREENSHOTS"); out != "" {
			shot := filepath.Join(out, name+".png")
			runChromium(t, "--screenshot="+shot, "file://"+filepath.Join(dir, "report.html"))
			if b, err := os.ReadFile(shot); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
				t.Errorf("%s: no screenshot (%v)", name, err)
			}
		}
	}
}

// writeProbe writes dir/probe.html: dir's report.html with probeScript,
// told each figure's legend, and returns its path.
func writeProbe(t *testing.T, rep *Report, dir string) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	figs, err := rep.Figures()
	if err != nil {
		t.Fatal(err)
	}
	legends := make([][]string, len(figs))
	for i, f := range figs {
		legends[i] = append([]string{}, f.Legend...)
	}
	js, err := json.Marshal(legends)
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(probeScript, js)
	probe := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(probe, bytes.Replace(page, []byte("</body>"), []byte(script+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return probe
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
