package asyncdiff

import (
	_ "embed"
)

//go:embed streams.py
var streamsScript string

// StreamScenarios names the stream and subprocess scenarios of
// streams.py, which the root package's TestStreamsDifferential runs on
// every variant too: partial reads, readuntil across chunks and past the
// limit, readexactly at the end, drain under a peer that does not read,
// write_eof, a kill with the pipes open, communicate after the exit, a
// pipe's limit, a second reader, and a drain the child's exit breaks.
var StreamScenarios = []string{
	"partial_reads", "readuntil_chunks", "readuntil_limit", "readexactly_eof",
	"drain_nonreading", "write_eof", "kill_open_pipes", "communicate_after_exit",
	"pipe_limit", "second_reader", "stdin_broken",
}

// RunStreamScenarios runs the named scenarios of streams.py under
// asyncio with python, in one process, and returns their traces.
func RunStreamScenarios(python string, names []string) ([][]string, error) {
	return runScript(python, "streams.py", streamsScript, nil, names, len(names))
}
