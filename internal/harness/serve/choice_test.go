package serve

import (
	"testing"
	"time"
)

// TestCheck: each wrong choice is refused in one line naming the flag,
// the first wrong one in serve's order; a right one gives a plan, with
// work only where -work asks for it.
func TestCheck(t *testing.T) {
	ok := Choice{Style: "protocol", Proto: "echo", Size: 1024}
	for _, c := range []struct {
		edit func(*Choice)
		set  []string
		want string
	}{
		{func(c *Choice) { c.Impl = "tokio" }, nil, `-impl "tokio": want gonet, asyncio, uvloop, libuv`},
		{func(c *Choice) { c.Impl = "gonet" }, []string{"style"}, "-style applies to loop servers; -impl gonet has none"},
		{func(c *Choice) { c.Style, c.Duration = "thread", -1 }, nil, `-style "thread": want protocol, task or stream (or an order's floor: protocol-next, protocol-coroutine)`},
		{func(c *Choice) { c.Duration = -time.Second }, nil, "-duration -1s: want 0 (until interrupted) or more"},
		{func(c *Choice) { c.TLS.Cert = "a.pem" }, nil, "-cert and -key need -tls"},
		{func(c *Choice) { c.Style, c.TLS.On = "task", true }, nil, "-tls: the task-style server has no TLS (protocol or stream style have)"},
		{func(c *Choice) {}, []string{"size"}, "-size needs -work"},
		{func(c *Choice) { c.Impl, c.Work = "gonet", time.Millisecond }, nil, "-work applies to loop servers; -impl gonet has none"},
		{func(c *Choice) { c.Proto, c.Style = "http", "task" }, nil, "-proto http: -style task: want protocol or stream"},
		{func(c *Choice) { c.Proto = "smtp" }, nil, `-proto "smtp": want echo or http`},
	} {
		ch := ok
		c.edit(&ch)
		set := map[string]bool{}
		for _, s := range c.set {
			set[s] = true
		}
		p, err := ch.Check(set)
		if err == nil || p != nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", ch, err, c.want)
		}
	}
	for _, c := range []Choice{ok, {Style: "task", Proto: "echo", Work: time.Millisecond, Size: 16}} {
		p, err := c.Check(map[string]bool{})
		if err != nil || (p.work == nil) != (c.Work == 0) || p.work != nil && (p.work.D != c.Work || p.work.Size != c.Size) {
			t.Errorf("%+v: %+v %v", c, p, err)
		}
	}
}
