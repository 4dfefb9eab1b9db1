package looptest

import (
	"errors"
	"io"
	"slices"
	"strconv"
	"testing"

	"github.com/loopbench/loopbench"
)

// isLimitOverrun reports whether err is a *LimitOverrunError that
// searched consumed bytes.
func isLimitOverrun(err error, consumed int) bool {
	over, ok := errors.AsType[*loopbench.LimitOverrunError](err)
	return ok && over.Consumed == consumed
}

// readUntilCase is one ReadUntil with several separators on a reader fed
// chunks one iteration apart.
type readUntilCase struct {
	limit  int
	chunks []string
	eof    bool
	seps   []string
	want   []string // what the successive ReadUntils return; "!..." an error
}

// testReadUntilSeparators: ReadUntil with several separators stops at the
// match that ends first, the shortest where two end together, across
// chunks and against the limit, as Python 3.13's readuntil with a tuple.
func testReadUntilSeparators(t *testing.T, l *loopbench.Loop) {
	crlf := []string{"\r\n", "\n"}
	for _, c := range []readUntilCase{
		{chunks: []string{"a\r\nb\nc"}, seps: crlf, want: []string{"a\r\n", "b\n"}},
		{chunks: []string{"x\r\n"}, seps: []string{"\n", "\r\n"}, want: []string{"x\r\n"}},
		{chunks: []string{"abcd"}, seps: []string{"abcd", "bc"}, want: []string{"abc"}},
		{chunks: []string{"ab", "c\r", "\nd"}, seps: crlf, want: []string{"abc\r\n"}},
		{chunks: []string{"a", "bc", "d;"}, seps: []string{";", "cd"}, want: []string{"abcd"}},
		{limit: 4, chunks: []string{"abcdef"}, seps: crlf, want: []string{"!overrun 5"}},
		{limit: 4, chunks: []string{"abcdef\n"}, seps: crlf, want: []string{"!overrun 6"}},
		{chunks: []string{"zz"}, eof: true, seps: crlf, want: []string{"!incomplete zz"}},
	} {
		got := readUntilRun(t, l, c)
		if !slices.Equal(got, c.want) {
			t.Errorf("ReadUntil(%q) over %q (limit %d): %q, want %q", c.seps, c.chunks, c.limit, got, c.want)
		}
	}
	r := loopbench.NewStreamReader(l, 0)
	runTask(t, l, func(tk *loopbench.Task) error {
		if _, err := r.ReadUntil(tk); err == nil {
			return errorf("ReadUntil with no separator: no error")
		}
		if _, err := r.ReadUntil(tk, []byte("\n"), nil); err == nil {
			return errorf("ReadUntil with an empty separator: no error")
		}
		// An error set on the stream comes after the buffered lines.
		broken := errors.New("broken")
		r.FeedData([]byte("a\nb"))
		r.SetException(broken)
		if line, err := r.ReadUntil(tk, []byte("\n")); string(line) != "a\n" || err != nil {
			return errorf("ReadUntil before the error: %q, %v", line, err)
		}
		if _, err := r.ReadUntil(tk, []byte("\n")); err != broken {
			return errorf("ReadUntil after the buffered line: %v, want the stream's error", err)
		}
		return nil
	})
}

// readUntilRun feeds c's chunks one iteration apart while a task reads
// with ReadUntil len(c.want) times.
func readUntilRun(t *testing.T, l *loopbench.Loop, c readUntilCase) []string {
	r := loopbench.NewStreamReader(l, c.limit)
	seps := make([][]byte, len(c.seps))
	for i, s := range c.seps {
		seps[i] = []byte(s)
	}
	var feed func(i int)
	feed = func(i int) {
		if i == len(c.chunks) {
			if c.eof {
				r.FeedEOF()
			}
			return
		}
		r.FeedData([]byte(c.chunks[i]))
		l.CallSoon(func() { feed(i + 1) })
	}
	l.CallSoon(func() { feed(0) })
	var got []string
	runTask(t, l, func(tk *loopbench.Task) error {
		for range c.want {
			data, err := r.ReadUntil(tk, seps...)
			inc, isInc := errors.AsType[*loopbench.IncompleteReadError](err)
			over, isOver := errors.AsType[*loopbench.LimitOverrunError](err)
			switch {
			case isInc:
				got = append(got, "!incomplete "+string(inc.Partial))
			case isOver:
				got = append(got, "!overrun "+strconv.Itoa(over.Consumed))
			case err != nil:
				return err
			default:
				got = append(got, string(data))
			}
		}
		return nil
	})
	return got
}

// testStreamLimitOption: WithStreamLimit is the limit of the readers
// StartServer and OpenConnection make (asyncio's limit=), refused by the
// calls without streams and when not over 0; a socket's writer can write
// EOF and keep reading.
func testStreamLimitOption(t *testing.T, l *loopbench.Loop) {
	served := l.CreateFuture()
	s, err := loopbench.StartServer(l, "tcp", "127.0.0.1:0", func(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		_, err := r.ReadUntil(tk, []byte(";"))
		w.Write([]byte("0123456789;"))
		w.Close()
		served.SetResult(err)
	}, loopbench.WithStreamLimit(4))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runTask(t, l, func(tk *loopbench.Task) error {
		r, w, err := loopbench.OpenConnection(tk, "tcp", s.Addr().String(), loopbench.WithStreamLimit(8))
		if err != nil {
			return err
		}
		if !w.CanWriteEOF() {
			return errorf("a socket's CanWriteEOF: false")
		}
		w.Write([]byte("abcdefgh;"))
		w.WriteEOF()
		if v, err := tk.Await(served); err != nil || !isLimitOverrun(v.(error), 8) {
			return errorf("the server's ReadUntil past a limit of 4: %v, %v; want a LimitOverrunError at 8", v, err)
		}
		if _, err := r.ReadUntil(tk, []byte(";")); !isLimitOverrun(err, 10) {
			return errorf("the client's ReadUntil past a limit of 8: %v, want a LimitOverrunError at 10", err)
		}
		if rest, err := r.Read(tk, -1); string(rest) != "0123456789;" || err != nil {
			return errorf("after the overrun: %q, %v", rest, err)
		}
		if _, err := r.Read(tk, 1); !errors.Is(err, io.EOF) {
			return errorf("at the end: %v", err)
		}
		w.Close()
		return w.WaitClosed(tk)
	})
	for _, bad := range []func() error{
		func() error {
			s, err := l.CreateServer("tcp", "127.0.0.1:0", func() loopbench.BaseProtocol { return &loopbench.ProtocolBase{} }, loopbench.WithStreamLimit(8))
			if err == nil {
				s.Close()
			}
			return err
		},
		func() error {
			s, err := loopbench.StartServer(l, "tcp", "127.0.0.1:0", nil, loopbench.WithStreamLimit(0))
			if err == nil {
				s.Close()
			}
			return err
		},
	} {
		if err := bad(); err == nil {
			t.Fatal("a misused WithStreamLimit: no error")
		}
	}
}
