package nodes

import (
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// PersistentTtlNode is the former name of PersistentTTLNode.
//
// Deprecated: use PersistentTTLNode.
type PersistentTtlNode = PersistentTTLNode

// PersistentTtlNodeOption is the former name of PersistentTTLNodeOption.
//
// Deprecated: use PersistentTTLNodeOption.
type PersistentTtlNodeOption = PersistentTTLNodeOption

// NewPersistentTtlNode is the former name of NewPersistentTTLNode.
//
// Deprecated: use NewPersistentTTLNode.
func NewPersistentTtlNode(c *framework.Client, path string, ttl time.Duration, data []byte, opts ...PersistentTTLNodeOption) (*PersistentTTLNode, error) {
	return NewPersistentTTLNode(c, path, ttl, data, opts...)
}
