package peers

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbench/loopbench/internal/measure/tlscert"
)

// TestTLSEchoServers: the Python peers' TLS echo servers (Python's ssl
// under asyncio and uvloop) echo over TLS 1.3 to crypto/tls; the peers
// without one say so.
func TestTLSEchoServers(t *testing.T) {
	ca, _, files, err := tlscert.Throwaway(t.TempDir(), "server", "localhost", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ready, skipped := Find(context.Background(), EchoServers, t.TempDir())
	for _, s := range skipped {
		t.Logf("skipped %s", s)
	}
	for _, p := range ready {
		t.Run(p.Name, func(t *testing.T) {
			argv, ok := p.EchoServerTLS("127.0.0.1", "0", files.Cert, files.Key)
			if !ok {
				if slices.Contains(TLSEchoServers, p.Name) {
					t.Fatal("listed as a TLS echo server, but has none")
				}
				t.Skipf("%s has no TLS echo server", p.Name)
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "listening on ") || !strings.Contains(line, "TLS") {
				t.Fatalf("first line %q, %v", line, err)
			}
			c, err := tls.Dial("tcp", strings.Fields(line)[2], &tls.Config{RootCAs: ca.Pool, ServerName: "localhost"})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			msg := strings.Repeat("tls echo ", 1000)
			if _, err := io.WriteString(c, msg); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(msg))
			if _, err := io.ReadFull(c, got); err != nil || string(got) != msg || c.ConnectionState().Version != tls.VersionTLS13 {
				t.Fatalf("echo: %v, equal %v, %s", err, string(got) == msg, tls.VersionName(c.ConnectionState().Version))
			}
		})
	}
}
