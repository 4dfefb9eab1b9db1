package echo

import "github.com/loopbench/loopbench"

// ServeStream starts a stream-style echo server on l, asyncio's
// start_server idiom: a task per connection reads from its StreamReader
// and writes to its StreamWriter, draining after each write. opts are
// StartServer's (WithTLS: over TLS).
func ServeStream(l *loopbench.Loop, network, address string, opts ...loopbench.NetOption) (*loopbench.Server, error) {
	return ServeStreamWork(l, nil, network, address, opts...)
}

// ServeStreamWork is ServeStream spending w on every request (none if w
// is nil).
func ServeStreamWork(l *loopbench.Loop, w *Work, network, address string, opts ...loopbench.NetOption) (*loopbench.Server, error) {
	return loopbench.StartServer(l, network, address, func(t *loopbench.Task, r *loopbench.StreamReader, sw *loopbench.StreamWriter) {
		defer sw.Close()
		m := w.meter()
		for {
			data, err := r.Read(t, BufferSize)
			if err != nil { // io.EOF at the end
				return
			}
			m.received(len(data))
			if sw.Write(data) != nil || sw.Drain(t) != nil {
				return
			}
		}
	}, opts...)
}
