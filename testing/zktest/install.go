package zktest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// defaultClassPath is where Debian's zookeeper package puts its jar (whose
// manifest names its dependencies) and slf4j-simple, which prints the log.
const defaultClassPath = "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar"

// runtimeSetup is what starting a ZooKeeper process needs from the machine.
type runtimeSetup struct {
	java      string
	classPath string
}

// findRuntime locates java (JAVA_HOME first, then PATH) and checks that every
// plain file named on the class path (ZOOKEEPER_CLASSPATH or the default)
// exists, so that a missing installation fails before any process starts.
func findRuntime() (runtimeSetup, error) {
	java, err := findJava()
	if err != nil {
		return runtimeSetup{}, err
	}
	cp := os.Getenv("ZOOKEEPER_CLASSPATH")
	source := "ZOOKEEPER_CLASSPATH"
	if cp == "" {
		cp, source = defaultClassPath, "default class path"
	}
	for _, entry := range filepath.SplitList(cp) {
		if entry == "" || strings.ContainsRune(entry, '*') {
			continue
		}
		if _, err := os.Stat(entry); err != nil {
			return runtimeSetup{}, fmt.Errorf("%w: %s entry %q: %v", ErrNotInstalled, source, entry, err)
		}
	}
	return runtimeSetup{java: java, classPath: cp}, nil
}

func findJava() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		java := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(java); err != nil {
			return "", fmt.Errorf("%w: JAVA_HOME=%q has no bin/java", ErrNotInstalled, home)
		}
		return java, nil
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w: java is not on PATH and JAVA_HOME is unset", ErrNotInstalled)
	}
	return java, nil
}
