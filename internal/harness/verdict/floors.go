package verdict

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/montanaflynn/stats"
)

// Floors are per-benchmark noise floors: the smallest relative change of a
// benchmark, in a unit, under a configuration group, that is more than this
// machine's noise. `gate -aa` writes them and `-floor` reads them.
//
// The file is text, one floor per line, four fields separated by tabs:
// the configuration group (as compare prints it; empty when the files hold
// one setup), the benchmark, the unit and the floor:
//
//	# loopbench noise floors
//		CallSoon/ready=ringbuffer/timers=heap4ary/selector=epoll/mode=chain	sec/op	12.4%
//
// Blank lines and lines starting with # are ignored.
type Floors map[string]float64

func floorKey(group, name, unit string) string { return group + "\t" + name + "\t" + unit }

// Get returns the floor of name in unit under group, 0 when there is none.
func (f Floors) Get(group, name, unit string) float64 { return f[floorKey(group, name, unit)] }

// Set sets the floor of name in unit under group.
func (f Floors) Set(group, name, unit string, floor float64) { f[floorKey(group, name, unit)] = floor }

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
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 4 {
			return nil, fmt.Errorf("%s:%d: want group<TAB>name<TAB>unit<TAB>floor%% (write it again with gate -aa -write-floor), got %q", path, line, text)
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(fields[3], "%"), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) || !strings.HasSuffix(fields[3], "%") {
			return nil, fmt.Errorf("%s:%d: floor %q: want a percentage such as 7.5%%", path, line, fields[3])
		}
		f.Set(fields[0], fields[1], fields[2], v/100)
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

// MinFloorSamples is the fewest samples per side AAFloor takes a floor
// from: below it the bootstrap has too few distinct resamples to give an
// upper quantile.
const MinFloorSamples = 8

// FloorQuantile is the quantile of the A/A delta a floor is set at.
const FloorQuantile = 0.95

// AAFloor returns a noise floor from one A/A comparison's samples: the
// FloorQuantile upper quantile of |median(b*)/median(a*) - 1| over 2000
// bootstrap resamples of each side, drawn from seed. One A/A delta is as
// likely to fall near zero as not, so twice it is no bound; the quantile
// of the resampled deltas is the change such samples would show by chance
// in 19 A/A runs out of 20. It refuses fewer than MinFloorSamples values
// a side.
func AAFloor(a, b []float64, seed uint64) (float64, error) {
	if len(a) < MinFloorSamples || len(b) < MinFloorSamples {
		return 0, fmt.Errorf("%d+%d samples: a floor needs at least %d a side", len(a), len(b), MinFloorSamples)
	}
	r := rand.New(rand.NewPCG(seed, 0x100f))
	const resamples = 2000
	deltas := make([]float64, resamples)
	ra, rb := make([]float64, len(a)), make([]float64, len(b))
	for i := range deltas {
		ma, mb := median(resample(r, a, ra)), median(resample(r, b, rb))
		if ma == 0 {
			deltas[i] = math.Inf(1)
			if mb == 0 {
				deltas[i] = 0
			}
			continue
		}
		deltas[i] = math.Abs(mb/ma - 1)
	}
	slices.Sort(deltas)
	return deltas[int(math.Ceil(FloorQuantile*resamples))-1], nil
}

func resample(r *rand.Rand, xs, into []float64) []float64 {
	for i := range into {
		into[i] = xs[r.IntN(len(xs))]
	}
	return into
}

// median is the median of xs (the mean of the middle pair for an even
// count), through the one implementation every consumer uses.
func median(xs []float64) float64 {
	m, _ := stats.Median(xs)
	return m
}
