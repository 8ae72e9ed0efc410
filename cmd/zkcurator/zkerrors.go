package main

import (
	"errors"

	"github.com/go-zookeeper/zk"
)

// aclHint tells how to send the identity an ACL asks for.
const aclHint = "authenticate with --auth-file, ZK_AUTH, --sasl-user or --tls-cert"

// zkFail is the error for a request on p that failed with err: status 1
// for a missing node, 77 for a refusal by the node's ACL (naming p) and 69
// otherwise. op says what was done ("list", "read").
func zkFail(op, p string, err error) error {
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return fail(exitNotFound, "no node %s", p)
	case refused(err):
		return noPermission(op+" "+p, err)
	}
	return fail(exitUnavailable, "%s %s: %v", op, p, err)
}

// refused reports whether ZooKeeper refused a request for want of
// authentication or permission.
func refused(err error) bool {
	return errors.Is(err, zk.ErrNoAuth) || errors.Is(err, zk.ErrAuthFailed)
}

// noPermission is the exitNoPermission error for what, refused with err.
func noPermission(what string, err error) error {
	why := "not authenticated or not permitted by the node's ACL"
	if errors.Is(err, zk.ErrAuthFailed) {
		why = "authentication failed"
	}
	return fail(exitNoPermission, "%s: ZooKeeper refused it: %s (%s)", what, why, aclHint)
}
