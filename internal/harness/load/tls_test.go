package load

import (
	"context"
	"testing"
	"time"

	"github.com/loopbench/loopbench/bench"
	"github.com/loopbench/loopbench/internal/measure/echo"
)

// TestTLS: over TLS, through the loop's TLS transport, closed and open
// loop: every request is answered and accounted for, and the runs leave
// no descriptor or goroutine behind once the server is gone.
func TestTLS(t *testing.T) {
	leakFree(t, func(t *testing.T) {
		scfg, ccfg, err := bench.EchoTLSConfigs()
		if err != nil {
			t.Fatal(err)
		}
		srv, err := echo.ServeGonetTLS("tcp", "127.0.0.1:0", scfg)
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		addr := srv.Addr().String()
		rep := runBounded(t, context.Background(), Config{Addr: addr, TLS: ccfg, Conns: 3, Size: 256, Duration: 20 * time.Second, Timeout: 5 * time.Second, Requests: 300})
		if rep.Requests != 300 || rep.Errors != 0 || rep.Scheduled != rep.Answered {
			t.Fatalf("closed loop over TLS: %d requests, %d scheduled, %d answered, %d errors %v", rep.Requests, rep.Scheduled, rep.Answered, rep.Errors, rep.ErrorTexts)
		}
		cfg := Config{Addr: addr, TLS: ccfg, Conns: 2, Size: 64, Rate: 400, Duration: 250 * time.Millisecond, Timeout: 5 * time.Second}
		rep = runBounded(t, context.Background(), cfg)
		checkAccounting(t, cfg, rep)
		if rep.Errors != 0 || rep.Answered == 0 {
			t.Fatalf("open loop over TLS: %d answered, %d errors %v", rep.Answered, rep.Errors, rep.ErrorTexts)
		}
	})
}
