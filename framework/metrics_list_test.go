package framework_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/framework"
)

// Every metric MetricDescs lists is reported by the code: its name's
// constant is used outside the list, in a file of the module that is not a
// test. (That every metric reported is listed is checked where it is
// reported: metricstest.Recorder refuses a name, kind or labels the list
// does not give.)
func TestEveryListedMetricIsReported(t *testing.T) {
	fset := token.NewFileSet()
	list, err := parser.ParseFile(fset, "metrics_list.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	constants := map[string]string{} // metric name -> its constant
	ast.Inspect(list, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Values) == len(vs.Names) {
			for i, name := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					constants[v] = name.Name
				}
			}
		}
		return true
	})

	used := map[string]bool{}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || fileExists(filepath.Join(path, "go.mod"))):
			return filepath.SkipDir // another module: the adapters report every metric alike
		case d.IsDir(), !strings.HasSuffix(path, ".go"), strings.HasSuffix(path, "_test.go"),
			path == filepath.Join(root, "framework", "metrics_list.go"):
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				used[id.Name] = true
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	descs := framework.MetricDescs()
	if len(descs) != len(constants) {
		t.Errorf("metrics_list.go declares %d metric names, MetricDescs lists %d", len(constants), len(descs))
	}
	for _, d := range descs {
		c, ok := constants[d.Name]
		switch {
		case !ok:
			t.Errorf("%s is listed without a constant in metrics_list.go", d.Name)
		case !used[c]:
			t.Errorf("%s (%s) is listed but no code of the module reports it", d.Name, c)
		}
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
