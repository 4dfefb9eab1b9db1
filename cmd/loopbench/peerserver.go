package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loopbench/loopbench/internal/sys/cpu"
)

// lockedWriter serializes writes to w: a server's stderr, copied by
// os/exec's goroutine, and the progress lines share it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// echoServer is an echo server loopbench serve runs: name is loopbench
// (a loop server of style, protocol by default), gonet, or a peer's.
type echoServer struct {
	name, style string
}

// label names the server in results: loopbench, loopbench-task, gonet.
func (s echoServer) label() string {
	if s.style != "" && s.style != "protocol" {
		return s.name + "-" + s.style
	}
	return s.name
}

// startServer starts s in its own process (this binary's serve, with
// extra arguments after its own) pinned
// to the first CPU this process may use, and pins this process to the
// second, where there are two; stop ends the server and restores this
// process's CPUs.
func startServer(s echoServer, extra []string, stderr io.Writer) (addr string, stop func(), err error) {
	addr, _, stop, err = startServerProc(s, extra, stderr)
	return addr, stop, err
}

// startServerProc is startServer, also returning the serve process's id.
func startServerProc(s echoServer, extra []string, stderr io.Writer) (addr string, pid int, stop func(), err error) {
	all, err := cpu.Allowed() // none where pinning is unsupported: server and client unpinned
	if err != nil && !errors.Is(err, cpu.ErrUnsupported) {
		return "", 0, nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", 0, nil, err
	}
	args := []string{"serve", "-addr", "127.0.0.1:0"}
	if s.name != "loopbench" {
		args = append(args, "-impl", s.name)
	} else if s.style != "" {
		args = append(args, "-style", s.style)
	}
	if len(all) >= 2 {
		args = append(args, "-cpu", fmt.Sprint(all[0]))
	}
	srv := exec.Command(self, append(args, extra...)...)
	srv.Env = append(os.Environ(), asCLI+"=1")
	out, err := srv.StdoutPipe()
	if err != nil {
		return "", 0, nil, err
	}
	srv.Stderr = stderr
	if err := srv.Start(); err != nil {
		return "", 0, nil, err
	}
	end := func() {
		srv.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { srv.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			srv.Process.Kill()
			<-done
		}
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		end()
		return "", 0, nil, fmt.Errorf("the server did not start: %q %v", line, err)
	}
	go io.Copy(io.Discard, out)
	procs := runtime.GOMAXPROCS(0)
	if len(all) >= 2 {
		if err := pinSpare(all[1:2]); err != nil {
			end()
			return "", 0, nil, err
		}
	}
	return strings.Fields(line)[2], srv.Process.Pid, func() {
		end()
		if len(all) >= 2 {
			cpu.Pin(all)
			runtime.GOMAXPROCS(procs)
		}
	}, nil
}
