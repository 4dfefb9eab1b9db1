package verdict

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Floors are per-benchmark noise floors: the smallest relative change of a
// benchmark, in a unit, that is more than this machine's noise. `gate -aa`
// writes them and `-floor` reads them.
//
// The file is text, one floor per line, fields separated by tabs:
//
//	# loopbench noise floors
//	CallSoon/ready=ringbuffer/timers=heap4ary/selector=epoll/mode=chain	sec/op	12.4%
//
// Blank lines and lines starting with # are ignored.
type Floors map[string]float64

func floorKey(name, unit string) string { return name + "\t" + unit }

// Get returns the floor of name in unit, 0 when there is none.
func (f Floors) Get(name, unit string) float64 { return f[floorKey(name, unit)] }

// Set sets the floor of name in unit.
func (f Floors) Set(name, unit string, floor float64) { f[floorKey(name, unit)] = floor }

// ReadFloors reads a floors file.
func ReadFloors(path string) (Floors, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	f := Floors{}
	sc := bufio.NewScanner(file)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: want name<TAB>unit<TAB>floor%%, got %q", path, line, text)
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(fields[2], "%"), 64)
		if err != nil || v < 0 || !strings.HasSuffix(fields[2], "%") {
			return nil, fmt.Errorf("%s:%d: floor %q: want a percentage such as 7.5%%", path, line, fields[2])
		}
		f.Set(fields[0], fields[1], v/100)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Write writes the floors in the file format, sorted by name and unit.
func (f Floors) Write(w io.Writer, comment string) error {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	bw := bufio.NewWriter(w)
	for _, line := range strings.Split(comment, "\n") {
		fmt.Fprintf(bw, "# %s\n", line)
	}
	for _, k := range keys {
		fmt.Fprintf(bw, "%s\t%.3g%%\n", k, 100*f[k])
	}
	return bw.Flush()
}
