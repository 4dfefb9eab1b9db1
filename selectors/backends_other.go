//go:build unix && !linux

package selectors

var backends = []backend{
	{"poll", func() (Selector, error) { return newPoll(), nil }},
}
