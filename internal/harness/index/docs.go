package index

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// Doc is a Markdown document that may cite runs: its path as the index
// names it (relative to the repository root), its path as the index links
// it (relative to the results directory), and its lines.
type Doc struct {
	name, link string
	lines      []string
}

// citation is a section of a document that names a run.
type citation struct {
	doc     Doc
	heading string // "" before the first section (## or deeper)
}

// PatternError is a document pattern filepath.Glob refuses.
type PatternError struct {
	Pattern string
	Err     error
}

func (e *PatternError) Error() string { return fmt.Sprintf("%q: %v", e.Pattern, e.Err) }

// ReadDocs reads the documents the patterns match (filepath.Glob
// patterns, relative to root unless absolute), in the patterns' order,
// each once, linked from resultsDir. A pattern that matches nothing is no
// error; a malformed one is a *PatternError.
func ReadDocs(root, resultsDir string, patterns []string) ([]Doc, error) {
	var docs []Doc
	seen := map[string]bool{}
	for _, p := range patterns {
		full := p
		if !filepath.IsAbs(p) {
			full = filepath.Join(root, p)
		}
		matches, err := filepath.Glob(full)
		if err != nil {
			return nil, &PatternError{p, err}
		}
		for _, m := range matches {
			if seen[m] {
				continue
			}
			seen[m] = true
			b, err := os.ReadFile(m)
			if err != nil {
				return nil, err
			}
			d := Doc{name: m, link: m, lines: strings.Split(string(b), "\n")}
			if rel, err := filepath.Rel(root, m); err == nil {
				d.name = filepath.ToSlash(rel)
			}
			if rel, err := filepath.Rel(resultsDir, m); err == nil {
				d.link = filepath.ToSlash(rel)
			}
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// citationsOf returns the sections of docs that name results/<run>, as a
// path or a link (results/<run> followed by anything but a name's
// character, so a run is not cited by a longer name it starts).
func citationsOf(docs []Doc, run string) []citation {
	re := regexp.MustCompile(`results/` + regexp.QuoteMeta(run) + `([^A-Za-z0-9_.-]|$)`)
	var out []citation
	for _, d := range docs {
		heading, fenced, cited := "", false, false
		for _, line := range d.lines {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if h, level := MarkdownHeading(line); level > 0 && !fenced {
				if level == 1 { // the document's title: a link to the document
					h = ""
				}
				cited = cited && h == heading
				heading = h
			}
			if !cited && re.MatchString(line) {
				out = append(out, citation{doc: d, heading: heading})
				cited = true
			}
		}
	}
	return out
}

// MarkdownHeading returns the text and level of an ATX heading line;
// level 0 for any other line.
func MarkdownHeading(line string) (string, int) {
	t := strings.TrimLeft(line, "#")
	n := len(line) - len(t)
	if n == 0 || n > 6 || !strings.HasPrefix(t, " ") {
		return "", 0
	}
	return strings.TrimSpace(t), n
}

// Anchor is the fragment GitHub gives a heading: lower case, punctuation
// dropped but hyphens and underscores, spaces made hyphens.
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// String is the citation as a Markdown link: the document and its section.
func (c citation) String() string {
	if c.heading == "" {
		return fmt.Sprintf("[%s](%s)", c.doc.name, c.doc.link)
	}
	return fmt.Sprintf("[%s, %s](%s#%s)", c.doc.name, c.heading, c.doc.link, Anchor(c.heading))
}
