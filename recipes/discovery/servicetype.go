package discovery

import (
	"fmt"

	"github.com/zkcurator/zkcurator/framework"
)

// ServiceType is how an instance's node lives, as Curator's ServiceType; its
// value is the name Curator writes in the JSON.
type ServiceType string

const (
	// Dynamic instances live in an ephemeral node: they go with the session
	// (and are made again in a new one while registered).
	Dynamic ServiceType = "DYNAMIC"
	// DynamicSequential instances live in an ephemeral sequential node
	// ({basePath}/{name}/{id}0000000001).
	DynamicSequential ServiceType = "DYNAMIC_SEQUENTIAL"
	// Static instances live in a persistent node.
	Static ServiceType = "STATIC"
	// Permanent instances live in a persistent node.
	Permanent ServiceType = "PERMANENT"
)

// mode is the node mode Curator gives an instance of type t.
func (t ServiceType) mode() framework.CreateMode {
	switch t {
	case Dynamic, "":
		return framework.Ephemeral
	case DynamicSequential:
		return framework.EphemeralSequential
	}
	return framework.Persistent
}

// ephemeral reports whether an instance of type t goes with its session.
func (t ServiceType) ephemeral() bool {
	m := t.mode()
	return m == framework.Ephemeral || m == framework.EphemeralSequential
}

func (t ServiceType) validate() error {
	switch t {
	case Dynamic, DynamicSequential, Static, Permanent:
		return nil
	}
	return fmt.Errorf("%w: service type %q (want DYNAMIC, DYNAMIC_SEQUENTIAL, STATIC or PERMANENT)", ErrInvalidArgument, string(t))
}
