// Package apply applies a recipe's functional options, the one loop every
// recipe constructor runs: in order, over a private config, refusing a nil
// option by its position before it can panic.
package apply

import "fmt"

// Options runs each option over cfg in order. A nil option stops it with an
// error that wraps invalid (the package's ErrInvalidArgument) and names the
// option's position and what (the recipe being built).
func Options[C any, O ~func(*C)](cfg *C, opts []O, invalid error, what string) error {
	for i, o := range opts {
		if o == nil {
			return fmt.Errorf("%w: option %d of %s is nil", invalid, i, what)
		}
		o(cfg)
	}
	return nil
}
