package peers_test

import (
	"fmt"
	"time"

	"github.com/loopbench/loopbench/peers"
)

// The floor client's arguments for an open loop of 50,000 req/s over 50
// connections, 1 KiB each, for 10 s, with the generator's timer slack
// (1 ns, the last argument); Peer.EchoClient runs it.
func ExampleFloorLoad_Args() {
	args, err := peers.FloorLoad{Addr: "127.0.0.1:7000", Size: 1024, Conns: 50, Rate: 50000, Duration: 10 * time.Second}.Args()
	fmt.Println(args, err)
	// Output: [echo-client 127.0.0.1 7000 1024 50 50000 10000 1] <nil>
}
