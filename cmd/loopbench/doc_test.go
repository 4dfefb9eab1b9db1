package main

import (
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestCommandsDocumented: every subcommand has its line in the package
// doc comment and in the usage text.
func TestCommandsDocumented(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		if !strings.Contains(doc, "\tloopbench "+name) {
			t.Errorf("the package doc comment has no line for %s", name)
		}
		if !strings.Contains(usage, "\n  "+name+" ") {
			t.Errorf("the usage text has no line for %s", name)
		}
	}
}
