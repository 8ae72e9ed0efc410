package main

import (
	"os"
	"syscall"
	"unsafe"
)

// interactive reports whether stdin is a terminal.
func interactive() bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, os.Stdin.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
