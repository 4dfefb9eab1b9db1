package asyncdiff

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
)

//go:embed replay.py
var script string

//go:embed coord.py
var coordScript string

// Python is the interpreter the check runs asyncio with: Debian's, as the
// peers use.
const Python = "/usr/bin/python3"

// RunPython replays schedules under asyncio with python, in one process,
// and returns their traces.
func RunPython(python string, schedules []Schedule) ([][]string, error) {
	return runScript(python, "replay.py", script, nil, schedules, len(schedules))
}

// RunPythonCoord replays coordination schedules under asyncio with
// python (coord.py after replay.py), in one process, and returns their
// traces.
func RunPythonCoord(python string, schedules []CoordSchedule) ([][]string, error) {
	return runScript(python, "coord.py", script+"\n"+coordScript, []string{"coord"}, schedules, len(schedules))
}

// runScript runs src (the script name, in errors) with args, input as
// JSON on its stdin, and reads n traces from its stdout.
func runScript(python, name, src string, args []string, input any, n int) ([][]string, error) {
	in, err := json.Marshal(input)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(python, append([]string{"-I", "-c", src}, args...)...)
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("asyncdiff: %s %s %s: %v: %s", python, name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	var traces [][]string
	if err := json.Unmarshal(out.Bytes(), &traces); err != nil {
		return nil, fmt.Errorf("asyncdiff: the traces %s wrote: %w", name, err)
	}
	if len(traces) != n {
		return nil, fmt.Errorf("asyncdiff: %s wrote %d traces for %d inputs", name, len(traces), n)
	}
	return traces, nil
}

// Diff describes the first difference between the traces want (asyncio's)
// and got (loopbench's), with the entries before it, or returns "".
func Diff(want, got []string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	if i == len(want) && i == len(got) {
		return ""
	}
	at := func(tr []string) string {
		if i < len(tr) {
			return fmt.Sprintf("%q", tr[i])
		}
		return "(end)"
	}
	from := max(0, i-8)
	return fmt.Sprintf("entry %d: asyncio %s, loopbench %s; before it: %q", i, at(want), at(got), want[from:i])
}
