package protection_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/zkcurator/zkcurator/protection"
)

// zkSuffix is the suffix ZooKeeper's PrepRequestProcessor appends:
// String.format(Locale.ENGLISH, "%010d", cversion) of a Java int.
func zkSuffix(v int32) string {
	return fmt.Sprintf("%010d", v)
}

func TestSequenceReadsZooKeepersSuffix(t *testing.T) {
	// Every value whose %010d form has ten characters, and -2147483648.
	values := []int32{0, 1, 7, 9, 10, 12, 999999999, 1000000000, math.MaxInt32, -1, -9, -10, -999999999, math.MinInt32}
	for i := 0; i < 2000; i++ {
		values = append(values, rand.Int32(), -rand.Int32N(999999999)-1)
	}
	id := protection.NewID()
	for _, v := range values {
		for _, base := range []string{"", "lock-", "__READ__", "n", protection.Name(id, "lease-")} {
			name := base + zkSuffix(v)
			got, err := protection.Sequence(name)
			if err != nil || got != int64(v) {
				t.Fatalf("Sequence(%q) = %d, %v; want %d", name, got, err, v)
			}
		}
	}
}

func TestSequenceSuffixFormat(t *testing.T) {
	// The wrapped counter is written with a sign inside the ten characters.
	for v, want := range map[int32]string{-1: "-000000001", math.MinInt32: "-2147483648", 7: "0000000007"} {
		if got := zkSuffix(v); got != want {
			t.Fatalf("%%010d of %d = %q, want ZooKeeper's %q", v, got, want)
		}
	}
}

func TestSequenceErrors(t *testing.T) {
	for _, name := range []string{
		"",
		"lock-",
		"000000001", // nine characters
		"lock-00000000x1",
		"lock-000000001 ",
		"lock-+000000001",
		"lock--000000000", // ZooKeeper writes zero as 0000000000
		"lock-2147483649",
		"9999999999",
		"2147483648", // only valid after a minus sign
		"lock-\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff10\uff17",
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-",
	} {
		got, err := protection.Sequence(name)
		if err == nil {
			t.Errorf("Sequence(%q) = %d, nil; want an error", name, got)
			continue
		}
		if !errors.Is(err, protection.ErrNoSequence) {
			t.Errorf("Sequence(%q) error %v does not wrap ErrNoSequence", name, err)
		}
		if !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("Sequence(%q) error %q does not name the input", name, err)
		}
		if got != 0 {
			t.Errorf("Sequence(%q) = %d with an error, want 0", name, got)
		}
	}
}

func TestSequenceElevenCharacterNegativesReadAsCuratorDoes(t *testing.T) {
	// "%010d" of -1000000000 down to -2147483647 takes eleven characters.
	// Curator's extractSequentialSuffix keeps the last ten, and so does Sequence:
	// "lock--1000000000" cannot be told from "lock-" + "-" + 1000000000.
	for _, v := range []int32{-1000000000, -1234567890, math.MinInt32 + 1} {
		name := "lock-" + zkSuffix(v)
		if got, err := protection.Sequence(name); err != nil || got != -int64(v) {
			t.Errorf("Sequence(%q) = %d, %v; want %d (the last ten characters)", name, got, err, -int64(v))
		}
	}
}

func TestSequenceMinInt32WithoutSeparator(t *testing.T) {
	// "lock" + "-2147483648": the minus sign is the eleventh character from the end.
	if got, err := protection.Sequence("lock-2147483648"); err != nil || got != math.MinInt32 {
		t.Errorf("Sequence(\"lock-2147483648\") = %d, %v; want %d", got, err, math.MinInt32)
	}
}
