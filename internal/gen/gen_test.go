package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedUpToDate fails when a generated file differs from what its
// source generates now.
func TestGeneratedUpToDate(t *testing.T) {
	for _, tg := range targets {
		want, err := generate("../..", tg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("../..", tg.dst))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate in the module root", tg.dst)
		}
	}
}

func TestSubstitutionMustMatch(t *testing.T) {
	_, err := generate("../..", target{src: "impl/heap4ary/heap.go", subs: []string{"no such text", "x"}})
	if err == nil {
		t.Fatal("a substitution that matches nothing was accepted")
	}
}
