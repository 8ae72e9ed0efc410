package interop

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// helperSources are the helper's Java files: CuratorHelper.java, its main
// class, and the <Group>Commands.java files that add verbs to it.
//
//go:embed java/*.java
var helperSources embed.FS

// JarDir is where Debian's packages put the Curator and ZooKeeper jars.
const JarDir = "/usr/share/java"

// helperJars is the helper's classpath besides its own classes: Curator 5.4.0
// (libcurator-*-java), the ZooKeeper 3.8 client and what both need at run time.
// zookeeper.jar's manifest Class-Path brings netty and the rest of its own deps.
var helperJars = []string{
	"curator-recipes.jar",
	"curator-x-discovery.jar", // its manifest brings Jackson
	"curator-framework.jar",
	"curator-client.jar",
	"zookeeper.jar",
	"zookeeper-jute.jar",
	"guava.jar",
	"slf4j-api.jar",
	"slf4j-simple.jar",
	"netty-codec.jar",    // the client's TLS (SslHandler); the manifest leaves it out
	"netty-resolver.jar", // likewise
}

const installHint = "run scripts/install-zookeeper.sh (make interop does) to install a JDK and libcurator-recipes-java"

// build is the compiled helper, shared by every Helper of the process.
var build struct {
	once      sync.Once
	mu        sync.Mutex // guards the fields below after once.Do has returned
	dir       string
	classpath string
	java      string
	err       error
}

// compileHelper compiles the helper's Java files once per process into a temporary
// directory and returns the java binary and the classpath to run it with.
func compileHelper() (java, classpath string, err error) {
	build.once.Do(func() { build.java, build.classpath, build.dir, build.err = compile() })
	build.mu.Lock()
	defer build.mu.Unlock()
	return build.java, build.classpath, build.err
}

func compile() (java, classpath, dir string, err error) {
	java, err = exec.LookPath("java")
	if err != nil {
		return "", "", "", fmt.Errorf("interop: java not found in PATH: %s", installHint)
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		return "", "", "", fmt.Errorf("interop: javac not found in PATH: %s", installHint)
	}
	jars := make([]string, 0, len(helperJars))
	for _, name := range helperJars {
		p := filepath.Join(JarDir, name)
		if name == "zookeeper.jar" && os.Getenv("ZOOKEEPER_JAR") != "" {
			p = os.Getenv("ZOOKEEPER_JAR")
		}
		if _, err := os.Stat(p); err != nil {
			return "", "", "", fmt.Errorf("interop: jar %s missing: %s", p, installHint)
		}
		jars = append(jars, p)
	}
	dir, err = os.MkdirTemp("", "zkcurator-interop-")
	if err != nil {
		return "", "", "", fmt.Errorf("interop: %w", err)
	}
	srcs, err := writeSources(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", "", "", fmt.Errorf("interop: %w", err)
	}
	classes := filepath.Join(dir, "classes")
	// -Xlint:-path: zookeeper.jar's manifest names jars Debian does not ship (jline).
	args := append([]string{"-Xlint:-path", "-encoding", "UTF-8", "-d", classes, "-cp", strings.Join(jars, ":")}, srcs...)
	out, err := exec.Command(javac, args...).CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return "", "", "", fmt.Errorf("interop: javac %s: %w\n%s", strings.Join(srcs, " "), err, out)
	}
	return java, strings.Join(append([]string{classes}, jars...), ":"), dir, nil
}

// writeSources writes the embedded Java files into dir and returns their paths.
func writeSources(dir string) ([]string, error) {
	entries, err := helperSources.ReadDir("java")
	if err != nil {
		return nil, err
	}
	var srcs []string
	for _, e := range entries {
		data, err := helperSources.ReadFile("java/" + e.Name())
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, e.Name())
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		srcs = append(srcs, p)
	}
	return srcs, nil
}

// errRemoved is what Start reports once RemoveBuild has run.
var errRemoved = errors.New("interop: the helper build was removed")

// RemoveBuild deletes the compiled helper. Call it once, after the last helper has
// exited (from TestMain); helpers started later fail.
func RemoveBuild() error {
	build.once.Do(func() {}) // no compile from now on
	build.mu.Lock()
	defer build.mu.Unlock()
	dir := build.dir
	build.dir, build.classpath, build.err = "", "", errRemoved
	if dir == "" {
		return nil
	}
	return os.RemoveAll(dir)
}
