package loopbench_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestContributing keeps CONTRIBUTING.md true: every repository path it
// names exists (up to a <placeholder>), and every test, fuzz target,
// benchmark, package.Name and camelCase identifier it names is declared
// in the module's source.
func TestContributing(t *testing.T) {
	doc, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range docProblems(string(doc), ".", indexSource(t, ".")) {
		t.Error("CONTRIBUTING.md: " + p)
	}
}

// TestContributingCatches: the check reports a path, a test, a
// package.Name and an identifier that do not exist, and nothing else of a
// text that also names ones that do, placeholders, units and outside
// packages.
func TestContributingCatches(t *testing.T) {
	doc := "See `impl/nosuch/x.go` and `impl/<name>/<name>.go`, `config.go`, `sec/op`,\n" +
		"`TestNoSuchThing` and `TestVariants`, `queuetest.NoSuch` and `queuetest.Run`,\n" +
		"`os.NoSuch`, `noSuchHelper` and `readyNames`.\n\n" +
		"```sh\ngo test -run '^TestAlsoMissing$' ./impl/<name> ./selectors ./nosuchdir/...\n```\n"
	got := docProblems(doc, ".", indexSource(t, "."))
	want := []string{"impl/nosuch/x.go", "nosuchdir", "TestNoSuchThing", "TestAlsoMissing", "queuetest.NoSuch", "noSuchHelper"}
	if len(got) != len(want) {
		t.Fatalf("reported %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, "`"+w+"`") }) {
			t.Errorf("%s not reported; reported:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

// source is what the module declares: the top-level names of each
// package (test files included, by package name) and of all of them.
type source struct {
	pkgs map[string]map[string]bool
	all  map[string]bool
}

// indexSource parses every Go file under root, testdata and hidden
// directories left out.
func indexSource(t *testing.T, root string) source {
	src := source{pkgs: map[string]map[string]bool{}, all: map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		src.add(strings.TrimSuffix(f.Name.Name, "_test"), f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// add records the top-level declarations of f, a file of package pkg.
func (s source) add(pkg string, f *ast.File) {
	names := s.pkgs[pkg]
	if names == nil {
		names = map[string]bool{}
		s.pkgs[pkg] = names
	}
	mark := func(id *ast.Ident) { names[id.Name], s.all[id.Name] = true, true }
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			mark(d.Name)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					mark(sp.Name)
				case *ast.ValueSpec:
					for _, id := range sp.Names {
						mark(id)
					}
				}
			}
		}
	}
}

var (
	codeSpan  = regexp.MustCompile("`([^`\n]+)`")
	testName  = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z]\w*`)
	qualified = regexp.MustCompile(`^\(?([a-z][a-z0-9]*)\.([A-Z]\w*)`)
	camelCase = regexp.MustCompile(`^[a-z][a-z0-9]*[A-Z]\w*$`)
	fileExt   = regexp.MustCompile(`\.(go|md|yml|golden|c|h|py|sh|mod)$`)
)

// docProblems lists what doc names that root's files or src lack.
func docProblems(doc, root string, src source) []string {
	var problems []string
	seen := map[string]bool{}
	report := func(what, name string) {
		if !seen[name] {
			seen[name] = true
			problems = append(problems, what+" `"+name+"`")
		}
	}
	for _, name := range testName.FindAllString(doc, -1) {
		if !src.all[name] {
			report("names a test, fuzz target or benchmark that is not declared:", name)
		}
	}
	for _, w := range codeWords(doc) {
		if p, ok := repoPath(root, w); ok {
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				report("names a path that does not exist:", p)
			}
		}
		if m := qualified.FindStringSubmatch(w); m != nil && src.pkgs[m[1]] != nil && !src.pkgs[m[1]][m[2]] {
			report("names a declaration its package lacks:", m[1]+"."+m[2])
		}
		if camelCase.MatchString(w) && !src.all[w] {
			report("names an identifier that is not declared:", w)
		}
	}
	return problems
}

// codeWords returns the words of doc's code: its code spans and the lines
// of its fenced blocks, split at blanks, quotes and trailing punctuation
// trimmed.
func codeWords(doc string) []string {
	var code []string
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
		case fenced:
			code = append(code, line)
		default:
			for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
				code = append(code, m[1])
			}
		}
	}
	var words []string
	for _, c := range code {
		for _, w := range strings.Fields(c) {
			words = append(words, strings.TrimRight(strings.Trim(w, `'"`), ",;:"))
		}
	}
	return words
}

// repoPath reports whether w names a path in the repository, and which:
// a word starting with ./, a word with a slash whose first segment is a
// file or directory at root, or a file name; cut before a <placeholder>
// segment and a /... pattern.
func repoPath(root, w string) (string, bool) {
	explicit := strings.HasPrefix(w, "./")
	w = strings.TrimPrefix(strings.TrimSuffix(w, "..."), "./")
	if w == "" || strings.ContainsAny(w, "=:$*") || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "-") {
		return "", false
	}
	segs := strings.Split(strings.TrimSuffix(w, "/"), "/")
	switch {
	case explicit:
	case strings.Contains(w, "/"):
		if _, err := os.Stat(filepath.Join(root, segs[0])); err != nil {
			return "", false
		}
	case !fileExt.MatchString(w):
		return "", false
	}
	if i := slices.IndexFunc(segs, func(s string) bool { return strings.Contains(s, "<") }); i >= 0 {
		segs = segs[:i]
	}
	if len(segs) == 0 {
		return "", false
	}
	return strings.Join(segs, "/"), true
}
