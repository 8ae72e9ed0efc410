package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/recipes/discovery"
)

// register keeps an instance registered while a script runs that writes its
// ZKCURATOR_INSTANCE_ID to a file and waits; discover prints each instance's
// node JSON on one line, sorted by id; when the command exits the instance
// is gone, and discover prints nothing (status 0).
func TestRegisterAndDiscover(t *testing.T) {
	srv := sharedServer(t)
	conn := connArgs(srv.ConnectString())
	base := testPath(t)
	dir := t.TempDir()
	script := `echo "$ZKCURATOR_INSTANCE_ID" > "$1"; trap 'exit 0' TERM; while [ ! -e "$2" ]; do sleep 0.05; done`
	stopB := filepath.Join(dir, "stop-b")
	b := start(t, append(append([]string{"register"}, conn...), "--base", base, "api", "--address", "10.0.0.2", "--port", "81", "--id", "b",
		"--payload", `{"zone":"<b>"}`, "--payload-class", "com.example.Meta", "--uri-spec", "{scheme}://{address}:{port}",
		"--", "sh", "-c", script, "b", filepath.Join(dir, "id-b"), stopB)...)
	a := start(t, append(append([]string{"register"}, conn...), "--base", base, "--id", "a", "api", "--address", "10.0.0.1", "--port", "80", "--ssl-port", "443",
		"--", "sh", "-c", script, "a", filepath.Join(dir, "id-a"), filepath.Join(dir, "stop-a"))...)
	eventually(t, "both commands to run", func() bool {
		return hasLine(t, filepath.Join(dir, "id-a"), "a") && hasLine(t, filepath.Join(dir, "id-b"), "b")
	})

	discover := func() []string {
		t.Helper()
		p := start(t, append(append([]string{"discover"}, conn...), "--base", base, "api")...)
		if code := p.wait(t); code != 0 {
			t.Fatalf("discover: status %d, stderr %s", code, p.stderr.String())
		}
		if out := p.stdout.String(); out != "" {
			return readLinesOf(out)
		}
		return nil
	}
	lines := discover()
	if len(lines) != 2 {
		t.Fatalf("discover printed %q, want 2 lines", lines)
	}
	var got []discovery.ServiceInstance[json.RawMessage]
	for _, l := range lines {
		var i discovery.ServiceInstance[json.RawMessage]
		if err := i.UnmarshalJSON([]byte(l)); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		got = append(got, i)
	}
	if got[0].ID != "a" || got[1].ID != "b" {
		t.Fatalf("not sorted by id: %q", lines)
	}
	if got[0].Address != "10.0.0.1" || *got[0].Port != 80 || *got[0].SSLPort != 443 || got[0].Payload != nil || got[0].ServiceType != discovery.Dynamic {
		t.Errorf("instance a: %s", lines[0])
	}
	if got[1].PayloadClass != "com.example.Meta" || got[1].BuildURI(nil) != "http://10.0.0.2:81" || got[1].SSLPort != nil {
		t.Errorf("instance b: %s", lines[1])
	}
	if !strings.Contains(lines[1], `"payload":{"@class":"com.example.Meta","zone":"<b>"}`) {
		t.Errorf("instance b's payload as written: %s", lines[1])
	}

	// The command's exit unregisters the instance, and register exits with
	// the command's status.
	if err := writeFile(stopB); err != nil {
		t.Fatal(err)
	}
	if code := b.wait(t); code != 0 {
		t.Fatalf("register b: status %d, stderr %s", code, b.stderr.String())
	}
	lines = discover()
	if len(lines) != 1 || !strings.Contains(lines[0], `"id":"a"`) {
		t.Fatalf("after b's command exited: %q", lines)
	}
	if err := writeFile(filepath.Join(dir, "stop-a")); err != nil {
		t.Fatal(err)
	}
	a.wait(t)
	if lines := discover(); len(lines) != 0 {
		t.Fatalf("after both exited: %q", lines)
	}
	// A service that never existed: nothing, status 0.
	p := start(t, append(append([]string{"discover"}, conn...), "--base", base, "nothing")...)
	if code := p.wait(t); code != 0 || p.stdout.String() != "" {
		t.Fatalf("discover of no service: status %d, output %q", code, p.stdout.String())
	}
}

func TestRegisterRefusesBadFlags(t *testing.T) {
	conn := connArgs(closedAddr(t))
	for _, args := range [][]string{
		{"register", "api", "--port", "1", "--", "true"},
		{"register", "api", "--address", "h", "--", "true"},
		{"register", "api", "--address", "h", "--port", "70000", "--", "true"},
		{"register", "api", "--address", "h", "--port", "1", "--payload", "{bad", "--", "true"},
		{"register", "api", "--address", "h", "--port", "1", "--uri-spec", "{a", "--", "true"},
		{"register", "api", "--address", "h", "--port", "1", "--id", "a/b", "--", "true"},
		{"discover", "a/b"},
	} {
		code, stderr := runTool(t, append(append([]string{args[0]}, conn...), args[1:]...)...)
		if code != exitUsage {
			t.Errorf("zkcurator %q: status %d (%s), want %d", args, code, stderr, exitUsage)
		}
	}
}

// writeFile creates an empty file.
func writeFile(name string) error { return os.WriteFile(name, nil, 0o644) }
