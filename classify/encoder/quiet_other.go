//go:build !linux

package encoder

// lowerThreadPriority does nothing where a thread's priority is not set.
func lowerThreadPriority() {}
