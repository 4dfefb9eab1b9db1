package main

import (
	"bytes"
	"flag"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFlagsDocumented: every flag of every subcommand, as its FlagSet
// registers it, appears in the subcommand's -h output and in its section
// of docs/cli.md (a heading whose first word is the command's name, with
// the headings below it). The flags are read from the FlagSets, so a flag
// added without its documentation fails here.
func TestFlagsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		var sets []*flag.FlagSet
		flagSetParsed = func(fs *flag.FlagSet) { sets = append(sets, fs) }
		var out, errb bytes.Buffer
		err := run([]string{name, "-h"}, &out, &errb)
		flagSetParsed = nil
		if exitCode(err) != 0 || len(sets) != 1 {
			t.Errorf("%s -h: exit %d, %d flag sets parsed; want 0 and 1", name, exitCode(err), len(sets))
			continue
		}
		for _, p := range undocumentedFlags(name, sets[0], errb.String()+out.String(), string(doc)) {
			t.Errorf("%s", p)
		}
	}
}

// TestFlagsDocumentedCatches: the check names a flag missing from the -h
// text, one missing from the command's section (though another command's
// section names it) and a command without a section; a flag that is a
// prefix of a documented one is not taken as documented.
func TestFlagsDocumentedCatches(t *testing.T) {
	fs := flag.NewFlagSet("frob", flag.ContinueOnError)
	fs.Int("count", 1, "")
	fs.String("out", "", "")
	fs.Bool("wait", false, "")
	help := "usage: loopbench frob\n  -count int\n  -out string\n  -wait-idle\n"
	doc := "# CLI\n\n## Frob\n\n`-count N` and `-out DIR`, `-wait-idle`.\n\n### Frob's details\n\nMore.\n\n## Other\n\n`-wait`\n"
	got := undocumentedFlags("frob", fs, help, doc)
	want := []string{"frob: -wait is not in its -h output", "frob: -wait is not in docs/cli.md's section on frob"}
	if !slices.Equal(got, want) {
		t.Errorf("reported %q, want %q", got, want)
	}
	doc = strings.Replace(doc, "## Frob\n", "## Frobnicate\n", 1)
	got = undocumentedFlags("frob", fs, help+"  -wait\n", doc)
	if len(got) != 1 || !strings.Contains(got[0], "no section") {
		t.Errorf("without a section: reported %q", got)
	}
}

// undocumentedFlags returns a line for each flag of fs that help or the
// command's section of doc does not mention (as -name, not followed by
// more of a flag's name).
func undocumentedFlags(cmd string, fs *flag.FlagSet, help, doc string) []string {
	var out []string
	section, found := commandSection(doc, cmd)
	fs.VisitAll(func(f *flag.Flag) {
		re := regexp.MustCompile(`(^|[^A-Za-z0-9_-])-` + regexp.QuoteMeta(f.Name) + `($|[^A-Za-z0-9_-])`)
		if !re.MatchString(help) {
			out = append(out, cmd+": -"+f.Name+" is not in its -h output")
		}
		if found && !re.MatchString(section) {
			out = append(out, cmd+": -"+f.Name+" is not in docs/cli.md's section on "+cmd)
		}
	})
	if !found && flagCount(fs) > 0 {
		out = append(out, cmd+": docs/cli.md has no section on it (a heading starting with its name)")
	}
	return out
}

func flagCount(fs *flag.FlagSet) int {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n
}

// commandSection returns the text of every section of doc whose heading's
// first word is cmd (case and backticks aside), each with the sections
// under it, and whether there was one.
func commandSection(doc, cmd string) (string, bool) {
	var b strings.Builder
	found, level, fenced := false, 0, false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if h, l := markdownHeading(line); l > 0 && !fenced {
			switch {
			case firstWord(h) == cmd:
				found, level = true, l
			case level > 0 && l <= level:
				level = 0
			}
		}
		if level > 0 {
			b.WriteString(line + "\n")
		}
	}
	return b.String(), found
}

func firstWord(heading string) string {
	f := strings.Fields(strings.ToLower(strings.ReplaceAll(heading, "`", "")))
	if len(f) == 0 {
		return ""
	}
	return strings.TrimSuffix(f[0], ":")
}
