package demo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// Build builds the program in the package with import path pkg (of this
// module, so run from the repository) into dir and returns the binary's
// path.
func Build(ctx context.Context, dir, pkg string) (string, error) {
	bin := filepath.Join(dir, path.Base(pkg))
	build := exec.CommandContext(ctx, "go", "build", "-buildvcs=false", "-o", bin, pkg)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("demo: build %s (run from the repository): %v: %s", pkg, err, strings.TrimSpace(string(b)))
	}
	return bin, nil
}
