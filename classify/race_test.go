//go:build race

package classify

// raceEnabled: under the race detector the regular expressions run
// several times slower; the tests that walk every turn of the bench data
// take a sample of it.
const raceEnabled = true
