package demo

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// internalPrefix is the import path of what the examples share for their
// tests and the tour; a reader who copies an example cannot import it.
const internalPrefix = "github.com/zkcurator/zkcurator/examples/internal"

// TestExamplesAreSelfContained checks that every example's program, all the
// non-test files of examples/<name> (the tour aside, which runs the others),
// builds without examples/internal, so that a reader can copy it into a
// project of their own.
func TestExamplesAreSelfContained(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		dir := filepath.Base(filepath.Dir(f))
		if dir == "internal" || dir == "tour" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range parsed.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if p == internalPrefix || strings.HasPrefix(p, internalPrefix+"/") {
				t.Errorf("examples/%s/%s imports %s: an example must build from the library alone", dir, filepath.Base(f), p)
			}
		}
	}
	if checked < 10 {
		t.Errorf("checked %d example files, want every examples/<name>/*.go (run from examples/internal/demo)", checked)
	}
}
