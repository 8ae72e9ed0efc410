package campaign

import (
	"fmt"
	"time"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/protection"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// lockTTL is the lease of the TTL campaign's lock nodes: shorter than every
// pause the nemesis injects (SuspendClient holds 0.7 to 0.9 session
// timeouts, ExpireClient 1.6 to 2.4), so those faults cut holders off for
// longer than the TTL.
const lockTTL = time.Second

// ttlRelease bounds a TTL worker's Release, which comes as soon as the hold's
// Lost closes: short, so that a release in a partition fails and goes on in
// the background, and the worker's next hold, adopting its node again, may
// meet that pending delete.
const ttlRelease = lockTTL / 4

// newTTLMutex is a worker's mutex under PersistentTTLLockInternalsDriver,
// with a protected id of the worker's own, kept for all of its holds: a
// worker whose release failed, or whose lease ended, adopts its node again
// if it still stands.
func newTTLMutex(c *framework.Client, path string) *locks.InterProcessMutex {
	d, err := locks.NewPersistentTTLLockInternalsDriver(lockTTL, locks.WithProtectedID(protection.NewID()))
	if err != nil {
		panic(fmt.Sprintf("campaign: TTL driver: %v", err)) // lockTTL is valid
	}
	return built(locks.NewInterProcessMutex(c, path, locks.WithDriver(d)))
}

// errorPolicy is the error policy of a campaign's client. In the TTL campaign
// the even clients use the session policy, so that a holder cut off from the
// ensemble learns of the loss from its lease alone (or its session's end),
// not from Suspended.
func errorPolicy(kind LockKind, client int) framework.ErrorPolicy {
	if kind == TTLMutexLock && client%2 == 0 {
		return framework.SessionErrorPolicy
	}
	return framework.StandardErrorPolicy
}
