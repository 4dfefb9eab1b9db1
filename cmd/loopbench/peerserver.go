package main

import (
	"io"
	"os"
	"sync"

	"github.com/loopbench/loopbench/internal/harness/serve"
)

// lockedWriter serializes writes to w: a server's stderr, copied by
// os/exec's goroutine, and the progress lines share it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// asCLI, set to 1 in a child's environment, makes loopbench's test binary
// run the command line it is given, as loopbench would (see TestMain).
const asCLI = "LOOPBENCH_AS_CLI"

// serverLauncher starts peers' servers: this executable's serve (the
// test binary as loopbench, with asCLI), their stderr to stderr, this
// process pinned as -cpu pins (pinSpare).
func serverLauncher(stderr io.Writer) serve.Launcher {
	return serve.Launcher{Env: append(os.Environ(), asCLI+"=1"), Stderr: stderr, Pin: pinSpare}
}
