package protection

import (
	"errors"
	"fmt"
	"math"
)

// seqLen is the width of ZooKeeper's sequence suffix: String.format("%010d")
// of the parent's signed 32-bit child version.
const seqLen = 10

// ErrNoSequence is wrapped by every error from Sequence.
var ErrNoSequence = errors.New("protection: no sequence suffix")

// Sequence returns the number that ZooKeeper appended to a sequential node's
// name. ZooKeeper writes the parent's signed 32-bit counter with "%010d": ten
// digits ("0000000007") or, once the counter has wrapped below zero, a minus
// sign and nine digits ("-000000001"). Like Curator's
// ZKPaths.extractSequentialSuffix, Sequence reads the last ten characters.
// Counters from -1000000000 down take eleven characters and cannot be told
// from a positive counter after a name that ends in '-' ("lock-1000000000"),
// so they read as positive; the exception is -2147483648, whose digits lie
// beyond the positive range. Any other ending yields an error that wraps
// ErrNoSequence and quotes name.
func Sequence(name string) (int64, error) {
	if len(name) < seqLen {
		return 0, fmt.Errorf("%w: %q is shorter than %d characters", ErrNoSequence, name, seqLen)
	}
	suffix := name[len(name)-seqLen:]
	negative := suffix[0] == '-'
	digits := suffix
	if negative {
		digits = suffix[1:]
	}
	var v int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: %q does not end in ten digits or a minus sign and nine digits", ErrNoSequence, name)
		}
		v = v*10 + int64(c-'0')
	}
	switch {
	case negative && v == 0:
		return 0, fmt.Errorf("%w: %q ends in %q, which ZooKeeper never writes", ErrNoSequence, name, suffix)
	case negative:
		return -v, nil
	case v <= math.MaxInt32:
		return v, nil
	case v == -math.MinInt32 && len(name) > seqLen && name[len(name)-seqLen-1] == '-':
		return math.MinInt32, nil
	default:
		return 0, fmt.Errorf("%w: %q ends in %q, outside the 32-bit range of ZooKeeper's counter", ErrNoSequence, name, suffix)
	}
}
