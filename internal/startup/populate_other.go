//go:build !linux

package startup

func populate(addr, n uintptr) {}
