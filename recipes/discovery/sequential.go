package discovery

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"
	"go.uber.org/zap"

	"github.com/zkcurator/zkcurator/framework"
)

// sequenceDigits is the width of the server's sequence suffix.
const sequenceDigits = 10

// sweepSequential deletes the nodes of a sequential registration other
// than keep that the client's current session made: a create whose reply
// was lost landed all the same, and its retry (the client's, or the
// keeper's after the reconnect) made a second node for the instance. Those
// nodes are named base plus a sequence; only the current session's are
// touched, so another client's instance of the same id is left alone.
func (d *ServiceDiscovery[T]) sweepSequential(ctx context.Context, base, keep string) error {
	cut := strings.LastIndexByte(base, '/')
	dir, id := base[:cut], base[cut+1:]
	names, _, err := d.c.Children(ctx, dir)
	if err != nil {
		return fmt.Errorf("discovery: look for stray nodes of %s: %w", base, err)
	}
	for _, name := range names {
		path := framework.JoinPath(dir, name)
		if path == keep || !isSequenceOf(name, id) {
			continue
		}
		stat, err := d.c.Exists(ctx, path)
		if err != nil {
			return fmt.Errorf("discovery: look at stray node %s: %w", path, err)
		}
		if stat == nil || !d.c.SessionOf(stat.EphemeralOwner).IsCurrent() {
			continue
		}
		err = d.c.Delete(ctx, path, framework.WithVersion(stat.Version), framework.Quietly())
		if err != nil && !errors.Is(err, zk.ErrBadVersion) {
			return fmt.Errorf("discovery: delete stray node %s: %w", path, err)
		}
		d.c.Logger().Info("discovery: deleted a second node of a sequential registration", zap.String("path", path), zap.String("kept", keep))
	}
	return nil
}

// isSequenceOf reports whether name is id followed by a sequence number.
func isSequenceOf(name, id string) bool {
	if len(name) != len(id)+sequenceDigits || !strings.HasPrefix(name, id) {
		return false
	}
	for _, c := range name[len(id):] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
