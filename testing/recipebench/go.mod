module github.com/zkcurator/zkcurator/testing/recipebench

go 1.22

require (
	github.com/go-zookeeper/zk v1.0.4
	github.com/zkcurator/zkcurator v0.0.0-00010101000000-000000000000
	go.uber.org/goleak v1.3.0
)

require (
	github.com/cenkalti/backoff/v4 v4.3.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.28.0 // indirect
)

replace github.com/zkcurator/zkcurator => ../..
