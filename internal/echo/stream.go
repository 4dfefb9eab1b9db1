package echo

import "github.com/loopbench/loopbench"

// ServeStream starts a stream-style echo server on l, asyncio's
// start_server idiom: a task per connection reads from its StreamReader
// and writes to its StreamWriter, draining after each write. opts are
// StartServer's (WithTLS: over TLS).
func ServeStream(l *loopbench.Loop, network, address string, opts ...loopbench.NetOption) (*loopbench.Server, error) {
	return loopbench.StartServer(l, network, address, func(t *loopbench.Task, r *loopbench.StreamReader, w *loopbench.StreamWriter) {
		defer w.Close()
		for {
			data, err := r.Read(t, BufferSize)
			if err != nil { // io.EOF at the end
				return
			}
			if w.Write(data) != nil || w.Drain(t) != nil {
				return
			}
		}
	}, opts...)
}
