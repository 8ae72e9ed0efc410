package locks

import (
	"strconv"
	"strings"
)

// Python Kazoo's lock node markers: Kazoo names a contender's node
// "<uuid hex><marker><sequence>". Lock and WriteLock use kazooWriterMarker,
// ReadLock kazooReaderMarker. Kazoo's Lock waits only for writer nodes before
// it, its WriteLock for both kinds, its ReadLock for writers.
const (
	kazooWriterMarker = "__lock__"
	kazooReaderMarker = "__rlock__"
)

// kazooSequence reads name as a node of Python Kazoo's lock recipes: a name
// that ends with "__lock__" (Lock, WriteLock) or "__rlock__" (ReadLock) and a
// ZooKeeper sequence number, which is what Kazoo itself asks of a contender.
// It returns the sequence text and whether the node is a reader's; ok is false
// for any other name.
func kazooSequence(name string) (seq string, reader, ok bool) {
	for _, marker := range [...]string{kazooWriterMarker, kazooReaderMarker} {
		if i := strings.LastIndex(name, marker); i >= 0 {
			if s := name[i+len(marker):]; isSequenceNumber(s) {
				return s, marker == kazooReaderMarker, true
			}
		}
	}
	return "", false, false
}

// isSequenceNumber reports whether s is a sequence suffix as ZooKeeper prints
// it: a 32-bit integer in decimal, negative after the counter wrapped.
func isSequenceNumber(s string) bool {
	if s == "" || s[0] == '+' {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 32)
	return err == nil
}
