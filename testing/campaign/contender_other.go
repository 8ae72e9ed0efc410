//go:build !linux

package campaign

import "syscall"

// dieWithCampaign has no kernel support outside Linux: a contender stopped
// when the campaign's process dies stays stopped until killed.
func dieWithCampaign() *syscall.SysProcAttr { return nil }
