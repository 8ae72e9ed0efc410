// Package javahelp compiles the small Java programs that the test harnesses
// beside zkcurator (testing/interop, testing/recipebench) run to drive Apache
// Curator: it finds java and javac, checks the Curator and ZooKeeper jars
// Debian installs in /usr/share/java, and compiles the embedded sources into
// a temporary directory. A missing piece is an error that says what is
// missing and how to install it; callers fail on it, never skip.
package javahelp

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// JarDir is where Debian's packages put the Curator and ZooKeeper jars.
const JarDir = "/usr/share/java"

// Spec says what to compile and how to word the errors.
type Spec struct {
	Name    string   // prefixes every error, e.g. "interop"
	Hint    string   // ends every error about a missing tool or jar: how to install it
	Jars    []string // the classpath besides the compiled classes, absolute paths
	Sources fs.FS    // the .java files at its root are compiled
}

// Build is a compiled helper: run Java with Classpath; Remove deletes it.
type Build struct {
	Java      string // the java binary
	Classpath string // the compiled classes first, then Spec.Jars
	Dir       string // the temporary directory holding sources and classes
}

// Jars returns the paths of names in JarDir.
func Jars(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(JarDir, n)
	}
	return out
}

// Compile checks java, javac and every jar of s, then compiles s.Sources into
// a new temporary directory; on error nothing is left behind.
func Compile(ctx context.Context, s Spec) (*Build, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("%s: java not found in PATH: %s", s.Name, s.Hint)
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		return nil, fmt.Errorf("%s: javac not found in PATH: %s", s.Name, s.Hint)
	}
	for _, j := range s.Jars {
		if _, err := os.Stat(j); err != nil {
			return nil, fmt.Errorf("%s: jar %s missing: %s", s.Name, j, s.Hint)
		}
	}
	dir, err := os.MkdirTemp("", "zkcurator-"+s.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	srcs, err := writeSources(s.Sources, dir)
	if err == nil && len(srcs) == 0 {
		err = fmt.Errorf("no .java sources to compile")
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	classes := filepath.Join(dir, "classes")
	// -Xlint:-path: zookeeper.jar's manifest names jars Debian does not ship (jline).
	args := append([]string{"-Xlint:-path", "-encoding", "UTF-8", "-d", classes, "-cp", strings.Join(s.Jars, ":")}, srcs...)
	if out, err := exec.CommandContext(ctx, javac, args...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: javac %s: %w\n%s", s.Name, strings.Join(srcs, " "), err, out)
	}
	return &Build{Java: java, Classpath: strings.Join(append([]string{classes}, s.Jars...), ":"), Dir: dir}, nil
}

// Remove deletes the build's directory.
func (b *Build) Remove() error { return os.RemoveAll(b.Dir) }

// writeSources writes the .java files at the root of src into dir and returns
// their paths.
func writeSources(src fs.FS, dir string) ([]string, error) {
	names, err := fs.Glob(src, "*.java")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, n := range names {
		data, err := fs.ReadFile(src, n)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
