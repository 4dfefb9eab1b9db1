package verdict_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbench/loopbench/internal/harness/verdict"
)

// A percentage needs its sign: a bare number is refused.
func ExampleParseEffect() {
	for _, s := range []string{"5%", "0.5%", "5"} {
		v, err := verdict.ParseEffect(s)
		fmt.Println(v, err)
	}
	// Output:
	// 0.05 <nil>
	// 0.005 <nil>
	// 0 -min-effect "5": want a percentage with its % sign, such as 5%
}

// TestSettingsOptions: valid settings give their options, the floors
// read and the filter parsed; each bad setting is one line naming it.
func TestSettingsOptions(t *testing.T) {
	floors := filepath.Join(t.TempDir(), "floors.txt")
	f := verdict.Floors{}
	f.Set("", "BenchmarkX", "sec/op", 0.07)
	w, err := os.Create(floors)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Write(w, "test floors"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	good := verdict.Settings{Alpha: 0.01, MinEffect: "2%", Floor: floors, Filter: ".name:X", RequireEquivalence: true, Format: "json"}
	o, filter, err := good.Options()
	if err != nil || filter == nil || o.Alpha != 0.01 || o.MinEffect != 0.02 || !o.RequireEquivalence || o.Floors.Get("", "BenchmarkX", "sec/op") != 0.07 {
		t.Fatalf("options %+v, filter %v, err %v", o, filter, err)
	}
	for _, c := range []struct {
		change func(*verdict.Settings)
		want   string
	}{
		{func(s *verdict.Settings) { s.MinEffect = "2" }, `-min-effect "2"`},
		{func(s *verdict.Settings) { s.Alpha = 1 }, "-alpha 1: want a level between 0 and 1"},
		{func(s *verdict.Settings) { s.Format = "xml" }, `-format "xml": want text or json`},
		{func(s *verdict.Settings) { s.Floor = floors + ".absent" }, "-floor: "},
		{func(s *verdict.Settings) { s.Filter = "(" }, `-filter "(": `},
	} {
		s := good
		c.change(&s)
		_, _, err := s.Options()
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: error %v; want one line starting %q", s, err, c.want)
		}
	}
}
