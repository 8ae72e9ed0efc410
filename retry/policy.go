package retry

import (
	"errors"
	"fmt"
	"reflect"
	"time"
)

// Policy decides whether a failed operation may be tried again.
// Implementations must be safe for concurrent use.
type Policy interface {
	// AllowRetry reports whether another attempt may follow retryCount failed
	// retries (0 before the first retry) that took elapsed so far, and how long to sleep first.
	AllowRetry(retryCount int, elapsed time.Duration) (sleep time.Duration, ok bool)
}

// ErrInvalidPolicy is wrapped by every error that Validate returns.
var ErrInvalidPolicy = errors.New("retry: invalid policy")

// Validate reports whether p can be used: it rejects a nil policy (including a
// typed nil pointer) and returns the result of p's own Validate method when p
// has one. Policies without such a method are accepted as they are.
func Validate(p Policy) error {
	if isNil(p) {
		if p == nil {
			return fmt.Errorf("%w: policy is nil", ErrInvalidPolicy)
		}
		return fmt.Errorf("%w: policy is a nil %T", ErrInvalidPolicy, p)
	}
	if v, ok := p.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// isNil reports whether p is nil or holds a nil pointer, func, map, chan or slice.
func isNil(p Policy) bool {
	if p == nil {
		return true
	}
	v := reflect.ValueOf(p)
	switch v.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Map, reflect.Chan, reflect.Slice, reflect.Interface:
		return v.IsNil()
	default:
		return false
	}
}

// invalid builds a validation error naming the field and its value.
func invalid(field string, value any, rule string) error {
	return fmt.Errorf("%w: %s is %v, %s", ErrInvalidPolicy, field, value, rule)
}
