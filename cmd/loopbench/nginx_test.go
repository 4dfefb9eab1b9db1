package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/loadresult"
)

// nginxPath is Debian's nginx (package nginx).
const nginxPath = "/usr/sbin/nginx"

// TestLoadNginxCount runs load -proto http against Debian's nginx
// (skipped in one line where it is not installed), in a closed loop and
// in an open loop, with no warm-up: every request load sends is one of
// its window's, so the answered requests it reports are exactly the
// lines of nginx's access log, each a 200, read once nginx has stopped.
func TestLoadNginxCount(t *testing.T) {
	if _, err := os.Stat(nginxPath); err != nil {
		t.Skipf("no %s (Debian: apt install nginx): %v", nginxPath, err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"closed", []string{"-conns", "4"}},
		{"open", []string{"-conns", "4", "-rate", "400"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			addr, stop := startNginx(t, dir)
			out := filepath.Join(dir, "load.json")
			args := append([]string{"load", "-url", "http://" + addr + "/file", "-warmup", "0s", "-duration", "1s", "-out", out}, c.args...)
			_, errs, code := runOut(args...)
			stop()
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s", args, code, errs)
			}
			res := readLoadFile(t, out)
			log, err := os.ReadFile(filepath.Join(dir, "access.log"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
			if len(log) == 0 {
				lines = nil
			}
			for i, l := range lines {
				if l != "200 1024" {
					t.Fatalf("access log line %d: %q, want 200 1024 (status, body bytes)", i+1, l)
				}
			}
			if res.Answered == 0 || res.Errors != 0 || !res.Balanced() {
				t.Errorf("load: %d answered, %d errors, balanced %v", res.Answered, res.Errors, res.Balanced())
			}
			if int64(len(lines)) != res.Answered {
				t.Errorf("load answered %d requests (scheduled %d, unsent %d); nginx logged %d", res.Answered, res.Scheduled, res.Unsent, len(lines))
			}
		})
	}
}

// readLoadFile reads the one result of load -out.
func readLoadFile(t *testing.T, path string) loadresult.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := loadresult.Read(path, f)
	if err != nil || len(rs) != 1 {
		t.Fatalf("%s: %d results, %v", path, len(rs), err)
	}
	return rs[0]
}

// nginxConf is nginx's configuration in a test's directory (%[1]s) on a
// loopback port (%[2]d): one process in the foreground, every path of its
// own in the directory, a 1 KiB file at /file, and an access log of each
// request's status and body bytes.
const nginxConf = `daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
lock_file %[1]s/nginx.lock;
error_log %[1]s/error.log;
events { worker_connections 256; }
http {
	default_type application/octet-stream;
	log_format counted '$status $body_bytes_sent';
	access_log %[1]s/access.log counted;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	server {
		listen 127.0.0.1:%[2]d;
		root %[1]s/html;
	}
}
`

// writeNginxConf writes nginxConf and the 1 KiB file into dir, on a
// loopback port free when it was chosen, and returns the configuration's
// path and the port.
func writeNginxConf(t *testing.T, dir string) (conf string, port int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "html"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "html", "file"), bytes.Repeat([]byte("n"), 1024), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conf = filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(nginxConf, dir, port)), 0o644); err != nil {
		t.Fatal(err)
	}
	return conf, port
}

// startNginx starts nginx in dir on a free loopback port and returns its
// address once it accepts connections, and stop, which ends it
// gracefully (SIGQUIT: it finishes its requests and writes their log
// lines) and waits for it; stop is also a cleanup of the test.
func startNginx(t *testing.T, dir string) (addr string, stop func()) {
	t.Helper()
	conf, port := writeNginxConf(t, dir)
	cmd := exec.Command(nginxPath, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", conf)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			<-done
			t.Errorf("nginx did not stop on SIGQUIT within a minute: killed")
		}
	}
	t.Cleanup(stop)
	addr = fmt.Sprintf("127.0.0.1:%d", port)
	for tries := 0; ; tries++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr, stop
		}
		select {
		case err := <-done:
			stopped = true
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx ended before accepting (%v): %s%s", err, stderr.String(), log)
		case <-time.After(20 * time.Millisecond):
			if tries == 3000 {
				t.Fatalf("nginx does not accept on %s after a minute: %v", addr, err)
			}
		}
	}
}
