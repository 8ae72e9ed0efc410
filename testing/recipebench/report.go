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

// median returns the median of key over the samples (NaN for none).
func median(samples []sample, key string) float64 {
	var vs []float64
	for _, s := range samples {
		if v, ok := s[key]; ok {
			vs = append(vs, v)
		}
	}
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
// medians of every metric on both sides, and the ratio of the first.
func writeTable(w io.Writer, recipe string, rows []row, repeat int) {
	ms := rows[0].b.metrics
	head := []string{"configuration"}
	for i, m := range ms {
		head = append(head, "Curator "+m.header, "zkcurator "+m.header)
		if i == 0 {
			head = append(head, "ratio")
		}
	}
	fmt.Fprintf(w, "### %s\n\n", recipe)
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---:|", len(head)))
	for _, r := range rows {
		cells := []string{r.b.label}
		for i, m := range ms {
			c, o := median(r.res[implCurator], m.key), median(r.res[implOurs], m.key)
			cells = append(cells, cell(m.format, c), cell(m.format, o))
			if i == 0 {
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
}

func cell(format string, v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf(format, v)
}
