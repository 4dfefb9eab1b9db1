package loopbench_test

import (
	"bytes"
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/loopbench/loopbench"
)

// streamScenario is the loopbench side of a scenario of
// internal/conform/asyncdiff/streams.py, written as its asyncio side is.
type streamScenario func(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error

// streamScenarios are the scenarios by their names in streams.py.
var streamScenarios = map[string]streamScenario{
	"partial_reads":          scenarioPartialReads,
	"readuntil_chunks":       scenarioReadUntilChunks,
	"readuntil_limit":        scenarioReadUntilLimit,
	"readexactly_eof":        scenarioReadExactlyEOF,
	"drain_nonreading":       scenarioDrainNonReading,
	"write_eof":              scenarioWriteEOF,
	"kill_open_pipes":        scenarioKillOpenPipes,
	"communicate_after_exit": scenarioCommunicateAfterExit,
	"pipe_limit":             scenarioPipeLimit,
	"second_reader":          scenarioSecondReader,
	"stdin_broken":           scenarioStdinBroken,
}

// serveFunc is a stream server's client function.
type serveFunc = func(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter)

// streamPair starts a stream server on 127.0.0.1 running serve and
// connects to it: pair() in streams.py.
func streamPair(tk *loopbench.Task, l *loopbench.Loop, serve serveFunc, server, client []loopbench.NetOption) (*loopbench.Server, *loopbench.StreamReader, *loopbench.StreamWriter, error) {
	s, err := loopbench.StartServer(l, "tcp", "127.0.0.1:0", serve, server...)
	if err != nil {
		return nil, nil, nil, err
	}
	r, w, err := loopbench.OpenConnection(tk, "tcp", s.Addr().String(), client...)
	if err != nil {
		s.Close()
		return nil, nil, nil, err
	}
	return s, r, w, nil
}

// finish closes the client and the server: finish() in streams.py.
func finish(tk *loopbench.Task, s *loopbench.Server, w *loopbench.StreamWriter) error {
	w.Close()
	err := w.WaitClosed(tk)
	s.Close()
	return err
}

// await waits for f, whose result does not matter.
func await(tk *loopbench.Task, f *loopbench.Future) { tk.Await(f) }

func scenarioPartialReads(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	goOn, done := l.CreateFuture(), l.CreateFuture()
	s, r, w, err := streamPair(tk, l, func(tk *loopbench.Task, _ *loopbench.StreamReader, w *loopbench.StreamWriter) {
		w.Write([]byte("hello"))
		await(tk, goOn)
		w.Write([]byte("world"))
		w.WriteEOF()
		await(tk, done)
		w.Close()
	}, nil, nil)
	if err != nil {
		return err
	}
	data, err := r.Read(tk, 3)
	tr.bytes("read3", data, err)
	data, err = r.Read(tk, 100)
	tr.bytes("read100", data, err)
	goOn.SetResult(nil)
	for range 2 {
		data, err = r.Read(tk, 100)
		tr.bytes("read100", data, err)
	}
	data, err = r.Read(tk, -1)
	tr.bytes("read-1", data, err)
	tr.add("at_eof %s", pyBool(r.AtEOF()))
	done.SetResult(nil)
	return finish(tk, s, w)
}

func scenarioReadUntilChunks(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	s, r, w, err := streamPair(tk, l, func(tk *loopbench.Task, _ *loopbench.StreamReader, w *loopbench.StreamWriter) {
		for _, chunk := range []string{"ab", "c\r", "\nde"} {
			w.Write([]byte(chunk))
			w.Drain(tk)
			loopbench.Sleep(tk, 5*time.Millisecond) // separate segments; the result does not depend on them
		}
		w.Close()
	}, nil, nil)
	if err != nil {
		return err
	}
	for range 3 {
		data, err := r.ReadUntil(tk, []byte("\r\n"))
		tr.bytes("readuntil", data, err)
	}
	return finish(tk, s, w)
}

func scenarioReadUntilLimit(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	goOn := l.CreateFuture()
	served := l.CreateFuture()
	s, r, w, err := streamPair(tk, l, func(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		var res streamTrace
		data, err := r.ReadUntil(tk, []byte(";"))
		res.bytes("server readuntil", data, err)
		served.SetResult(res.entries)
		w.Write([]byte("0123456789;"))
		await(tk, goOn)
		w.Write([]byte("0123456789\nrest\nok\n"))
		w.WriteEOF()
	}, []loopbench.NetOption{loopbench.WithStreamLimit(4)}, []loopbench.NetOption{loopbench.WithStreamLimit(8)})
	if err != nil {
		return err
	}
	w.Write([]byte("abcdefgh;"))
	v, err := tk.Await(served)
	if err != nil {
		return err
	}
	tr.entries = append(tr.entries, v.([]string)...)
	data, err := r.ReadUntil(tk, []byte(";"))
	tr.bytes("readuntil", data, err)
	tr.readLine(tk, r)
	goOn.SetResult(nil)
	for range 4 {
		tr.readLine(tk, r)
	}
	return finish(tk, s, w)
}

func scenarioReadExactlyEOF(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	s, r, w, err := streamPair(tk, l, func(_ *loopbench.Task, _ *loopbench.StreamReader, w *loopbench.StreamWriter) {
		w.Write([]byte("abc"))
		w.Close()
	}, nil, nil)
	if err != nil {
		return err
	}
	for _, n := range []int{2, 5, 1, 0} {
		data, err := r.ReadExactly(tk, n)
		tr.bytes(fmt.Sprint("readexactly", n), data, err)
	}
	data, err := r.Read(tk, 10)
	tr.bytes("read10", data, err)
	tr.add("at_eof %s", pyBool(r.AtEOF()))
	return finish(tk, s, w)
}

func scenarioDrainNonReading(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	goOn, got := l.CreateFuture(), l.CreateFuture()
	s, _, w, err := streamPair(tk, l, func(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		await(tk, goOn)
		data, _ := r.Read(tk, -1)
		got.SetResult(len(data))
		w.Close()
	}, nil, nil)
	if err != nil {
		return err
	}
	// A small send buffer, as in streams.py, whatever the system's defaults.
	if err := syscall.SetsockoptInt(w.Transport().Fd(), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 64<<10); err != nil {
		return err
	}
	w.Write(bytes.Repeat([]byte("d"), 2<<20))
	drain := l.CreateTask(func(tk *loopbench.Task) (any, error) { return nil, w.Drain(tk) })
	for range 20 {
		if err := loopbench.Sleep(tk, 0); err != nil {
			return err
		}
	}
	tr.add("drain done before the peer reads %s", pyBool(drain.Done()))
	goOn.SetResult(nil)
	v, err := tk.Await(drain)
	tr.value("drain", v, err)
	w.Close()
	v, err = tk.Await(got)
	tr.value("peer got", v, err)
	return finish(tk, s, w)
}

func scenarioWriteEOF(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	s, r, w, err := streamPair(tk, l, func(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		data, _ := r.Read(tk, -1)
		w.Write(append([]byte("ack:"), data...))
		w.Close()
	}, nil, nil)
	if err != nil {
		return err
	}
	tr.add("can_write_eof %s", pyBool(w.CanWriteEOF()))
	w.Write([]byte("data"))
	w.WriteEOF()
	if err := w.Write([]byte("more")); err != nil {
		tr.add("write after write_eof %s", asyncioException(err))
	} else {
		tr.add("write after write_eof ok")
	}
	data, err := r.Read(tk, -1)
	tr.bytes("read-1", data, err)
	if err := finish(tk, s, w); err != nil {
		return err
	}
	p, err := loopbench.CreateSubprocessExec(tk, []string{"cat"}, loopbench.ProcessOptions{Stdin: loopbench.Pipe, Stdout: loopbench.Pipe})
	if err != nil {
		return err
	}
	tr.add("stdin can_write_eof %s", pyBool(p.Stdin.CanWriteEOF()))
	p.Stdin.Write([]byte("xyz"))
	p.Stdin.WriteEOF()
	data, err = p.Stdout.Read(tk, -1)
	tr.bytes("cat read-1", data, err)
	code, err := p.Wait(tk)
	tr.value("cat wait", code, err)
	return nil
}

// recorder is the SubprocessProtocol of the kill scenario: Recorder in
// streams.py.
type recorder struct {
	loopbench.SubprocessProtocolBase
	events []string
	lost   *loopbench.Future
}

func (p *recorder) PipeConnectionLost(fd int, err error) {
	exc := "None"
	if err != nil {
		exc = asyncioException(err)
	}
	p.events = append(p.events, fmt.Sprintf("pipe %d lost %s", fd, exc))
}

func (p *recorder) ProcessExited() { p.events = append(p.events, "exited") }

func (p *recorder) ConnectionLost(err error) {
	if err != nil {
		p.lost.SetException(err)
		return
	}
	p.lost.SetResult(nil)
}

func scenarioKillOpenPipes(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	proto := &recorder{lost: l.CreateFuture()}
	v, err := tk.Await(l.SubprocessExec(func() loopbench.SubprocessProtocol { return proto }, []string{"sleep", "30"}, loopbench.ProcessOptions{}))
	if err != nil {
		return err
	}
	st := v.(*loopbench.SubprocessTransport)
	st.Kill()
	v, err = tk.Await(proto.lost)
	tr.value("connection_lost", v, err)
	slices.Sort(proto.events)
	tr.entries = append(tr.entries, proto.events...)
	code, _ := st.ReturnCode()
	tr.add("returncode %d", code)
	st.Close()

	p, err := loopbench.CreateSubprocessExec(tk, []string{"cat"}, loopbench.ProcessOptions{Stdin: loopbench.Pipe, Stdout: loopbench.Pipe})
	if err != nil {
		return err
	}
	p.Kill()
	code, err = p.Wait(tk)
	tr.value("cat wait", code, err)
	data, err := p.Stdout.Read(tk, -1)
	tr.bytes("cat read-1", data, err)
	tr.value("cat stdin wait_closed", nil, p.Stdin.WaitClosed(tk))
	tr.add("cat stdin is_closing %s", pyBool(p.Stdin.IsClosing()))
	return nil
}

func scenarioCommunicateAfterExit(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	big := bytes.Repeat([]byte("x"), 1<<20)
	for _, cmd := range []string{"echo gone", "exec 0<&-; echo stdin closed; sleep 0.2"} {
		p, err := loopbench.CreateSubprocessExec(tk, []string{"sh", "-c", cmd}, loopbench.ProcessOptions{Stdin: loopbench.Pipe, Stdout: loopbench.Pipe})
		if err != nil {
			return err
		}
		tr.readLine(tk, p.Stdout)
		if cmd == "echo gone" {
			code, err := p.Wait(tk)
			tr.value("wait", code, err)
		}
		out, errOut, err := p.Communicate(tk, big)
		if err != nil {
			tr.add("communicate %s", asyncioException(err))
		} else {
			tr.add("communicate %s %s", out, pyBytesOrNone(errOut))
		}
		code, _ := p.ReturnCode()
		tr.add("returncode %d", code)
	}
	return nil
}

// pyBytesOrNone formats a stream's output as streams.py does: None for
// a stream that is not a pipe.
func pyBytesOrNone(b []byte) string {
	if b == nil {
		return "None"
	}
	return string(b)
}

func scenarioPipeLimit(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	p, err := loopbench.CreateSubprocessExec(tk, []string{"printf", "0123456789abcdef;"}, loopbench.ProcessOptions{Stdout: loopbench.Pipe, Limit: 8})
	if err != nil {
		return err
	}
	data, err := p.Stdout.ReadUntil(tk, []byte(";"))
	tr.bytes("readuntil", data, err)
	out, _, err := p.Communicate(tk, nil)
	if err != nil {
		return err
	}
	tr.add("communicate %s", out)
	code, _ := p.ReturnCode()
	tr.add("returncode %d", code)
	return nil
}

func scenarioSecondReader(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	goOn := l.CreateFuture()
	s, r, w, err := streamPair(tk, l, func(tk *loopbench.Task, _ *loopbench.StreamReader, w *loopbench.StreamWriter) {
		await(tk, goOn)
		w.Write([]byte("x"))
		w.Close()
	}, nil, nil)
	if err != nil {
		return err
	}
	first := l.CreateTask(func(tk *loopbench.Task) (any, error) { return r.Read(tk, 10) })
	if err := loopbench.Sleep(tk, 0); err != nil {
		return err
	}
	data, err := r.Read(tk, 10)
	tr.bytes("second read", data, err)
	goOn.SetResult(nil)
	v, err := tk.Await(first)
	data, _ = v.([]byte)
	tr.bytes("first read", data, err)
	return finish(tk, s, w)
}

func scenarioStdinBroken(tk *loopbench.Task, l *loopbench.Loop, tr *streamTrace) error {
	p, err := loopbench.CreateSubprocessExec(tk, []string{"head", "-c", "10"}, loopbench.ProcessOptions{Stdin: loopbench.Pipe, Stdout: loopbench.Pipe})
	if err != nil {
		return err
	}
	p.Stdin.Write(bytes.Repeat([]byte("y"), 1<<20))
	tr.value("drain", nil, p.Stdin.Drain(tk))
	data, err := p.Stdout.Read(tk, -1)
	tr.bytes("read-1", data, err)
	code, err := p.Wait(tk)
	tr.value("wait", code, err)
	return nil
}
