// Command cli shows the command-line tool cmd/zkcurator: two cron jobs
// started at once under 'zkcurator lock' run one after the other. It builds
// the tool with the go command, so run it from the repository. It exits with
// status 1 if the jobs overlapped.
//
//	go run ./examples/cli
//
// It uses the ensemble in ZK_CONNECT, or an embedded ZooKeeper when that is unset.
package main

import (
	"github.com/zkcurator/zkcurator/examples/internal/demo"
)

func main() {
	demo.Main(demo.CLI)
}
