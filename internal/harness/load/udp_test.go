package load

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/echo"
)

// TestUDP: requests as datagrams on connected UDP sockets, closed and
// open loop, against a UDP echo server: every request is answered and
// accounted for.
func TestUDP(t *testing.T) {
	srv, err := echo.ServeUDPConn("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	addr := srv.Addr().String()
	rep := runBounded(t, context.Background(), Config{Addr: addr, Network: "udp", Conns: 2, Size: 512, Duration: 20 * time.Second, Timeout: 5 * time.Second, Requests: 300})
	if rep.Requests != 300 || rep.Errors != 0 || rep.Scheduled != rep.Answered {
		t.Fatalf("closed loop over UDP: %d requests, %d scheduled, %d answered, %d errors %v", rep.Requests, rep.Scheduled, rep.Answered, rep.Errors, rep.ErrorTexts)
	}
	cfg := Config{Addr: addr, Network: "udp", Conns: 2, Size: 64, Rate: 400, Duration: 250 * time.Millisecond, Timeout: 5 * time.Second}
	rep = runBounded(t, context.Background(), cfg)
	checkAccounting(t, cfg, rep)
	if rep.Errors != 0 || rep.Answered == 0 {
		t.Fatalf("open loop over UDP: %d answered, %d errors %v", rep.Answered, rep.Errors, rep.ErrorTexts)
	}
	for _, bad := range []Config{
		{Addr: addr, Network: "udp", Conns: 1, Size: MaxDatagram + 1, Duration: time.Second},
		{Addr: addr, Network: "sctp", Conns: 1, Size: 64, Duration: time.Second},
	} {
		if _, err := Run(context.Background(), bad); err == nil || !strings.Contains(err.Error(), bad.Network) && !strings.Contains(err.Error(), "datagram") {
			t.Errorf("Run(%+v) = %v", bad, err)
		}
	}
}
