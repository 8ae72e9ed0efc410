package demo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeQuickStart checks that the quick start in README.md is the body
// of Example_quickStart, which the test suite compiles and runs.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Quick start\n")
	if !ok {
		t.Fatal(`README.md has no "## Quick start" section`)
	}
	_, block, ok := strings.Cut(section, "```go\n")
	if !ok {
		t.Fatal("the quick start section of README.md has no Go code block")
	}
	block, _, _ = strings.Cut(block, "```\n")

	src, err := os.ReadFile("quickstart_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "func Example_quickStart() {\n")
	if !ok {
		t.Fatal("quickstart_example_test.go has no Example_quickStart")
	}
	body, _, ok = strings.Cut(body, "\t// Output:")
	if !ok {
		t.Fatal("Example_quickStart has no Output comment")
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	if want := strings.Join(lines, "\n"); block != want {
		t.Errorf("README.md's quick start differs from Example_quickStart.\nREADME:\n%s\nexample:\n%s", block, want)
	}
}
