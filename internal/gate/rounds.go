package gate

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
)

// runRounds runs cfg.Count rounds, or fewer when cfg.Stop says the
// rounds so far decide, each in an order drawn from cfg.Seed, writing
// each run to the results files as it ends.
func runRounds(ctx context.Context, cfg Config, res *Result) error {
	files, err := openFiles(cfg, res, res.sides())
	if err != nil {
		return err
	}
	defer files.close()
	r := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	for round := range cfg.Count {
		order := []*Side{res.Base, res.Head}
		if r.IntN(2) == 1 {
			order[0], order[1] = res.Head, res.Base
		}
		res.Orders = append(res.Orders, order[0].Name+","+order[1].Name)
		if err := runRound(ctx, cfg, res, files, round, order); err != nil {
			return err
		}
		res.Rounds++
		if cfg.Stop != nil && cfg.Stop(res.Rounds) {
			break
		}
	}
	return nil
}

// runRound runs each side that built once, in order, and appends its
// output to the results files. round counts from 0.
func runRound(ctx context.Context, cfg Config, res *Result, files *files, round int, order []*Side) error {
	for _, s := range order {
		if s.err != nil {
			continue
		}
		if ctx.Err() != nil {
			return interrupted(cfg, res)
		}
		fmt.Fprintf(cfg.Log, "round %d of %d: %s\n", round+1, cfg.Count, s.Name)
		out, err := s.runOnce(ctx, cfg)
		if err != nil {
			if ctx.Err() != nil {
				return interrupted(cfg, res)
			}
			return err
		}
		if !bytes.Contains(out, []byte("\nBenchmark")) && !bytes.HasPrefix(out, []byte("Benchmark")) {
			return errorf("-bench %q matched no benchmark in %s at %s", cfg.Bench, cfg.Pkg, s.Name)
		}
		if err := files.write(s, out); err != nil {
			return err
		}
		s.Runs++
	}
	return nil
}

// interrupted is the error of a gate whose context ended between or
// during runs: what each side ran (a round may have ended on one side).
func interrupted(cfg Config, res *Result) error {
	return errorf("interrupted after %d of %d rounds: base ran %d times, head %d; the files hold what was measured", res.Rounds, cfg.Count, res.Base.Runs, res.Head.Runs)
}

// runOnce runs the side's benchmarks once and returns their output.
func (s *Side) runOnce(ctx context.Context, cfg Config) ([]byte, error) {
	cmd := exec.CommandContext(ctx, s.Binary, "-test.run=^$", "-test.bench="+cfg.Bench, "-test.count=1",
		"-test.benchtime="+cfg.Benchtime, "-test.benchmem")
	cmd.Dir = s.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, errorf("%s (%s): the benchmarks failed: %s", s.Name, s.Rev, firstLines(append(out, stderr.Bytes()...), err))
	}
	return out, nil
}
