//go:build !race

package verdict

const raceEnabled = false
