package framework

import (
	"fmt"

	"github.com/go-zookeeper/zk"
)

// CreateMode is the kind of node a create makes, as ZooKeeper's CreateMode.
type CreateMode int

const (
	// Persistent nodes live until deleted.
	Persistent CreateMode = iota
	// PersistentSequential nodes get a 10-digit sequence number appended to their name.
	PersistentSequential
	// Ephemeral nodes are deleted when the creating session ends.
	Ephemeral
	// EphemeralSequential nodes are ephemeral and sequential.
	EphemeralSequential
	// Container nodes are deleted by the server once their last child is gone.
	Container
	// PersistentWithTTL nodes are deleted by the server when they have had no children
	// and no change for their TTL (see WithTTL; the server needs zookeeper.extendedTypesEnabled).
	PersistentWithTTL
	// PersistentSequentialWithTTL nodes are sequential PersistentWithTTL nodes.
	PersistentSequentialWithTTL
)

// IsEphemeral reports whether nodes of the mode end with their session.
func (m CreateMode) IsEphemeral() bool { return m == Ephemeral || m == EphemeralSequential }

// IsSequential reports whether the server appends a sequence number to the name.
func (m CreateMode) IsSequential() bool {
	return m == PersistentSequential || m == EphemeralSequential || m == PersistentSequentialWithTTL
}

// IsTTL reports whether nodes of the mode need a TTL.
func (m CreateMode) IsTTL() bool { return m == PersistentWithTTL || m == PersistentSequentialWithTTL }

// String returns ZooKeeper's name for the mode, such as EPHEMERAL_SEQUENTIAL.
func (m CreateMode) String() string {
	switch m {
	case Persistent:
		return "PERSISTENT"
	case PersistentSequential:
		return "PERSISTENT_SEQUENTIAL"
	case Ephemeral:
		return "EPHEMERAL"
	case EphemeralSequential:
		return "EPHEMERAL_SEQUENTIAL"
	case Container:
		return "CONTAINER"
	case PersistentWithTTL:
		return "PERSISTENT_WITH_TTL"
	case PersistentSequentialWithTTL:
		return "PERSISTENT_SEQUENTIAL_WITH_TTL"
	}
	return fmt.Sprintf("CreateMode(%d)", int(m))
}

func (m CreateMode) valid() bool { return m >= Persistent && m <= PersistentSequentialWithTTL }

// flags returns go-zookeeper's create flags for the mode.
func (m CreateMode) flags() int32 {
	switch m {
	case PersistentSequential:
		return zk.FlagSequence
	case Ephemeral:
		return zk.FlagEphemeral
	case EphemeralSequential:
		return zk.FlagEphemeralSequential
	case Container:
		return zk.FlagContainer
	case PersistentWithTTL:
		return zk.FlagTTL
	case PersistentSequentialWithTTL:
		return zk.FlagPersistentSequentialWithTTL
	}
	return zk.FlagPersistent
}
