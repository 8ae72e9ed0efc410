package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goName matches a Go name of more than one word (NodeCache, FencingToken):
// in a step's line, the recipe or method the demo shows.
var goName = regexp.MustCompile(`\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*`)

// Each step's line names only what its example runs: every recipe or
// method it names appears in the example's source, as itself or as its
// constructor.
func TestTourNamesWhatEachDemoRuns(t *testing.T) {
	for _, s := range tourSteps() {
		files, err := filepath.Glob(filepath.Join("..", s.name, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("examples/%s: no source (%v)", s.name, err)
		}
		var src strings.Builder
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src.Write(b)
		}
		for _, name := range goName.FindAllString(s.about, -1) {
			// The name itself, or its constructor; not a longer name that
			// ends in it (WithSingleNodeCache is no NodeCache).
			used := regexp.MustCompile(`(\b|\bNew)` + name + `\b`)
			if !used.MatchString(src.String()) {
				t.Errorf("the tour says %s %q, but examples/%s never uses %s", s.name, s.about, s.name, name)
			}
		}
	}
}
