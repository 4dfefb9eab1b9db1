package bench

import (
	"slices"
	"testing"

	"github.com/loopbench/loopbench/internal/measure/echo"
)

// reported records what a Timer is told to report.
type reported struct {
	calls
	units  []string
	values []float64
}

func (m *reported) ReportMetric(v float64, unit string) {
	m.units, m.values = append(m.units, unit), append(m.values, v)
}

// TestEchoClientsReport: round trips shared among three clients are
// reported once, req/s then the 99th percentile of all of them, both
// positive.
func TestEchoClientsReport(t *testing.T) {
	g, err := echo.ServeGonet("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	clients, err := DialEcho(g.Addr().String(), 3, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer clients.Close()
	m := &reported{}
	if err := clients.Run(m, 30, ServeGoroutines); err != nil {
		t.Fatal(err)
	}
	if want := []string{"req/s", "rtt-p99-ns"}; !slices.Equal(m.units, want) {
		t.Fatalf("reported %v, want %v", m.units, want)
	}
	for i, v := range m.values {
		if v <= 0 {
			t.Errorf("%s = %v, want > 0", m.units[i], v)
		}
	}
	if want := []string{"reset", "stop"}; !slices.Equal(m.got, want) {
		t.Errorf("timer calls %v, want %v", m.got, want)
	}
}
