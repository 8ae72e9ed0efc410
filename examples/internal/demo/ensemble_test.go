package demo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// TestMainErrUsesZKConnect checks that a program uses the ensemble named in
// ZK_CONNECT (TestMain sets it) and passes on the demo's failure, which
// Main turns into exit status 1.
func TestMainErrUsesZKConnect(t *testing.T) {
	want := os.Getenv(EnvConnect)
	if want == "" {
		t.Fatal("TestMain did not set ZK_CONNECT")
	}
	var out bytes.Buffer
	var got string
	failure := errors.New("promise broken")
	err := mainErr(context.Background(), &out, func(_ context.Context, connect string, _ io.Writer) error {
		got = connect
		return failure
	})
	if !errors.Is(err, failure) {
		t.Errorf("mainErr = %v, want the demo's error", err)
	}
	if got != want || !strings.Contains(out.String(), want) {
		t.Errorf("demo got %q and the program said %q, want %q in both", got, out.String(), want)
	}
}
