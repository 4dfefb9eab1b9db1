package loopbench_test

import (
	"bytes"
	"crypto/tls"
	"fmt"

	"github.com/loopbench/loopbench"
	"github.com/loopbench/loopbench/internal/measure/tlscert"
)

// shouter answers what it reads in upper case.
type shouter struct {
	loopbench.ProtocolBase
	t *loopbench.Transport
}

func (s *shouter) ConnectionMade(t *loopbench.Transport) { s.t = t }
func (s *shouter) DataReceived(data []byte)              { s.t.Write(bytes.ToUpper(data)) }

// listener completes done with the first data it reads.
type listener struct {
	loopbench.ProtocolBase
	done *loopbench.Future
}

func (p *listener) DataReceived(data []byte) { p.done.SetResult(string(data)) }

// A TLS server and a TLS client on one loop, as asyncio's
// create_server(ssl=) and create_connection(ssl=, server_hostname=); the
// transport tells what the handshake negotiated.
func ExampleWithTLS() {
	ca, _ := tlscert.NewCA("example CA") // a throwaway authority and certificate
	cert, _ := ca.Issue("localhost")
	l, _ := loopbench.New(loopbench.Config{})
	defer l.Close()
	srv, err := l.CreateServer("tcp", "127.0.0.1:0", func() loopbench.BaseProtocol { return &shouter{} },
		loopbench.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	client := &listener{done: l.CreateFuture()}
	v, err := l.RunUntilComplete(l.CreateConnection("tcp", srv.Addr().String(), func() loopbench.BaseProtocol { return client },
		loopbench.WithTLS(&tls.Config{RootCAs: ca.Pool}), loopbench.WithServerName("localhost")))
	if err != nil {
		fmt.Println(err)
		return
	}
	t := v.(*loopbench.Transport)
	st, _ := t.TLSConnectionState()
	fmt.Println(tls.VersionName(st.Version), st.PeerCertificates[0].Subject.CommonName)
	t.Write([]byte("hello over tls"))
	fmt.Println(l.RunUntilComplete(client.done))
	// Output:
	// TLS 1.3 localhost
	// HELLO OVER TLS <nil>
}

// STARTTLS: a plain-text exchange, then both ends upgrade the same
// connection, as asyncio's StreamWriter.start_tls.
func ExampleStreamWriter_StartTLS() {
	ca, _ := tlscert.NewCA("example CA")
	cert, _ := ca.Issue("localhost")
	v, err := loopbench.Run(loopbench.Config{}, func(t *loopbench.Task) (any, error) {
		srv, err := loopbench.StartServer(t.Loop(), "tcp", "127.0.0.1:0", func(t *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
			defer w.Close()
			if line, _ := r.ReadLine(t); string(line) != "STARTTLS\n" {
				return
			}
			w.Write([]byte("GO AHEAD\n"))
			if w.StartTLS(t, &tls.Config{Certificates: []tls.Certificate{cert}}) != nil {
				return
			}
			line, _ := r.ReadLine(t)
			w.Write(bytes.ToUpper(line))
		})
		if err != nil {
			return nil, err
		}
		defer srv.Close()
		r, w, err := loopbench.OpenConnection(t, "tcp", srv.Addr().String())
		if err != nil {
			return nil, err
		}
		defer w.Close()
		w.Write([]byte("STARTTLS\n"))
		if line, err := r.ReadLine(t); err != nil || string(line) != "GO AHEAD\n" {
			return nil, fmt.Errorf("%q, %v", line, err)
		}
		if err := w.StartTLS(t, &tls.Config{RootCAs: ca.Pool}, loopbench.WithServerName("localhost")); err != nil {
			return nil, err
		}
		w.Write([]byte("secret\n"))
		return r.ReadLine(t)
	})
	fmt.Printf("%q %v\n", v, err)
	// Output: "SECRET\n" <nil>
}
