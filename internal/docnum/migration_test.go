package docnum_test

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
	"github.com/zkcurator/zkcurator/internal/docnum"
	"github.com/zkcurator/zkcurator/recipes/atomic"
	"github.com/zkcurator/zkcurator/recipes/barriers"
	"github.com/zkcurator/zkcurator/recipes/cache"
	"github.com/zkcurator/zkcurator/recipes/discovery"
	"github.com/zkcurator/zkcurator/recipes/leader"
	"github.com/zkcurator/zkcurator/recipes/locks"
	"github.com/zkcurator/zkcurator/recipes/nodes"
	"github.com/zkcurator/zkcurator/recipes/queue"
	"github.com/zkcurator/zkcurator/recipes/shared"
	"github.com/zkcurator/zkcurator/recipes/watch"
)

// migrated are the types docs/curator-migration.md builds with a
// constructor, by the constructor as the page spells it; nil for a function
// that builds none of ours.
var migrated = map[string]reflect.Type{
	"framework.NewClient":                  reflect.TypeOf((*framework.Client)(nil)),
	"retry.NewBackOff":                     nil,
	"atomic.NewDistributedAtomicLong":      reflect.TypeOf((*atomic.DistributedAtomicLong)(nil)),
	"atomic.NewDistributedAtomicValue":     reflect.TypeOf((*atomic.DistributedAtomicValue)(nil)),
	"barriers.NewDistributedBarrier":       reflect.TypeOf((*barriers.DistributedBarrier)(nil)),
	"barriers.NewDistributedDoubleBarrier": reflect.TypeOf((*barriers.DistributedDoubleBarrier)(nil)),
	"cache.NewCuratorCache":                reflect.TypeOf((*cache.CuratorCache)(nil)),
	"cache.NewListener":                    reflect.TypeOf((*cache.ListenerBuilder)(nil)),
	"cache.NewNodeCache":                   reflect.TypeOf((*cache.NodeCache)(nil)),
	"cache.NewPathChildrenCache":           reflect.TypeOf((*cache.PathChildrenCache)(nil)),
	"cache.NewTreeCache":                   reflect.TypeOf((*cache.TreeCache)(nil)),
	"d.NewServiceCache":                    reflect.TypeOf((*discovery.ServiceCache[struct{}])(nil)),
	"d.NewServiceProvider":                 reflect.TypeOf((*discovery.ServiceProvider[struct{}])(nil)),
	"discovery.NewServiceDiscovery":        reflect.TypeOf((*discovery.ServiceDiscovery[struct{}])(nil)),
	"leader.NewLeaderLatch":                reflect.TypeOf((*leader.LeaderLatch)(nil)),
	"leader.NewLeaderSelector":             reflect.TypeOf((*leader.LeaderSelector)(nil)),
	"locks.NewInterProcessMutex":           reflect.TypeOf((*locks.InterProcessMutex)(nil)),
	"locks.NewInterProcessReadWriteLock":   reflect.TypeOf((*locks.InterProcessReadWriteLock)(nil)),
	"locks.NewInterProcessSemaphoreV2":     reflect.TypeOf((*locks.InterProcessSemaphoreV2)(nil)),
	"locks.NewInterProcessSemaphoreMutex":  reflect.TypeOf((*locks.InterProcessSemaphoreMutex)(nil)),
	"locks.NewInterProcessMultiLock":       reflect.TypeOf((*locks.InterProcessMultiLock)(nil)),
	"nodes.NewPersistentNode":              reflect.TypeOf((*nodes.PersistentNode)(nil)),
	"queue.NewDistributedQueue":            reflect.TypeOf((*queue.DistributedQueue[struct{}])(nil)),
	"queue.NewDistributedIDQueue":          reflect.TypeOf((*queue.DistributedIDQueue[struct{}])(nil)),
	"queue.NewDistributedPriorityQueue":    reflect.TypeOf((*queue.DistributedPriorityQueue[struct{}])(nil)),
	"queue.NewDistributedDelayQueue":       reflect.TypeOf((*queue.DistributedDelayQueue[struct{}])(nil)),
	"queue.NewSimpleDistributedQueue":      reflect.TypeOf((*queue.SimpleDistributedQueue)(nil)),
	"shared.NewSharedCount":                reflect.TypeOf((*shared.SharedCount)(nil)),
	"watch.NewPersistentWatcher":           reflect.TypeOf((*watch.PersistentWatcher)(nil)),
	"shared.NewSharedValue":                reflect.TypeOf((*shared.SharedValue)(nil)),
}

var (
	constructorRe = regexp.MustCompile("`([a-z]+\\.New\\w+)(?:\\[\\w+\\])?\\(")
	methodRe      = regexp.MustCompile("`([A-Z]\\w*)\\(")
	// callRe is a call shown with its results: `a, b := x.Name(`.
	callRe = regexp.MustCompile("`((?:\\w+, )*\\w+) :?= \\w+\\.([A-Z]\\w*)\\(")
)

// Each row of docs/curator-migration.md that builds a type names only
// methods it has (unqualified `Name(`, after the constructors; a row that
// builds several types claims them for each), and a call it shows with its
// results shows as many as the method returns.
func TestMigrationRowsNameRealMethods(t *testing.T) {
	root, err := docnum.Root()
	if err != nil {
		t.Fatal(err)
	}
	page, err := readFile(root, "docs/curator-migration.md")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, row := range strings.Split(page, "\n") {
		cells := strings.Split(strings.Trim(row, "| "), " | ")
		if !strings.HasPrefix(row, "|") || len(cells) < 2 {
			continue
		}
		goCell := cells[len(cells)-1]
		ctors := constructorRe.FindAllStringSubmatchIndex(goCell, -1)
		if len(ctors) == 0 {
			continue
		}
		// A row that builds several types claims its methods for each.
		var types []reflect.Type
		var names []string
		for _, c := range ctors {
			name := goCell[c[2]:c[3]]
			typ, ok := migrated[name]
			if !ok {
				t.Errorf("docs/curator-migration.md builds %s, which this test does not know: add it to migrated", name)
			}
			if typ != nil {
				types, names = append(types, typ), append(names, name)
			}
		}
		rest := goCell[ctors[len(ctors)-1][1]:]
		for i, typ := range types {
			for _, m := range methodRe.FindAllStringSubmatch(rest, -1) {
				if _, ok := typ.MethodByName(m[1]); !ok {
					t.Errorf("docs/curator-migration.md gives %s a method %s(); %v has none", names[i], m[1], typ)
				}
			}
			for _, m := range callRe.FindAllStringSubmatch(rest, -1) {
				meth, ok := typ.MethodByName(m[2])
				if results := len(strings.Split(m[1], ", ")); ok && meth.Type.NumOut() != results {
					t.Errorf("docs/curator-migration.md shows %s's %s returning %d values; it returns %d", names[i], m[2], results, meth.Type.NumOut())
				}
			}
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("checked %d rows of docs/curator-migration.md; the page or its table changed shape", checked)
	}
}

func readFile(root, rel string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	return string(b), err
}
