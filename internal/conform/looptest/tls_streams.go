package looptest

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/loopbench/loopbench"
)

// testTLSBuffered: a BufferedProtocol reads decrypted data into its own
// buffer; the client's close_notify (CloseWrite) is its end of stream, and
// it still answers over the half-closed connection.
func testTLSBuffered(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	p := &bufProto{buf: make([]byte, 100), lost: make(chan error, 1)}
	s, err := l.CreateServer("tcp", "127.0.0.1:0", func() loopbench.BaseProtocol { return p }, loopbench.WithTLS(f.serverConfig(0)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const total = 300 << 10
	whileClient(t, l, func() error {
		c, err := tls.Dial("tcp", s.Addr().String(), f.clientConfig(0))
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := c.Write(pattern(total)); err != nil {
			return err
		}
		if err := c.CloseWrite(); err != nil {
			return err
		}
		answer, err := io.ReadAll(c)
		if err != nil || string(answer) != strconv.Itoa(total) {
			return fmt.Errorf("answer %q, %v; want %d", answer, err, total)
		}
		return nil
	})
	if err, _ := complete(t, l, futureOf(l, p.lost)); err != nil {
		t.Fatalf("ConnectionLost(%v), want nil", err)
	}
}

// testTLSHalfClose: WriteEOF on a loop TLS client sends close_notify; the
// crypto/tls server reads its end, answers, and closes; the client gets
// the answer and then its own end of stream.
func testTLSHalfClose(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	g := newGoTLSServer(t, f.serverConfig(0))
	p, err := tlsConnect(t, l, g.ln.Addr().String(), false, loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("localhost"))
	if err != nil {
		t.Fatal(err)
	}
	p.t.Write([]byte("hello"))
	p.t.WriteEOF()
	if err := p.t.Write([]byte("more")); err == nil {
		t.Fatal("Write after WriteEOF: no error")
	}
	if err := p.lostErr(t, l); err != nil || string(p.got) != "hello" || p.eofs != 1 {
		t.Fatalf("ConnectionLost(%v), got %q, %d EOFs; want nil, hello, 1", err, p.got, p.eofs)
	}
}

// testTLSStreams: StartServer and OpenConnection with WithTLS.
func testTLSStreams(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	s, err := loopbench.StartServer(l, "tcp", "127.0.0.1:0", upperLines, loopbench.WithTLS(f.serverConfig(0)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runTask(t, l, func(tk *loopbench.Task) error {
		r, w, err := loopbench.OpenConnection(tk, "tcp", s.Addr().String(), loopbench.WithTLS(f.clientConfig(0)), loopbench.WithServerName("localhost"))
		if err != nil {
			return err
		}
		defer w.Close()
		if st, ok := w.Transport().TLSConnectionState(); !ok || st.Version != tls.VersionTLS13 {
			return fmt.Errorf("writer's transport: TLS state %v, version %s", ok, tls.VersionName(st.Version))
		}
		return lineRoundTrip(tk, r, w, "over tls\n")
	})
}

// upperLines is a stream server's client function: it answers each line
// in upper case until the end of the stream.
func upperLines(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
	defer w.Close()
	for {
		line, err := r.ReadLine(tk)
		if err != nil || len(line) == 0 {
			return
		}
		w.Write(bytes.ToUpper(line))
		if w.Drain(tk) != nil {
			return
		}
	}
}

// lineRoundTrip writes line and expects it back in upper case.
func lineRoundTrip(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter, line string) error {
	if err := w.Write([]byte(line)); err != nil {
		return err
	}
	if err := w.Drain(tk); err != nil {
		return err
	}
	got, err := r.ReadLine(tk)
	if err != nil || !bytes.Equal(got, bytes.ToUpper([]byte(line))) {
		return fmt.Errorf("round trip of %q: %q, %v", line, got, err)
	}
	return nil
}

// testStartTLSStream: a plain-text exchange, then both sides upgrade the
// same connection with StreamWriter.StartTLS and go on over TLS; what was
// sent in plain text is not encrypted after the fact, and both writers'
// transports report TLS.
func testStartTLSStream(t *testing.T, l *loopbench.Loop) {
	f := certs(t)
	serverState := make(chan tls.ConnectionState, 1)
	s, err := loopbench.StartServer(l, "tcp", "127.0.0.1:0", func(tk *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		line, err := r.ReadLine(tk)
		if err != nil || string(line) != "STARTTLS\n" {
			w.Close()
			return
		}
		w.Write([]byte("GO AHEAD\n"))
		if err := w.StartTLS(tk, f.serverConfig(0)); err != nil {
			w.Close()
			return
		}
		st, _ := w.Transport().TLSConnectionState()
		serverState <- st
		upperLines(tk, r, w)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runTask(t, l, func(tk *loopbench.Task) error {
		r, w, err := loopbench.OpenConnection(tk, "tcp", s.Addr().String())
		if err != nil {
			return err
		}
		defer w.Close()
		if err := w.Write([]byte("STARTTLS\n")); err != nil {
			return err
		}
		if got, err := r.ReadLine(tk); err != nil || string(got) != "GO AHEAD\n" {
			return fmt.Errorf("plain-text answer %q, %v", got, err)
		}
		if err := w.StartTLS(tk, f.clientConfig(0), loopbench.WithServerName("localhost")); err != nil {
			return err
		}
		if st, ok := w.Transport().TLSConnectionState(); !ok || st.ServerName != "localhost" {
			return fmt.Errorf("after StartTLS the client's transport reports TLS %v, server name %q", ok, st.ServerName)
		}
		return lineRoundTrip(tk, r, w, "secret\n")
	})
	select {
	case st := <-serverState:
		if st.Version != tls.VersionTLS13 {
			t.Fatalf("server side negotiated %s", tls.VersionName(st.Version))
		}
	default:
		t.Fatal("the server's StartTLS did not complete")
	}
}
