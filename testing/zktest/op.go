package zktest

import "strconv"

// Op is a ZooKeeper request opcode, as sent in a request header.
type Op int32

// The opcodes a Proxy counts and can lose replies to. Names follow
// ZooKeeper's ZooDefs.OpCode.
const (
	OpCreate          Op = 1
	OpDelete          Op = 2
	OpExists          Op = 3
	OpGetData         Op = 4
	OpSetData         Op = 5
	OpGetACL          Op = 6
	OpSetACL          Op = 7
	OpGetChildren     Op = 8
	OpSync            Op = 9
	OpPing            Op = 11
	OpGetChildren2    Op = 12
	OpCheck           Op = 13
	OpMulti           Op = 14
	OpCreate2         Op = 15
	OpCreateContainer Op = 19
	OpCreateTTL       Op = 21
	OpMultiRead       Op = 22
	OpSetAuth         Op = 100
	OpSetWatches      Op = 101
	OpClose           Op = -11
)

var opNames = map[Op]string{
	OpCreate:          "create",
	OpDelete:          "delete",
	OpExists:          "exists",
	OpGetData:         "getData",
	OpSetData:         "setData",
	OpGetACL:          "getACL",
	OpSetACL:          "setACL",
	OpGetChildren:     "getChildren",
	OpSync:            "sync",
	OpPing:            "ping",
	OpGetChildren2:    "getChildren2",
	OpCheck:           "check",
	OpMulti:           "multi",
	OpCreate2:         "create2",
	OpCreateContainer: "createContainer",
	OpCreateTTL:       "createTTL",
	OpMultiRead:       "multiRead",
	OpSetAuth:         "auth",
	OpSetWatches:      "setWatches",
	OpClose:           "closeSession",
}

// String returns ZooKeeper's name for the opcode, such as "create", or
// "Op(n)" for one this package does not name.
func (op Op) String() string {
	if name, ok := opNames[op]; ok {
		return name
	}
	return "Op(" + strconv.Itoa(int(op)) + ")"
}
