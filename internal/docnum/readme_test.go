package docnum_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/internal/docnum"
	"github.com/zkcurator/zkcurator/recipes/locks"
)

// README.md's list of the holds with a Lost channel is the code's: each
// kind it names has Lost, and the multi-lock, which it says has none, has
// none.
func TestReadmeNamesTheHoldsWithLost(t *testing.T) {
	text, err := docnum.Prose("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const claim = "a `Lost()` channel on every mutex, read or write lock, semaphore mutex and lease (a multi-lock has none: watch its locks' own)"
	if !strings.Contains(text, claim) {
		t.Fatalf("README.md no longer says %q; check what it says against the code and this test", claim)
	}
	for _, typ := range []reflect.Type{
		reflect.TypeOf((*locks.InterProcessMutex)(nil)), // also each side of a read/write lock
		reflect.TypeOf((*locks.InterProcessSemaphoreMutex)(nil)),
		reflect.TypeOf((*locks.Lease)(nil)),
	} {
		if _, ok := typ.MethodByName("Lost"); !ok {
			t.Errorf("README.md says %v has Lost(); it has none", typ)
		}
	}
	var rw *locks.InterProcessReadWriteLock
	if m, ok := reflect.TypeOf(rw).MethodByName("ReadLock"); !ok || m.Type.Out(0) != reflect.TypeOf((*locks.InterProcessMutex)(nil)) {
		t.Errorf("a read/write lock's sides are not mutexes: README.md's Lost() claim needs another look")
	}
	if _, ok := reflect.TypeOf((*locks.InterProcessMultiLock)(nil)).MethodByName("Lost"); ok {
		t.Errorf("README.md says the multi-lock has no Lost(); it has one")
	}
}
