package framework

import "github.com/zkcurator/zkcurator/retry"

// RetryPolicy returns the policy the client retries operations with, for
// recipes that retry work of their own (a lock whose node vanished, say) the
// way the client would.
func (c *Client) RetryPolicy() retry.Policy { return c.core.cfg.policy }
