package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/tlscert"
	"github.com/loopbench/loopbench/internal/sys/cpu"
)

// startServe runs serve with args in the background and returns the
// address its listening line gives and that line; the command must end
// by its -duration, cleanly.
func startServe(t *testing.T, args ...string) (addr, line string) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(append([]string{"serve"}, args...), pw, io.Discard)
		pw.Close()
		done <- err
	}()
	t.Cleanup(func() {
		if err := <-done; err != nil {
			t.Errorf("serve %q: %v", args, err)
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		t.Fatalf("serve %q printed %q, %v", args, line, err)
	}
	go io.Copy(io.Discard, pr)
	return strings.Fields(line)[2], line
}

// TestServeTLS: serve -tls serves TLS from the loop's protocol- and
// stream-style servers and gonet, with a throwaway certificate it
// announces, or with -cert and -key.
func TestServeTLS(t *testing.T) {
	for _, args := range [][]string{
		{"-tls", "-duration", "2s"},
		{"-tls", "-duration", "2s", "-style", "stream"},
		{"-tls", "-duration", "2s", "-impl", "gonet"},
	} {
		addr, line := startServe(t, args...)
		if !strings.Contains(line, "throwaway certificate") || !strings.Contains(line, "-insecure") {
			t.Fatalf("%q: the listening line does not say the certificate is a throwaway: %q", args, line)
		}
		c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte("ping"))
		got := make([]byte, 4)
		if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping" {
			t.Fatalf("%q: echo %q, %v", args, got, err)
		}
		c.Close()
	}
}

// TestLoadTLS: load -tls against serve -tls with -cert and -key verifies
// the certificate with -ca; -insecure accepts serve's throwaway one and
// says so in the output and the label; without either the handshake
// fails.
func TestLoadTLS(t *testing.T) {
	_, _, files, err := tlscert.Throwaway(t.TempDir(), "server", "localhost", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	load := func(addr string, extra ...string) (string, error) {
		var out, errb bytes.Buffer
		args := append([]string{"load", "-addr", addr, "-conns", "2", "-size", "64", "-warmup", "0s", "-duration", "5s", "-requests", "100"}, extra...)
		err := run(args, &out, &errb)
		return out.String() + errb.String(), err
	}
	verified, _ := startServe(t, "-tls", "-cert", files.Cert, "-key", files.Key, "-duration", "3s")
	out, err := load(verified, "-tls", "-ca", files.CA, "-servername", "localhost")
	if err != nil || !strings.Contains(out, "tls: TLS 1.3, X25519, certificate verified for localhost") || answered(out) < 100 {
		t.Fatalf("load -tls -ca: %v\n%s", err, out)
	}
	throwaway, _ := startServe(t, "-tls", "-duration", "3s")
	out, err = load(throwaway, "-tls", "-insecure", "-format", "benchfmt")
	if err != nil || !strings.Contains(out, "tls: TLS 1.3, X25519, certificate NOT verified (-insecure)\n") || !strings.Contains(out, "label=tls-insecure:") {
		t.Fatalf("load -tls -insecure: %v\n%s", err, out)
	}
	if out, err = load(throwaway, "-tls"); exitCode(err) != 1 || !strings.Contains(out, "certificate") {
		t.Fatalf("load -tls of a throwaway certificate: exit %d\n%s", exitCode(err), out)
	}
}

// TestTLSUsageErrors: TLS flags that do not fit are usage errors, one
// line each.
func TestTLSUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "-tls", "-style", "task"},
		{"serve", "-tls", "-impl", "libuv"},
		{"serve", "-cert", "c.pem", "-key", "k.pem"},
		{"serve", "-tls", "-cert", "c.pem"},
		{"load", "-addr", "127.0.0.1:1", "-insecure"},
		{"load", "-addr", "127.0.0.1:1", "-tls", "-ca", "/nonexistent.pem"},
	} {
		var errb bytes.Buffer
		if err := run(args, io.Discard, &errb); exitCode(err) != 2 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, exitCode(err), errb.String())
		}
	}
}

// TestPeersTLSQuick runs loopbench peers -tls at tiny sizes with uvloop
// (skipped, with its package, where it is missing): loopbench, gonet and
// uvloop serve TLS echoes and handshakes in their own processes.
func TestPeersTLSQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the peer programs")
	}
	all, _ := cpu.Allowed() // peers pins this process
	t.Cleanup(func() { cpu.Pin(all) })
	dir := filepath.Join(t.TempDir(), "out")
	_, errs, code := runOut("peers", "-quick", "-count", "1", "-peers", "uvloop", "-tls", "-benchtime", "5ms", "-echotime", "200ms", "-out", dir)
	if strings.Contains(errs, "skipped") {
		t.Skip(strings.TrimSpace(errs))
	}
	b, err := os.ReadFile(filepath.Join(dir, "raw.txt"))
	if code != 0 || err != nil {
		t.Fatalf("exit %d, %v\nstderr %s", code, err, errs)
	}
	raw := string(b)
	for _, server := range []string{"ready=ringbuffer/timers=heap4ary/selector=epoll", "impl=gonet", "impl=uvloop"} {
		for _, params := range []string{"size=1024/conns=1 ", "style=tls/size=1024/conns=1 ", "style=tls/op=handshake/conns=1 "} {
			if want := "BenchmarkEchoServer/" + server + "/" + params; !strings.Contains(raw, want) {
				t.Errorf("raw.txt has no %q", want)
			}
		}
	}
	if !strings.Contains(raw, " handshakes/s") {
		t.Error("raw.txt has no handshakes/s")
	}
}
