//go:build !unix

package main

import (
	"os"
	"runtime"
)

// peakRSSMB is, where the system does not say, the most memory the Go
// runtime has taken from it.
func peakRSSMB() float64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.Sys) / (1 << 20)
}

// childPeakRSSMB is 0 where the system does not say.
func childPeakRSSMB(*os.ProcessState) float64 { return 0 }
