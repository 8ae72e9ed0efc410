package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/zkcurator/zkcurator/framework"
)

// The two sides of every comparison.
const (
	implCurator = "curator"   // Apache Curator 5.4, in the helper JVM
	implOurs    = "zkcurator" // this repository's recipes, in this process
)

// bench is one configuration of one recipe, measured on both sides.
type bench struct {
	recipe  string   // the table it belongs to
	label   string   // its row in that table
	slug    string   // names its ZooKeeper paths
	metrics []metric // the first is the table's claim: its ratio is printed
	run     func(ctx context.Context, e *env, impl, path string) (sample, error)
}

// metric is one measured quantity of a bench.
type metric struct {
	key    string // in a sample
	header string // in the table, after "Curator " or "zkcurator "
	format string // for fmt
	higher bool   // whether a higher value is better
	ratio  bool   // the table prints its ratio too (the first metric's always)
}

// sample is one run's values, by metric key.
type sample map[string]float64

// env is what every run gets: the server, the Curator helper and the
// settings shared by both sides.
type env struct {
	connect        string
	root           string // this process's paths are below it
	curator        *curator
	client         *framework.Client // for checks and set-up, never timed
	sessionTimeout time.Duration
	log            io.Writer
	memProfile     string // where loadOurs writes the heap profile, if set
}

// results are the samples of one bench, per side.
type results map[string][]sample

// runLimit bounds every run, its set-up and clean-up included.
const runLimit = 5 * time.Minute

// measure runs b on both sides: warmup discarded rounds (the JVMs of the
// server and of Curator warm up), then repeat rounds; the sides alternate
// going first, so that neither always runs on the warmer server.
func measure(ctx context.Context, e *env, b bench, warmup, repeat int) (results, error) {
	res := results{}
	for round := 1 - warmup; round <= repeat; round++ {
		order := []string{implCurator, implOurs}
		if round%2 == 0 {
			order = []string{implOurs, implCurator}
		}
		for _, impl := range order {
			path := fmt.Sprintf("%s/%s/%s-r%d", e.root, b.slug, impl, round)
			runCtx, cancel := context.WithTimeout(ctx, runLimit)
			s, err := b.run(runCtx, e, impl, path)
			cancel()
			if err != nil {
				return nil, fmt.Errorf("%s, %s, %s: %w", b.recipe, b.label, impl, err)
			}
			fmt.Fprintf(e.log, "%s %s %s round %d: %v\n", b.recipe, b.label, impl, round, s)
			if round > 0 {
				res[impl] = append(res[impl], s)
			}
		}
	}
	return res, nil
}
