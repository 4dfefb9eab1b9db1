package gate

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// files are the gate's three results files: base.txt and head.txt, one
// side each, and gate.txt, both in the order they ran, each run under a
// "side" and "commit" configuration line, so that `benchstat -col side
// gate.txt` pivots it.
type files struct {
	gate  *os.File
	sides map[*Side]*os.File
}

func openFiles(cfg Config, res *Result, sides []*Side) (*files, error) {
	f := &files{sides: map[*Side]*os.File{}}
	var err error
	if f.gate, err = os.Create(res.GatePath); err != nil {
		return nil, errorf("%v", err)
	}
	header := func(w *bufio.Writer) {
		for _, kv := range cfg.Machine {
			fmt.Fprintf(w, "%s: %s\n", kv[0], kv[1])
		}
		fmt.Fprintf(w, "seed: %d\n", cfg.Seed)
	}
	gw := bufio.NewWriter(f.gate)
	header(gw)
	if err := gw.Flush(); err != nil {
		f.close()
		return nil, errorf("%v", err)
	}
	for _, s := range sides {
		s.Path = filepath.Join(cfg.Out, s.Name+".txt")
		if s.err != nil {
			os.Remove(s.Path) // no stale file from an earlier gate
			continue
		}
		file, err := os.Create(s.Path)
		if err != nil {
			f.close()
			return nil, errorf("%v", err)
		}
		f.sides[s] = file
		w := bufio.NewWriter(file)
		header(w)
		fmt.Fprintf(w, "commit: %s\nside: %s\n", s.Commit, s.Name)
		if err := w.Flush(); err != nil {
			f.close()
			return nil, errorf("%v", err)
		}
	}
	return f, nil
}

// write appends one run of side s to its file and to gate.txt.
func (f *files) write(s *Side, out []byte) error {
	if _, err := f.sides[s].Write(out); err != nil {
		return errorf("%v", err)
	}
	if _, err := fmt.Fprintf(f.gate, "side: %s\ncommit: %s\n%s", s.Name, s.Commit, out); err != nil {
		return errorf("%v", err)
	}
	return nil
}

func (f *files) close() {
	if f.gate != nil {
		f.gate.Close()
	}
	for _, file := range f.sides {
		file.Close()
	}
}
