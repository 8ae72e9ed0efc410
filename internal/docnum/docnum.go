// Package docnum reads the numbers the project's documents cite, so that a
// test can hold each one to the constant of the code it names: a number in
// README.md, docs/ or a doc comment that drifts from the code fails a test
// instead of misleading a reader. Its tests also hold the method names of
// docs/curator-migration.md and README.md's list of holds with Lost() to
// the code.
package docnum

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Root returns the module's root directory: the nearest directory at or
// above the working directory that holds go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("docnum: no go.mod at or above the working directory")
		}
		dir = up
	}
}

// Prose returns the text of the file at rel, a path relative to the module
// root, with every run of white space made one space, so that a sentence
// wrapped across lines reads whole: a Go file's comments alone, their
// markers removed; any other file whole.
func Prose(rel string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "", fmt.Errorf("docnum: %w", err)
	}
	text := string(b)
	if strings.HasSuffix(rel, ".go") {
		var comments []string
		for _, line := range strings.Split(text, "\n") {
			if c, ok := strings.CutPrefix(strings.TrimSpace(line), "//"); ok {
				comments = append(comments, c)
			}
		}
		text = strings.Join(comments, "\n")
	}
	return strings.Join(strings.Fields(text), " "), nil
}

// Cited returns the numbers that pattern's groups capture at its first
// match in the prose of rel (Prose), thousands separators removed. It is an
// error naming the file and the pattern when nothing matches, so that a
// reworded sentence fails the test that reads it rather than passing
// unchecked.
func Cited(rel, pattern string) ([]int64, error) {
	text, err := Prose(rel)
	if err != nil {
		return nil, err
	}
	m := regexp.MustCompile(pattern).FindStringSubmatch(text)
	if m == nil {
		return nil, fmt.Errorf("docnum: %s no longer says %q", rel, pattern)
	}
	out := make([]int64, 0, len(m)-1)
	for _, g := range m[1:] {
		n, err := strconv.ParseInt(strings.ReplaceAll(g, ",", ""), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("docnum: %s: %q in %q is not a number", rel, g, pattern)
		}
		out = append(out, n)
	}
	return out, nil
}
