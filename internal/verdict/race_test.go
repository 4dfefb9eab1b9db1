//go:build race

package verdict

// raceEnabled: the race detector slows the simulations tenfold.
const raceEnabled = true
