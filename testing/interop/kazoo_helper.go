package interop

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// PythonPath is Debian's system Python, the one python3-kazoo installs Kazoo
// for (scripts/install-zookeeper.sh installs both).
const PythonPath = "/usr/bin/python3"

// kazooHelperSource is the Python helper, run with python3 -c.
//
//go:embed kazoo/helper.py
var kazooHelperSource string

const kazooInstallHint = "run scripts/install-zookeeper.sh (make interop does) to install Debian's python3 and python3-kazoo"

// Patterns a Kazoo user passes as extra_lock_patterns so that Kazoo's locks
// see zkcurator's (and Curator's, and go-zookeeper's) nodes as contenders.
var (
	// KazooMutexPatterns makes a Kazoo Lock, ReadLock or WriteLock wait for
	// mutex nodes "..-lock-<sequence>".
	KazooMutexPatterns = []string{"-lock-"}
	// KazooReadPatterns makes a Kazoo ReadLock wait for the writers of an
	// InterProcessReadWriteLock ("__WRIT__").
	KazooReadPatterns = []string{"__WRIT__"}
	// KazooWritePatterns makes a Kazoo WriteLock wait for the readers and
	// writers of an InterProcessReadWriteLock.
	KazooWritePatterns = []string{"__READ__", "__WRIT__"}
)

// KazooHelper is a Python process driving Kazoo (Debian's python3-kazoo)
// through kazoo/helper.py, with the line protocol of the Curator helper: its
// Acquire, AcquireAsync, Release, Count and Quit work as they do there, on
// handle names (a Kazoo lock has no sides).
type KazooHelper struct {
	*Helper
}

// StartKazoo starts the Python helper against connect and returns once its
// Kazoo client is connected. A missing /usr/bin/python3, or a Kazoo it cannot
// import, is an error that says what to install. Call Close when done.
func StartKazoo(ctx context.Context, connect string, opts ...Option) (*KazooHelper, error) {
	return startKazoo(ctx, PythonPath, []string{"-u"}, connect, opts)
}

// startKazoo runs the helper with python and its flags.
func startKazoo(ctx context.Context, python string, flags []string, connect string, opts []Option) (*KazooHelper, error) {
	cfg, err := newConfig("kazoo", connect, opts)
	if err != nil {
		return nil, err
	}
	if len(cfg.acl) > 0 {
		return nil, fmt.Errorf("interop: %s: WithACL is for Curator helpers only", cfg.name)
	}
	if _, err := os.Stat(python); err != nil {
		return nil, fmt.Errorf("interop: no Python for Kazoo: %w: %s", err, kazooInstallHint)
	}
	args := append(append([]string{}, flags...), "-c", kazooHelperSource,
		"--connect", connect,
		"--session-timeout-ms", strconv.FormatInt(cfg.sessionTimeout.Milliseconds(), 10))
	h, err := launch(ctx, cfg.name, exec.Command(python, args...))
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, kazooInstallHint)
	}
	return &KazooHelper{h}, nil
}

// StartKazooHelper starts a Kazoo helper for a test (see StartKazoo), fails
// the test if it cannot, and closes it when the test ends.
func StartKazooHelper(tb testing.TB, connect string, opts ...Option) *KazooHelper {
	tb.Helper()
	h := startForTest(tb, func(ctx context.Context) (*Helper, error) {
		k, err := StartKazoo(ctx, connect, opts...)
		if err != nil {
			return nil, err
		}
		return k.Helper, nil
	})
	return &KazooHelper{h}
}

// Mutex defines handle as a Kazoo Lock on path with the given
// extra_lock_patterns (none: Kazoo's default, which sees only Kazoo's nodes).
func (k *KazooHelper) Mutex(ctx context.Context, handle, path string, patterns ...string) error {
	return k.define(ctx, "mutex", handle, path, patterns)
}

// ReadLock defines handle as a Kazoo ReadLock on path with the given
// extra_lock_patterns.
func (k *KazooHelper) ReadLock(ctx context.Context, handle, path string, patterns ...string) error {
	return k.define(ctx, "readlock", handle, path, patterns)
}

// WriteLock defines handle as a Kazoo WriteLock on path with the given
// extra_lock_patterns.
func (k *KazooHelper) WriteLock(ctx context.Context, handle, path string, patterns ...string) error {
	return k.define(ctx, "writelock", handle, path, patterns)
}

// CuratorNamedLock defines handle as the helper's CuratorNamedLock on path:
// Kazoo's Lock with the node name "-lock-" (nodes "<uuid hex>-lock-<seq>",
// which Curator reads too), waiting for "-lock-" and Kazoo's "__lock__" nodes.
func (k *KazooHelper) CuratorNamedLock(ctx context.Context, handle, path string) error {
	return k.define(ctx, "curatorlock", handle, path, nil)
}

func (k *KazooHelper) define(ctx context.Context, verb, handle, path string, patterns []string) error {
	_, err := k.Do(ctx, KindOK, verb, append([]string{handle, path}, patterns...)...)
	return err
}

// Contenders returns Kazoo's contenders() for handle: the data of each
// contender's node (a Kazoo contender's identifier, the handle name), in the
// order Kazoo sees them.
func (k *KazooHelper) Contenders(ctx context.Context, handle string) ([]string, error) {
	e, err := k.Do(ctx, KindParticipants, "contenders", handle)
	if err != nil {
		return nil, err
	}
	if e.Field(1) == "-" {
		return nil, nil
	}
	return strings.Split(e.Field(1), ","), nil
}
