package interop

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(goHolderEnv); spec != "" {
		os.Exit(runGoHolder(spec))
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if err := RemoveBuild(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
		os.Exit(code)
	}))
}
