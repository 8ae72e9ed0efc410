package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startCPUProfile profiles this process (zkcurator's side and the writer of
// the bursts; Curator runs in its own JVM) into path until the returned
// function is called. An empty path profiles nothing.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile %s: %w", path, err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// sampleEveryAllocation makes the heap profile record every allocation, not
// one per 512 KiB, so that a cache's few hundred bytes per node show where
// they go; for -memprofile runs only, it slows allocation down.
func sampleEveryAllocation() { runtime.MemProfileRate = 1 }

// writeHeapProfile writes the heap profile to path (when not empty), as
// loadOurs calls it with a loaded cache alive: the last load's wins.
func writeHeapProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("-memprofile: %w", err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		return fmt.Errorf("-memprofile %s: %w", path, err)
	}
	return nil
}
