package interop

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/zkcurator/zkcurator/testing/internal/javahelp"
)

// helperSources are the helper's Java files: CuratorHelper.java, its main
// class, and the <Group>Commands.java files that add verbs to it.
//
//go:embed java/*.java
var helperSources embed.FS

// JarDir is where Debian's packages put the Curator and ZooKeeper jars.
const JarDir = javahelp.JarDir

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
	once sync.Once
	mu   sync.Mutex // guards the fields below after once.Do has returned
	b    *javahelp.Build
	err  error
}

// compileHelper compiles the helper's Java files once per process into a temporary
// directory and returns the java binary and the classpath to run it with.
func compileHelper() (java, classpath string, err error) {
	build.once.Do(func() { build.b, build.err = compile() })
	build.mu.Lock()
	defer build.mu.Unlock()
	if build.err != nil {
		return "", "", build.err
	}
	return build.b.Java, build.b.Classpath, nil
}

// compile builds the helper; ZOOKEEPER_JAR, when set, replaces zookeeper.jar.
func compile() (*javahelp.Build, error) {
	jars := javahelp.Jars(helperJars...)
	if zj := os.Getenv("ZOOKEEPER_JAR"); zj != "" {
		for i, j := range jars {
			if filepath.Base(j) == "zookeeper.jar" {
				jars[i] = zj
			}
		}
	}
	src, err := fs.Sub(helperSources, "java")
	if err != nil {
		return nil, err
	}
	return javahelp.Compile(context.Background(), javahelp.Spec{Name: "interop", Hint: installHint, Jars: jars, Sources: src})
}

// errRemoved is what Start reports once RemoveBuild has run.
var errRemoved = errors.New("interop: the helper build was removed")

// RemoveBuild deletes the compiled helper. Call it once, after the last helper has
// exited (from TestMain); helpers started later fail.
func RemoveBuild() error {
	build.once.Do(func() {}) // no compile from now on
	build.mu.Lock()
	defer build.mu.Unlock()
	b := build.b
	build.b, build.err = nil, errRemoved
	if b == nil {
		return nil
	}
	return b.Remove()
}
