package zktest

import "errors"

var (
	// ErrNotInstalled reports that Java or the ZooKeeper jars were not found.
	// Its message names scripts/install-zookeeper.sh, which installs both.
	ErrNotInstalled = errors.New("zktest: ZooKeeper or Java is not installed; run scripts/install-zookeeper.sh (make test runs it)")

	// ErrClosed is returned by operations on a Server or Cluster after Close.
	ErrClosed = errors.New("zktest: server closed")

	// ErrNoLeader is returned by Cluster.Leader when no running member reports
	// that it leads, for example while an election is under way.
	ErrNoLeader = errors.New("zktest: no member is leading")
)
