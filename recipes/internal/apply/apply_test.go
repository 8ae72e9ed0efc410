package apply

import (
	"errors"
	"strings"
	"testing"
)

type config struct{ a, b int }
type option func(*config)

var errInvalid = errors.New("x: invalid argument")

func TestOptionsRunsOptionsInOrder(t *testing.T) {
	var cfg config
	opts := []option{func(c *config) { c.a = 1 }, func(c *config) { c.b = c.a + 1 }}
	if err := Options(&cfg, opts, errInvalid, "the thing"); err != nil {
		t.Fatal(err)
	}
	if cfg != (config{1, 2}) {
		t.Fatalf("cfg = %+v, want {1 2}", cfg)
	}
}

func TestOptionsRefusesNilByPosition(t *testing.T) {
	var cfg config
	opts := []option{func(c *config) { c.a = 1 }, nil}
	err := Options(&cfg, opts, errInvalid, `the lock at "/x"`)
	if !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), `option 1 of the lock at "/x" is nil`) {
		t.Fatalf("err = %v, want ErrInvalidArgument naming option 1", err)
	}
}
