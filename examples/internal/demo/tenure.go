package demo

import (
	"slices"
	"time"
)

// Tenure is one stretch of a participant's leadership as a demo saw it.
type Tenure struct {
	Who        string
	Token      int64 // the term's fencing token; 0 when it never led
	Start, End time.Time
}

// CheckTenures expects on v that the tenures never overlap, that their
// tokens grow in the order they began, and that there were at least two (a
// takeover was seen). Tenures with no token are ignored.
func CheckTenures(v *Verdict, tenures []Tenure) {
	var led []Tenure
	for _, t := range tenures {
		if t.Token != 0 {
			led = append(led, t)
		}
	}
	for i, a := range led {
		for _, b := range led[i+1:] {
			if a.Start.Before(b.End) && b.Start.Before(a.End) {
				v.Expect(false, "%s and %s led at once", a.Who, b.Who)
			}
		}
	}
	ordered := slices.Clone(led)
	slices.SortFunc(ordered, func(a, b Tenure) int { return a.Start.Compare(b.Start) })
	for i := 1; i < len(ordered); i++ {
		v.Expect(ordered[i].Token > ordered[i-1].Token, "token %d of %s is not above %d of %s",
			ordered[i].Token, ordered[i].Who, ordered[i-1].Token, ordered[i-1].Who)
	}
	v.Expect(len(led) >= 2, "only %d terms: no takeover was seen", len(led))
}
