package nodes

import (
	"fmt"
	"strings"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// maxTTL is ZooKeeper's largest TTL (a 40-bit count of milliseconds).
const maxTTL = time.Duration(0xFFFFFFFFFF) * time.Millisecond

// PersistentNodeOption configures a PersistentNode.
type PersistentNodeOption func(*nodeConfig)

type nodeConfig struct {
	protected bool
	ttl       time.Duration
	ttlSet    bool
}

// WithProtection names the node in Curator's protected mode
// ("_c_<uuid>-<name>", one id for the node's whole life), so that a create
// whose reply was lost is found again by its id instead of made twice.
func WithProtection() PersistentNodeOption {
	return func(c *nodeConfig) { c.protected = true }
}

// WithTTL sets the TTL of a node in mode PersistentWithTTL or
// PersistentSequentialWithTTL (from 1 ms to 2^40-1 ms).
func WithTTL(ttl time.Duration) PersistentNodeOption {
	return func(c *nodeConfig) { c.ttl, c.ttlSet = ttl, true }
}

func (c nodeConfig) validate(path string, mode framework.CreateMode) error {
	switch {
	case mode < framework.Persistent || mode > framework.PersistentSequentialWithTTL:
		return fmt.Errorf("%w: unknown create mode %d for %q", ErrInvalidArgument, int(mode), path)
	case mode.IsTTL() && !c.ttlSet:
		return fmt.Errorf("%w: mode %v for %q needs WithTTL", ErrInvalidArgument, mode, path)
	case c.ttlSet && !mode.IsTTL():
		return fmt.Errorf("%w: WithTTL(%v) for %q needs a TTL mode, not %v", ErrInvalidArgument, c.ttl, path, mode)
	case c.ttlSet:
		return validateTTL(c.ttl)
	case c.protected && mode == framework.Container:
		return fmt.Errorf("%w: a container node %q cannot be protected", ErrInvalidArgument, path)
	}
	return nil
}

func validateTTL(ttl time.Duration) error {
	if ttl < time.Millisecond || ttl > maxTTL {
		return fmt.Errorf("%w: TTL %v is outside 1ms..%v", ErrInvalidArgument, ttl, maxTTL)
	}
	return nil
}

// PersistentTTLNodeOption configures a PersistentTTLNode.
type PersistentTTLNodeOption func(*ttlConfig)

type ttlConfig struct {
	child  string
	factor int
}

// DefaultChildNodeName is the name of the touched child, as Curator's.
const DefaultChildNodeName = "touch"

// DefaultTouchScheduleFactor is how many times per TTL the child is
// touched, as Curator's.
const DefaultTouchScheduleFactor = 2

// WithChildNodeName names the touched child (default "touch").
func WithChildNodeName(name string) PersistentTTLNodeOption {
	return func(c *ttlConfig) { c.child = name }
}

// WithTouchScheduleFactor touches the child every TTL/factor (default 2).
func WithTouchScheduleFactor(factor int) PersistentTTLNodeOption {
	return func(c *ttlConfig) { c.factor = factor }
}

func (c ttlConfig) validate(path string, ttl time.Duration) error {
	switch {
	case c.child == "" || strings.Contains(c.child, "/"):
		return fmt.Errorf("%w: child node name %q for %q is not one path element", ErrInvalidArgument, c.child, path)
	case c.factor < 1:
		return fmt.Errorf("%w: touch schedule factor %d for %q is below 1", ErrInvalidArgument, c.factor, path)
	case ttl/time.Duration(c.factor) < time.Millisecond:
		return fmt.Errorf("%w: TTL %v / factor %d for %q is below 1ms", ErrInvalidArgument, ttl, c.factor, path)
	}
	return nil
}
