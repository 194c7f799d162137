//go:build !linux

package prefault

func populate(addr, n uintptr) {}

func upto(addr, n uintptr) {}
