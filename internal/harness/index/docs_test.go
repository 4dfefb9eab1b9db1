package index

import (
	"slices"
	"strings"
	"testing"
)

// TestAnchor: lower case, spaces made hyphens, hyphens, underscores,
// letters and digits kept (of any script), other punctuation dropped.
func TestAnchor(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Layout", "layout"},
		{"7. The CLI (`cmd/loopbench`)", "7-the-cli-cmdloopbench"},
		{"go_test -bench, benchstat", "go_test--bench-benchstat"},
		{"Über — ça", "über--ça"},
	} {
		if got := Anchor(c.heading); got != c.want {
			t.Errorf("Anchor(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

// TestMarkdownHeading: one to six hashes and a space make a heading, its
// text trimmed; anything else is level 0.
func TestMarkdownHeading(t *testing.T) {
	for _, c := range []struct {
		line  string
		text  string
		level int
	}{
		{"# Title", "Title", 1},
		{"### Old runs  ", "Old runs", 3},
		{"###### Six", "Six", 6},
		{"####### Seven", "", 0},
		{"#hashtag", "", 0},
		{"text # not", "", 0},
	} {
		if text, level := MarkdownHeading(c.line); text != c.text || level != c.level {
			t.Errorf("MarkdownHeading(%q) = %q, %d; want %q, %d", c.line, text, level, c.text, c.level)
		}
	}
}

// TestCitations: a run is cited once per section that names it, by the
// section's heading (none under the title), not by a longer name it
// starts, and not by a hash line inside a fence taken for a heading.
func TestCitations(t *testing.T) {
	text := strings.Join([]string{
		"# Doc", "see results/r1/raw.txt", "results/r1 again",
		"## Some `timers`", "```", "# not a heading", "```", "![p](results/r1/x.svg)",
		"## Other", "results/r1-peers only",
		"### Last", "results/r1",
	}, "\n")
	d := Doc{name: "docs/a.md", link: "../docs/a.md", lines: strings.Split(text, "\n")}
	var got []string
	for _, c := range citationsOf([]Doc{d}, "r1") {
		got = append(got, c.String())
	}
	want := []string{"[docs/a.md](../docs/a.md)", "[docs/a.md, Some `timers`](../docs/a.md#some-timers)", "[docs/a.md, Last](../docs/a.md#last)"}
	if !slices.Equal(got, want) {
		t.Errorf("citations %q, want %q", got, want)
	}
}
