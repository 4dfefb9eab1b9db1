package load

import "time"

// cpuMark is the process's CPU time at an instant.
type cpuMark struct {
	cpu time.Duration
	at  time.Time
}

// markWindow takes the process's CPU time (read by now) when the window
// opens, measure after the start (the start's mark itself when there is
// no warmup). The func it returns, called once the run is over, gives
// that mark, or the start's when the run ended before its window opened.
// The generator's CPU is reported from this mark on: the answered
// requests it is divided by are the window's, so the warmup's CPU is
// left out with the warmup's answers.
func markWindow(measure time.Duration, start cpuMark, now func() cpuMark) func() cpuMark {
	if measure <= 0 {
		return func() cpuMark { return start }
	}
	ch := make(chan cpuMark, 1)
	t := time.AfterFunc(time.Until(start.at.Add(measure)), func() { ch <- now() })
	return func() cpuMark {
		if t.Stop() {
			return start
		}
		return <-ch
	}
}

// processMark is the process's CPU time now.
func processMark() cpuMark { return cpuMark{processCPU(), time.Now()} }
