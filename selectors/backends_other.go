//go:build unix && !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package selectors

var backends = []backend{
	{"poll", func() (Selector, error) { return newPoll(), nil }, nil},
}
