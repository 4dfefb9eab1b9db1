package loopbench

import "fmt"

// New returns a loop built from cfg's parts. An unknown part name is an
// error that lists the valid ones.
func New(cfg Config) (*Loop, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("loopbench: %w", err)
	}
	l := &Loop{}
	var err error
	if cfg.normalized().Ready == "deque" {
		l.dq = new(dequeLoop)
		l.c = &l.dq.core
		l.c.parts = newParts()
		err = l.dq.setup(cfg)
	} else {
		l.rb = new(ringbufferLoop)
		l.c = &l.rb.core
		l.c.parts = newParts()
		err = l.rb.setup(cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("loopbench: New(%v): %w", cfg, err)
	}
	return l, nil
}

// newParts makes the state of every subsystem of a new loop, by kind
// (the dialer is the loop's own field: core.setup adds it).
func newParts() [numParts]part {
	return [numParts]part{
		partSignals:    &signalHandlers{},
		partTasks:      &taskList{},
		partCoroutines: &coroutinePool{},
		partExecutor:   &executor{},
		partChildren:   &childSet{running: map[*SubprocessTransport]struct{}{}},
		partServers:    newOpenSet[*Server](),
		partTransports: newOpenSet[*Transport](),
		partDatagrams:  newOpenSet[*DatagramTransport](),
		partTLS:        &tlsLoop{},
	}
}
