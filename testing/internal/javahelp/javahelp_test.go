package javahelp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// TestCompileNamesAMissingJar checks that a missing jar is an error naming
// the jar and the install hint, and that nothing is compiled.
func TestCompileNamesAMissingJar(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such.jar")
	_, err := Compile(context.Background(), Spec{Name: "probe", Hint: "install it", Jars: []string{missing},
		Sources: fstest.MapFS{"A.java": {Data: []byte("class A {}")}}})
	if err == nil {
		t.Fatal("Compile with a missing jar succeeded")
	}
	for _, want := range []string{"probe:", missing, "install it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// TestCompileBuildsAndRemoves compiles a program against a real JDK (a
// missing JDK fails the test: the harnesses need it), runs it, and checks
// that Remove deletes the build.
func TestCompileBuildsAndRemoves(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	src := `public final class Hello { public static void main(String[] a) { System.out.println("hello " + a[0]); } }`
	b, err := Compile(ctx, Spec{Name: "probe", Hint: "install a JDK", Sources: fstest.MapFS{
		"Hello.java": {Data: []byte(src)}, "README": {Data: []byte("not Java")}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, b.Java, "-cp", b.Classpath, "Hello", "there").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "hello there" {
		t.Errorf("running the build: %v, %q", err, out)
	}
	if err := b.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(b.Dir); !os.IsNotExist(err) {
		t.Errorf("%s still there after Remove: %v", b.Dir, err)
	}
}

// TestCompileReportsJavacErrors checks that a source that does not compile
// is an error carrying javac's message, and leaves no directory behind.
func TestCompileReportsJavacErrors(t *testing.T) {
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "zkcurator-probe-bad-*"))
	_, err := Compile(context.Background(), Spec{Name: "probe-bad", Hint: "install a JDK",
		Sources: fstest.MapFS{"Bad.java": {Data: []byte("class Bad { int x = ; }")}}})
	if err == nil || !strings.Contains(err.Error(), "Bad.java") {
		t.Fatalf("Compile of a broken source: %v, want javac's error naming Bad.java", err)
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "zkcurator-probe-bad-*"))
	if len(after) != len(before) {
		t.Errorf("a failed compile left a directory behind: %v", after)
	}
}
