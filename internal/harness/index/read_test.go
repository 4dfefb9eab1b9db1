package index

import "testing"

// TestFromName: the date comes from a run directory's name, and the host
// too when the recorded commit follows it; a gate's name gives its date
// alone, and a name without a valid date gives nothing.
func TestFromName(t *testing.T) {
	for _, c := range []struct {
		name, commit string
		date, host   string
	}{
		{"2026-01-02-host-a-aaaaaaa", "aaaaaaaaaa", "2026-01-02", "host-a"},
		{"2026-01-02-host-a-aaaaaaa-2", "aaaaaaaaaa", "2026-01-02", "host-a"},
		{"2026-01-02-host-a-aaaaaaa", "", "2026-01-02", ""},
		{"gate-2026-01-01-aaaaaaa-bbbbbbb", "aaaaaaa", "2026-01-01", ""},
		{"2026-13-40-host-aaaaaaa", "aaaaaaa", "", ""},
		{"notes", "", "", ""},
	} {
		e := Entry{name: c.name, commit: c.commit}
		e.fromName()
		if e.date != c.date || e.host != c.host || e.dateByName != (c.date != "") || e.hostByName != (c.host != "") {
			t.Errorf("%s: date %q (%v), host %q (%v); want %q and %q", c.name, e.date, e.dateByName, e.host, e.hostByName, c.date, c.host)
		}
	}
}
