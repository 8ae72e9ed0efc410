package main

import (
	"path"
	"time"

	"github.com/zkcurator/zkcurator/protection"
)

// arrivalTimeout bounds how long a contender's node may take to show up in
// line.
const arrivalTimeout = 10 * time.Second

// handoffTimeout bounds how long a waiter may take to get a released lock.
const handoffTimeout = 10 * time.Second

// shortNode drops the path and the protection prefix of a lock node:
// "/locks/x/_c_<uuid>-lock-0000000003" becomes "lock-0000000003".
func shortNode(p string) string {
	return protection.Strip(path.Base(p))
}
