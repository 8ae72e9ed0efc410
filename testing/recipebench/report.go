package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// row is a measured bench, ready for its table.
type row struct {
	b   bench
	res results
}

// values returns the values of key in the samples that have it.
func values(samples []sample, key string) []float64 {
	var vs []float64
	for _, s := range samples {
		if v, ok := s[key]; ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// median returns the median of vs (NaN for none); it sorts vs.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// writeTable prints the Markdown table of rows of one recipe: per row the
// medians of every metric on both sides, and the ratio of the first and of
// those that ask for one.
func writeTable(w io.Writer, recipe string, rows []row, repeat int) {
	ms := rows[0].b.metrics
	head := []string{"configuration"}
	for i, m := range ms {
		head = append(head, "Curator "+m.header, "zkcurator "+m.header)
		if i == 0 || m.ratio {
			head = append(head, "ratio")
		}
	}
	fmt.Fprintf(w, "### %s\n\n", recipe)
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---:|", len(head)))
	for _, r := range rows {
		cells := []string{r.b.label}
		for i, m := range ms {
			c, o := median(values(r.res[implCurator], m.key)), median(values(r.res[implOurs], m.key))
			cells = append(cells, cell(m.format, c), cell(m.format, o))
			if i == 0 || m.ratio {
				cells = append(cells, cell("%.2f", o/c))
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	better := "lower"
	if ms[0].higher {
		better = "higher"
	}
	fmt.Fprintf(w, "\nMedians of %d runs; ratio = zkcurator / Curator (%s is better).\n\n", repeat, better)
	for _, r := range rows {
		if short := values(r.res[implCurator], shortKey); len(short) > 0 {
			fmt.Fprintf(w, "%s: Curator 5.4's CuratorCache did not load the whole tree (%s), so it has no figure: "+
				"it tracks its reads with a java.util.concurrent.Phaser, which takes at most 65,535 parties, and reports itself "+
				"initialized without the nodes whose reads it could not register (CURATOR-690, fixed in Curator 5.6.0).\n\n",
				r.b.label, shortHeld(short))
		}
		watchNote(w, r)
		writerNote(w, r)
	}
}

// writerNote says, for a burst row, how fast its writer alone went in each
// side's runs, which bounds that side's rate, and how long after the
// writer's last reply each side's consumer saw the last change.
func writerNote(w io.Writer, r row) {
	ours, theirs := values(r.res[implOurs], writerKey), values(r.res[implCurator], writerKey)
	if len(ours)+len(theirs) == 0 {
		return
	}
	fmt.Fprintf(w, "%s: the writer alone made %s writes/s in zkcurator's runs and %s in Curator's (medians), the most a cache can follow; "+
		"the last change reached zkcurator's consumer %s ms and Curator's %s ms after the writer's last reply.\n\n",
		r.b.label, cell("%.0f", median(ours)), cell("%.0f", median(theirs)),
		cell("%.0f", median(values(r.res[implOurs], lagKey))), cell("%.0f", median(values(r.res[implCurator], lagKey))))
}

// watchNote says, for a row whose zkcurator samples measured it, how much
// of the heap per node go-zookeeper's watches alone take.
func watchNote(w io.Writer, r row) {
	floor := values(r.res[implOurs], watchKey)
	if len(floor) == 0 {
		return
	}
	fmt.Fprintf(w, "%s: of zkcurator's bytes per node, %.0f are go-zookeeper's record of the data watch and the child watch "+
		"every cached node carries: a bare connection that sets the same two watches on every node of the same tree holds that "+
		"much, so no cache on one-shot watches holds less. Curator's CuratorCache, and ours unless made WithOneShotWatches, "+
		"set one persistent recursive watch on the root instead (ZooKeeper 3.6's addWatch) and keep no such record.\n\n",
		r.b.label, median(floor))
}

// shortHeld says how many nodes a short Curator cache held in its runs.
func shortHeld(held []float64) string {
	if held[0] < 0 {
		return "as its load showed"
	}
	return fmt.Sprintf("it held %.0f nodes when initialized", median(held))
}

func cell(format string, v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

// count is n and noun, in the plural unless n is 1 ("1 client", "8 clients",
// "0 retries").
func count(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
