package main

import (
	"io"

	"github.com/loopbench/loopbench/internal/harness/machine"
)

// machineConfig is the machine's and the build's configuration, as every
// command's benchfmt output records it (machine.RunConfig).
func machineConfig() [][2]string { return machine.RunConfig() }

// writeConfig writes machineConfig as benchfmt configuration lines.
func writeConfig(w io.Writer) { machine.WriteRunConfig(w) }

// commit is the revision of loopbench's source this binary was built
// from (machine.Commit).
func commit() string { return machine.Commit() }
