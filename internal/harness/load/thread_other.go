//go:build unix && !linux

package load

import "github.com/loopbench/loopbench/internal/sys/sock"

// prepareThread does nothing here: there is no thread affinity to set
// (the CLI refuses -cpu) and no timer slack.
func prepareThread(int) {}

// threadID is 0: there is no thread to prepare here.
func threadID() int { return 0 }

// enableRecvTimestamps is false: the receive lag is measured on Linux.
func enableRecvTimestamps(int) bool { return false }

// stampReader is a plain read here: no receive timestamps.
type stampReader struct{}

func (*stampReader) read(fd int, buf []byte) (int, int64, error) {
	n, err := sock.Read(fd, buf)
	return n, 0, err
}
