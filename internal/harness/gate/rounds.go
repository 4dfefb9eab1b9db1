package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/loopbench/loopbench/internal/measure/rounds"
)

// runRounds runs cfg.Count rounds, or fewer when cfg.Stop says the
// rounds so far decide, each in an order drawn from cfg.Seed (package
// rounds), writing each run to the results files as it ends.
func runRounds(ctx context.Context, cfg Config, res *Result) error {
	files, err := openFiles(cfg, res, res.sides())
	if err != nil {
		return err
	}
	defer files.close()
	sides := []*Side{res.Base, res.Head}
	rc := rounds.Config{Count: cfg.Count, Seed: cfg.Seed, Stop: cfg.Stop}
	done, err := rounds.Run(ctx, rc, sides, func(ctx context.Context, st rounds.Step, s *Side) error {
		if s.err != nil {
			return nil
		}
		return runSide(ctx, cfg, files, st.Round, s)
	})
	res.Rounds = done.Rounds
	for _, o := range done.Orders {
		res.Orders = append(res.Orders, sides[o[0]].Name+","+sides[o[1]].Name)
	}
	if errors.As(err, new(*rounds.Interrupted)) {
		return interrupted(cfg, res)
	}
	return err
}

// runSide runs side s once, in round (from 0), and appends its output to
// the results files.
func runSide(ctx context.Context, cfg Config, files *files, round int, s *Side) error {
	fmt.Fprintf(cfg.Log, "round %d of %d: %s\n", round+1, cfg.Count, s.Name)
	out, err := s.runOnce(ctx, cfg)
	if err != nil {
		return err
	}
	if !bytes.Contains(out, []byte("\nBenchmark")) && !bytes.HasPrefix(out, []byte("Benchmark")) {
		return errorf("-bench %q matched no benchmark in %s at %s", cfg.Bench, s.packages(), s.Name)
	}
	if err := files.write(s, out); err != nil {
		return err
	}
	s.Runs++
	return nil
}

// interrupted is the error of a gate whose context ended between or
// during runs: what each side ran (a round may have ended on one side).
func interrupted(cfg Config, res *Result) error {
	return errorf("interrupted after %d of %d rounds: base ran %d times, head %d; the files hold what was measured", res.Rounds, cfg.Count, res.Base.Runs, res.Head.Runs)
}

// runOnce runs the side's benchmarks once, each package's binary in
// turn, and returns their output.
func (s *Side) runOnce(ctx context.Context, cfg Config) ([]byte, error) {
	var all []byte
	for _, b := range s.bins {
		cmd := exec.CommandContext(ctx, b.path, "-test.run=^$", "-test.bench="+cfg.Bench, "-test.count=1",
			"-test.benchtime="+cfg.Benchtime, "-test.benchmem")
		cmd.Dir = b.dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		all = append(all, out...)
		if err != nil {
			return all, errorf("%s (%s): the benchmarks of %s failed: %s", s.Name, s.Rev, b.pkg, firstLines(append(out, stderr.Bytes()...), err))
		}
	}
	return all, nil
}

// packages names the side's packages, for a message.
func (s *Side) packages() string {
	var names []string
	for _, b := range s.bins {
		names = append(names, b.pkg)
	}
	return strings.Join(names, ", ")
}
