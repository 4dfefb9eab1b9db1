package loopbench

import (
	"time"

	"github.com/loopbench/loopbench/internal/loophook"
	"github.com/loopbench/loopbench/selectors"
)

func init() {
	loophook.Drive = func(l any, now func() time.Duration, wrap func(selectors.Selector) selectors.Selector) {
		l.(*Loop).drive(now, wrap)
	}
	loophook.Yield = func(l any, via func(yield func())) {
		l.(*Loop).c.yieldVia = via
	}
}

// drive gives the loop the clock now and wraps its selector with wrap
// (see loophook.Drive).
func (l *Loop) drive(now func() time.Duration, wrap func(selectors.Selector) selectors.Selector) {
	l.c.clock = now
	l.c.sel = wrap(l.c.sel)
}
