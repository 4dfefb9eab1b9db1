package httpwire_test

import (
	"fmt"

	"github.com/loopbench/loopbench/internal/harness/httpwire"
)

// A response read in two pieces, as a socket may deliver it.
func ExampleResponse() {
	var r httpwire.Response
	r.Reset(false)
	in := []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
	for _, piece := range [][]byte{in[:20], in[20:]} {
		n, done, err := r.Feed(piece)
		fmt.Println(n, done, err)
	}
	fmt.Println(r.Status(), r.BodyBytes(), r.KeepAlive())
	// Output:
	// 20 false <nil>
	// 42 true <nil>
	// 200 5 true
}
