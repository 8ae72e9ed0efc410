package interop

// built returns the lock that a constructor built, and panics when it
// refused: the tests build their locks of valid input.
func built[T any](lock T, err error) T {
	if err != nil {
		panic(err)
	}
	return lock
}
