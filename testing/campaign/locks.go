package campaign

import "fmt"

// built returns a lock that the campaign built on its own paths, which are
// valid: a constructor's refusal is a bug of the campaign.
func built[T any](lock T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("campaign: build a lock: %v", err))
	}
	return lock
}
