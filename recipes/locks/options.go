package locks

// MutexOption configures an InterProcessMutex or InterProcessReadWriteLock.
type MutexOption func(*mutexConfig)

type mutexConfig struct {
	driver LockInternalsDriver
	data   []byte
	recipe string // the recipe label of its metrics; "" reports none
}

// WithDriver replaces the StandardLockInternalsDriver, for example with an
// UnfairLockInternalsDriver or a driver of your own.
func WithDriver(d LockInternalsDriver) MutexOption {
	return func(c *mutexConfig) { c.driver = d }
}

// WithLockData sets the data stored in this contender's lock node (empty by
// default), for example to tell other processes who holds or waits.
func WithLockData(data []byte) MutexOption {
	return func(c *mutexConfig) { c.data = append([]byte(nil), data...) }
}

// newMutexConfig runs opts over the default config of what (say, "mutex
// \"/a\""); a nil option is reported, matching ErrInvalidArgument.
func newMutexConfig(what string, opts []MutexOption) (mutexConfig, error) {
	cfg := mutexConfig{driver: StandardLockInternalsDriver{}}
	for i, opt := range opts {
		if opt == nil {
			return cfg, nilOption(what, i, len(opts))
		}
		opt(&cfg)
	}
	return cfg, nil
}

// nilOption reports that option i of n given for what is nil.
func nilOption(what string, i, n int) error {
	return errorf("%w: %s: option %d of %d is nil", ErrInvalidArgument, what, i, n)
}
