package framework

import (
	"fmt"

	"github.com/go-zookeeper/zk"
)

// unimplemented is the message go-zookeeper gives ZooKeeper's UNIMPLEMENTED (-6),
// for which it has no sentinel: a server without extended types answers it to a
// TTL create.
var unimplemented = fmt.Sprintf("unknown error: %v", zk.ErrCode(-6))

// ttlError turns the answer of a server that does not allow TTL nodes into an error
// matching ErrTTLNotEnabled; other errors stay as they are.
func ttlError(err error) error {
	if err == nil || err.Error() != unimplemented {
		return err
	}
	return fmt.Errorf("%w; the server answered %w", ErrTTLNotEnabled, err)
}
