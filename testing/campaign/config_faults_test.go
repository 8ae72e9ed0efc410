package campaign

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestConfigFaultsDefaultAndRefusals(t *testing.T) {
	cfg, err := Config{Duration: time.Second, Kind: Semaphore}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(cfg.Faults, PauseClientProcess) || !slices.Contains(cfg.Faults, PartitionBridge) {
		t.Errorf("semaphore campaign's default faults %v: want every kind but the frozen client process", cfg.Faults)
	}
	for _, k := range []LockKind{MutexLock, TTLMutexLock, ReadWriteLock, ElectionLatch, ElectionSelector, Counter} {
		if cfg, err := (Config{Duration: time.Second, Kind: k}).withDefaults(); err != nil || !slices.Contains(cfg.Faults, PauseClientProcess) {
			t.Errorf("%s campaign's default faults %v, %v: want the frozen client process among them", k, cfg.Faults, err)
		}
	}
	cfg, err = Config{Duration: time.Second, Kind: MutexLock}.withDefaults()
	if err != nil || len(cfg.Faults) != numFaultKinds {
		t.Errorf("mutex campaign's default faults %v, %v: want all %d kinds", cfg.Faults, err, numFaultKinds)
	}
	_, err = Config{Duration: time.Second, Kind: Semaphore, Faults: []FaultKind{PauseClientProcess}}.withDefaults()
	if !errors.Is(err, errNoContenders) || !strings.Contains(err.Error(), "semaphore") {
		t.Errorf("a frozen client process in the semaphore campaign: err = %v; want errNoContenders naming the lock", err)
	}
	_, err = Config{Duration: time.Second, Faults: []FaultKind{numFaultKinds}}.withDefaults()
	if err == nil || !strings.Contains(err.Error(), "fault kind 11") {
		t.Errorf("an unknown fault kind: err = %v; want one naming it", err)
	}
}
