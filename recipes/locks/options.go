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

func newMutexConfig(opts []MutexOption) mutexConfig {
	cfg := mutexConfig{driver: StandardLockInternalsDriver{}}
	for _, opt := range opts {
		opt(&cfg)
	}
	return cfg
}
