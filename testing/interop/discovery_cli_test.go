package interop

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// zkcurator register keeps an instance that Curator's ServiceDiscovery reads
// (its payload built as the helper's Java class) while its command runs, and
// zkcurator discover lists Curator's and its own instances as the nodes'
// bytes, sorted by id; when the command exits Curator no longer sees it.
func TestDiscoveryCLIBesideCurator(t *testing.T) {
	bin := buildCLI(t)
	srv := startZooKeeper(t)
	ctx := testContext(t, 60*time.Second)
	java := StartHelper(t, srv.ConnectString())
	mustDo(t, ctx, java, "discovery.start", "j", "/services")
	mustDo(t, ctx, java, "discovery.register", append([]string{"j"}, discoverySpecs[0].javaArgs()...)...)

	dir := t.TempDir()
	ran, stop := filepath.Join(dir, "ran"), filepath.Join(dir, "stop")
	conn := []string{"--connect", srv.ConnectString(), "--session-timeout", "2s"}
	reg := exec.CommandContext(ctx, bin, append(append([]string{"register"}, conn...),
		"api", "--address", "10.9.9.9", "--port", "7000", "--id", "g-1", "--payload", `{"zone":"go"}`, "--payload-class", javaMeta,
		"--uri-spec", "{scheme}://{address}:{port}", "--", "sh", "-c", `echo "$ZKCURATOR_INSTANCE_ID" > "$0"; while [ ! -e "$1" ]; do sleep 0.05; done`, ran, stop)...)
	if err := reg.Start(); err != nil {
		t.Fatal(err)
	}
	defer reg.Process.Kill()
	awaitCond(t, ctx, "the registered command runs", func() bool {
		b, err := os.ReadFile(ran)
		return err == nil && strings.TrimSpace(string(b)) == "g-1"
	})

	e, err := java.Do(ctx, kindInstances, "discovery.query", "j", "api")
	if err != nil {
		t.Fatal(err)
	}
	var goSeen bool
	for _, d := range describedList(t, e.Field(0)) {
		if d.ID == "g-1" {
			goSeen = true
			if d.Address != "10.9.9.9" || *d.Port != 7000 || d.Zone == nil || *d.Zone != "go" || *d.PayloadClass != javaMeta ||
				d.URI != "http://10.9.9.9:7000" || d.ServiceType != "DYNAMIC" || d.RegistrationTimeUTC == 0 {
				t.Errorf("Curator read zkcurator register's instance as %+v", d)
			}
		}
	}
	if !goSeen {
		t.Fatal("Curator does not see zkcurator register's instance")
	}

	out, err := exec.CommandContext(ctx, bin, append(append([]string{"discover"}, conn...), "api")...).Output()
	if err != nil {
		t.Fatalf("zkcurator discover: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	c := newGoClient(t, srv.ConnectString())
	for n, id := range []string{"g-1", discoverySpecs[0].id} {
		data, _, err := c.GetData(ctx, "/services/api/"+id)
		if err != nil {
			t.Fatal(err)
		}
		if n >= len(lines) || lines[n] != string(data) {
			t.Fatalf("zkcurator discover printed %q; line %d should be %s's node: %s", lines, n+1, id, data)
		}
	}

	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := reg.Wait(); err != nil {
		t.Fatalf("zkcurator register: %v", err)
	}
	e, err = java.Do(ctx, kindInstances, "discovery.query", "j", "api")
	if err != nil {
		t.Fatal(err)
	}
	if left := describedList(t, e.Field(0)); len(left) != 1 || left[0].ID != discoverySpecs[0].id {
		t.Fatalf("after the command exited Curator sees %d instances, want only %s", len(left), discoverySpecs[0].id)
	}
}
