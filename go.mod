module github.com/zkcurator/zkcurator

go 1.22

require (
	github.com/cenkalti/backoff/v4 v4.3.0
	github.com/go-zookeeper/zk v1.0.4
	github.com/google/uuid v1.6.0
	go.uber.org/goleak v1.3.0
	go.uber.org/zap v1.28.0
)

require go.uber.org/multierr v1.10.0 // indirect
