package serve_test

import (
	"fmt"

	"github.com/loopbench/loopbench/internal/harness/serve"
)

// The first line a server prints names where it listens.
func ExampleParseListening() {
	fmt.Println(serve.ParseListening("listening on 127.0.0.1:9000 (gonet)\n"))
	fmt.Println(serve.ParseListening("bind: address already in use\n"))
	// Output:
	// 127.0.0.1:9000 true
	//  false
}
