// Package serve chooses and starts the servers of loopbench serve and
// loopbench peers.
//
// In this process, a checked Choice (Choice.Check) runs until its
// context is done: an echo or HTTP/1.1 server on a loop in protocol,
// task or stream style, gonet's on the net package, or a peer's program
// as a child that is sent SIGTERM at the end (SIGKILL 5 s later).
//
// From outside, a Launcher starts loopbench serve for a Server as a
// child process pinned to the first CPU this process may use, pins this
// process to the second, and reads the child's listening line; Proc.Stop
// ends the child the same way and restores this process's CPUs. Every
// server says where it listens in one first line that starts with
// ListeningPrefix (ParseListening reads it).
package serve

import (
	"strings"

	"github.com/loopbench/loopbench"
)

// Server is an echo or HTTP server loopbench serve runs: Name is
// loopbench (a loop's server of Style, protocol by default), gonet, or a
// peer's.
type Server struct {
	Name, Style string
}

// Label names the server in results: loopbench, loopbench-task, gonet.
func (s Server) Label() string {
	if s.Style != "" && s.Style != "protocol" {
		return s.Name + "-" + s.Style
	}
	return s.Name
}

// BenchName names the server in benchmark names as EchoServer lines do:
// Variant's, and loopbench's non-default styles as style=task or
// style=stream after its variant.
func (s Server) BenchName() string {
	name := Variant(s.Name)
	if s.Name == "loopbench" && s.Style != "" && s.Style != "protocol" {
		name += "/style=" + s.Style
	}
	return name
}

// Variant names the server name in a benchmark name: loopbench's
// default variant, or impl=<name>.
func Variant(name string) string {
	if name == "loopbench" {
		return loopbench.Config{}.String()
	}
	return "impl=" + name
}

// ListeningPrefix starts the first line every server prints, followed
// by its address and, after a blank, what it is.
const ListeningPrefix = "listening on "

// ParseListening returns the address a listening line names, and false
// for a line that is not one.
func ParseListening(line string) (addr string, ok bool) {
	rest, ok := strings.CutPrefix(line, ListeningPrefix)
	if !ok {
		return "", false
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", false
	}
	return fields[0], true
}
