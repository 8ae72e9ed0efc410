package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/discovery"
)

// defaultBase is curator-x-discovery's usual base path (Spring Cloud
// Zookeeper's default root).
const defaultBase = "/services"

var discoverCommand = &command{
	name:     "discover",
	synopsis: "[flags] NAME",
	summary:  "list the instances of a service (Curator's service discovery)",
	help: `Prints each instance of the service NAME registered under --base by
Curator's ServiceDiscovery (Java), Spring Cloud Zookeeper, or 'zkcurator
register': one line per instance, the node's JSON as stored, sorted by the
instance id. A service with no instance prints nothing and exits with
status 0. A node whose data is not an instance is skipped with a warning on
stderr.`,
	positional: 1,
	setup: func(fs *flag.FlagSet, conn *connFlags) func(context.Context, io.Writer, []string) error {
		base := fs.String("base", defaultBase, "the discovery base `path` the services live under")
		return func(ctx context.Context, out io.Writer, args []string) error {
			name := args[0]
			if err := checkServiceArgs(*base, name); err != nil {
				return fail(exitUsage, "discover: %v", err)
			}
			log := newLogger(conn.verbose)
			defer func() { _ = log.Sync() }()
			c, err := conn.dial(ctx, log)
			if err != nil {
				return err
			}
			defer closeClient(c, 6*time.Second, log)
			lines, err := readInstances(ctx, c, framework.JoinPath(*base, name), os.Stderr, log)
			if refused(err) {
				return fail(exitNoPermission, "discover: %v: ZooKeeper refused it (not authenticated or not permitted by the node's ACL; %s)", err, aclHint)
			}
			if err != nil {
				return fail(exitUnavailable, "discover: %v", err)
			}
			for _, l := range lines {
				if _, err := fmt.Fprintf(out, "%s\n", l); err != nil {
					return fail(exitInternal, "discover: write: %v", err)
				}
			}
			return nil
		}
	},
}

// checkServiceArgs checks a base path and a service name.
func checkServiceArgs(base, name string) error {
	if err := checkPath("--base", base); err != nil {
		return err
	}
	if name == "/" {
		return fmt.Errorf("bad NAME %q: the root cannot be used (a service name is one node name)", name)
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("bad NAME %q: a service name is one node name", name)
	}
	return nil
}

// readInstances reads the instance nodes under dir and returns their JSON,
// each on one line, sorted by instance id (then node name). A node that is
// not an instance is skipped with a warning on warn, --verbose or not.
func readInstances(ctx context.Context, c *framework.Client, dir string, warn io.Writer, log *zap.Logger) ([][]byte, error) {
	kids, _, err := c.Children(ctx, dir)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	type found struct {
		id, node string
		line     []byte
	}
	var all []found
	for _, k := range kids {
		p := framework.JoinPath(dir, k)
		data, _, err := c.GetData(ctx, p)
		if errors.Is(err, zk.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		var inst discovery.ServiceInstance[json.RawMessage]
		if err := inst.UnmarshalJSON(data); err != nil {
			fmt.Fprintf(warn, "zkcurator: warning: skipped %s: not a service instance (%s)\n", p, oneLine(err.Error()))
			log.Debug("skipped a node that is not a service instance", zap.String("node", p), zap.Error(err))
			continue
		}
		var line bytes.Buffer
		if err := json.Compact(&line, data); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		all = append(all, found{inst.ID, k, line.Bytes()})
	}
	slices.SortFunc(all, func(a, b found) int {
		if c := strings.Compare(a.id, b.id); c != 0 {
			return c
		}
		return strings.Compare(a.node, b.node)
	})
	out := make([][]byte, len(all))
	for i, f := range all {
		out[i] = f.line
	}
	return out, nil
}
