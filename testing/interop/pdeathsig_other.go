//go:build !linux

package interop

import "syscall"

// dieWithParent has no kernel support outside Linux; the helper still halts when
// its stdin closes.
func dieWithParent() *syscall.SysProcAttr { return nil }
