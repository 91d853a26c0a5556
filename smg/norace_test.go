//go:build !race

package smg_test

const raceEnabled = false
