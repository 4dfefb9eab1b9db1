package bench

import (
	"fmt"
	"io"
)

// Units are the custom metrics the workloads report, with the direction
// that is better, for benchstat. WriteUnits prints them as benchfmt Unit
// metadata lines.
var Units = []struct{ Unit, Better string }{
	{"us/write", "lower"},
	{"req/s", "higher"},
	{"handshakes/s", "higher"},
	{"rtt-p99-ns", "lower"},
	{"cpu-ns/timer", "lower"},
	{"ns/timer", "lower"},
	{"schedule-ns/timer", "lower"},
	{"late-p50-ns", "lower"},
	{"late-p90-ns", "lower"},
	{"late-p99-ns", "lower"},
}

// WriteUnits writes the Unit metadata lines of Units.
func WriteUnits(w io.Writer) {
	for _, u := range Units {
		fmt.Fprintf(w, "Unit %s better=%s\n", u.Unit, u.Better)
	}
}
