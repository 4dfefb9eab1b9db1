package serve

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"

	"github.com/loopbench/loopbench/internal/sys/cpu"
)

// Launcher starts servers in their own processes: Exe serve with the
// server's flags, in the environment Env, their standard error to
// Stderr. Pin pins this process to CPUs (the generator's side) and sets
// its GOMAXPROCS.
type Launcher struct {
	Exe    string // loopbench ("": this process's executable)
	Env    []string
	Stderr io.Writer
	Pin    func(cpus []int) error
}

// Proc is a server started by a Launcher.
type Proc struct {
	Addr string // where it listens
	PID  int    // the serve process's id
	stop func()
}

// Stop ends the server and restores this process's CPUs.
func (p *Proc) Stop() { p.stop() }

// stopGrace is how long a server has to end after SIGTERM before it is
// killed.
const stopGrace = 5 * time.Second

// Start starts s (serve with extra arguments after its own) pinned to
// the first CPU this process may use, and pins this process to the
// second, where there are two.
func (l Launcher) Start(s Server, extra []string) (*Proc, error) {
	all, err := cpu.Allowed() // none where pinning is unsupported: server and client unpinned
	if err != nil && !errors.Is(err, cpu.ErrUnsupported) {
		return nil, err
	}
	exe := l.Exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	srv := exec.Command(exe, append(l.args(s, all), extra...)...)
	srv.Env = l.Env
	out, err := srv.StdoutPipe()
	if err != nil {
		return nil, err
	}
	srv.Stderr = l.Stderr
	if err := srv.Start(); err != nil {
		return nil, err
	}
	end := func() { endProcess(srv) }
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := ParseListening(line)
	if err != nil || !ok {
		end()
		return nil, fmt.Errorf("the server did not start: %q %v", line, err)
	}
	go io.Copy(io.Discard, out)
	procs := runtime.GOMAXPROCS(0)
	if len(all) >= 2 {
		if err := l.Pin(all[1:2]); err != nil {
			end()
			return nil, err
		}
	}
	return &Proc{Addr: addr, PID: srv.Process.Pid, stop: func() {
		end()
		if len(all) >= 2 {
			cpu.Pin(all)
			runtime.GOMAXPROCS(procs)
		}
	}}, nil
}

// args are serve's arguments for s, pinned to the first of cpus where
// there are two.
func (l Launcher) args(s Server, cpus []int) []string {
	args := []string{"serve", "-addr", "127.0.0.1:0"}
	if s.Name != "loopbench" {
		args = append(args, "-impl", s.Name)
	} else if s.Style != "" {
		args = append(args, "-style", s.Style)
	}
	if len(cpus) >= 2 {
		args = append(args, "-cpu", fmt.Sprint(cpus[0]))
	}
	return args
}

// endProcess ends cmd's process (terminate) and waits for it.
func endProcess(cmd *exec.Cmd) {
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	terminate(cmd.Process, done)
}

// terminate sends p SIGTERM and waits until done is closed (p waited
// for), killing p if that takes stopGrace.
func terminate(p *os.Process, done <-chan struct{}) {
	p.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(stopGrace):
		p.Kill()
		<-done
	}
}
