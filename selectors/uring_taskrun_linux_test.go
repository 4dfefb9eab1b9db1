//go:build linux

package selectors

import (
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUringSetupFlags plays kernels of three ages: each is asked for the
// newest flags first (COOP_TASKRUN and TASKRUN_FLAG), and one that
// refuses them with EINVAL is asked for the next set, down to the
// oldest; any other refusal ends the asking.
func TestUringSetupFlags(t *testing.T) {
	for _, c := range []struct {
		name  string
		knows uint32 // flags the played kernel takes
		errno unix.Errno
		want  []uint32 // the flag sets asked, in order
	}{
		{"6.x", ^uint32(0), 0, uringSetupFlags[:1]},
		{"5.18", uringSetupFlags[1], 0, uringSetupFlags[:2]},
		{"5.11", uringSetupFlags[2], 0, uringSetupFlags},
		{"disabled", 0, unix.EPERM, uringSetupFlags[:1]},
	} {
		var asked []uint32
		_, err := newRing(func(sq uint32, p *uringParams) (int, error) {
			asked = append(asked, p.flags)
			if c.errno != 0 {
				return -1, c.errno
			}
			if p.flags&^c.knows != 0 {
				return -1, unix.EINVAL
			}
			return -1, unix.ENOMEM // stop here: the played kernel took the flags
		}, 2, 4)
		if err == nil || len(asked) != len(c.want) {
			t.Errorf("%s: asked %#x, err %v; want %#x and an error", c.name, asked, err, c.want)
			continue
		}
		for i := range asked {
			if asked[i] != c.want[i] {
				t.Errorf("%s: ask %d was %#x, want %#x", c.name, i, asked[i], c.want[i])
			}
		}
	}
}

// TestUringSelectNowTaskRun: a zero-timeout Select with nothing to submit
// makes no system call, unless the SQ ring's flags say completions wait
// in the thread's task work; then it enters the kernel once to post them.
func TestUringSelectNowTaskRun(t *testing.T) {
	s := openUring(t)
	if _, err := s.Select(0, nil); err != nil {
		t.Fatal(err)
	}
	enters := s.enters
	if _, err := s.Select(0, nil); err != nil || s.enters != enters {
		t.Fatalf("Select(0) with nothing to do: %d enters, %v; want none", s.enters-enters, err)
	}
	atomic.OrUint32(s.ring.sqFlags, uringSQTaskRun) // as the kernel marks pending task work
	if _, err := s.Select(0, nil); err != nil || s.enters != enters+1 {
		t.Fatalf("Select(0) with task work pending: %d enters, %v; want 1", s.enters-enters, err)
	}
}
