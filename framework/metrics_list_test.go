package framework_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/framework"

	// Every package of the module that registers metrics, so that
	// MetricDescs lists them all here.
	_ "github.com/zkcurator/zkcurator/recipes/atomic"
	_ "github.com/zkcurator/zkcurator/recipes/cache"
	_ "github.com/zkcurator/zkcurator/recipes/leader"
	_ "github.com/zkcurator/zkcurator/recipes/locks"
	_ "github.com/zkcurator/zkcurator/recipes/shared"
)

// metricConst is a constant naming a metric, declared in a package of the
// module.
type metricConst struct {
	dir, name string
}

// Every metric MetricDescs lists is reported by the code: its name's
// constant is used, outside the list, by the package that declares it, in
// a file that is not a test. And every such constant of the module is
// listed, so a package whose metrics this test does not import, or that
// does not register them, fails here. (That every metric reported is
// listed is checked where it is reported: metricstest.Recorder refuses a
// name, kind or labels the list does not give.)
func TestEveryListedMetricIsReported(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]metricConst{} // metric name -> its constant
	used := map[metricConst]bool{}       // identifiers used by each package, outside metric lists
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || fileExists(filepath.Join(path, "go.mod"))):
			return filepath.SkipDir // another module: the adapters report every metric alike
		case d.IsDir(), !strings.HasSuffix(path, ".go"), strings.HasSuffix(path, "_test.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		var visit func(ast.Node) bool
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec: // its names are declared, not used
				for i, name := range n.Names {
					if i < len(n.Values) {
						if v, ok := metricName(n.Values[i]); ok {
							declared[v] = metricConst{dir, name.Name}
						}
					}
				}
				for _, v := range n.Values {
					ast.Inspect(v, visit)
				}
				return false
			case *ast.CompositeLit: // a metric list names metrics without reporting them
				return !strings.Contains(types.ExprString(n.Type), "MetricDesc")
			case *ast.Ident:
				used[metricConst{dir, n.Name}] = true
			}
			return true
		}
		ast.Inspect(f, visit)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	listed := map[string]bool{}
	for _, d := range framework.MetricDescs() {
		listed[d.Name] = true
		c, ok := declared[d.Name]
		switch {
		case !ok:
			t.Errorf("%s is listed without a constant declaring it", d.Name)
		case !used[c]:
			t.Errorf("%s (%s.%s) is listed but its package never reports it", d.Name, c.dir, c.name)
		}
	}
	for name, c := range declared {
		if !listed[name] {
			t.Errorf("%s (%s.%s) is declared but not listed: register it, and import its package in this test", name, c.dir, c.name)
		}
	}
}

// metricName returns the value of a string literal that names a zkcurator
// metric.
func metricName(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(lit.Value)
	return v, err == nil && strings.HasPrefix(v, "zkcurator_")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// RegisterMetrics refuses, as the program starts, a metric listed already
// and a desc it could not report, naming the metric.
func TestRegisterMetricsRefusesDuplicatesAndIncompleteDescs(t *testing.T) {
	before := len(framework.MetricDescs())
	for _, d := range []framework.MetricDesc{
		{Name: framework.MetricRetries, Kind: framework.CounterKind, Help: "again"},
		{Name: "zkcurator_lock_lost_total", Kind: framework.CounterKind, Labels: []string{"recipe"}, Help: "again"},
		{Name: "zkcurator_test_kindless", Help: "no kind"},
		{Name: "zkcurator_test_helpless", Kind: framework.GaugeKind},
	} {
		func() {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, d.Name) {
					t.Errorf("RegisterMetrics(%q): panic %q, want one naming the metric", d.Name, msg)
				}
			}()
			framework.RegisterMetrics(d)
		}()
	}
	if n := len(framework.MetricDescs()); n != before {
		t.Errorf("MetricDescs lists %d metrics after the refusals, want %d as before", n, before)
	}
}
