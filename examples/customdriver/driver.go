package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// identity says who created a lock node. It is stored in the node as JSON,
// so tools in any language can read it.
type identity struct {
	Host   string `json:"host"`
	PID    int    `json:"pid"`
	Worker int    `json:"worker"`
}

func (id identity) String() string {
	return fmt.Sprintf("host=%s pid=%d worker=%d", id.Host, id.PID, id.Worker)
}

// thisProcess returns the identity of a worker of this process.
func thisProcess(worker int) (identity, error) {
	host, err := os.Hostname()
	if err != nil {
		return identity{}, fmt.Errorf("host name: %w", err)
	}
	return identity{Host: host, PID: os.Getpid(), Worker: worker}, nil
}

// holderDriver is a LockInternalsDriver written outside the locks package.
// It embeds the standard fair driver, so node names, ordering, watching and
// Curator compatibility are inherited, and overrides only CreatesTheLock:
// every contender's node carries the identity of the contender, whatever
// data the mutex was given. The node is the standard driver's protected
// EPHEMERAL_SEQUENTIAL node, so it goes away with its session and a cancelled
// or failed attempt still leaves nothing behind.
type holderDriver struct {
	locks.StandardLockInternalsDriver
	who identity
}

// CreatesTheLock creates the contender's node with the identity as its data.
func (d holderDriver) CreatesTheLock(ctx context.Context, c *framework.Client, path string, _ []byte) (string, error) {
	data, err := json.Marshal(d.who)
	if err != nil {
		return "", fmt.Errorf("encode %v: %w", d.who, err)
	}
	return d.StandardLockInternalsDriver.CreatesTheLock(ctx, c, path, data)
}
