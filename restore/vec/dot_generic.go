//go:build !amd64 || purego

package vec

// dot4 is DotEach's kernel: none, Dot row by row.
var dot4 func(q *float32, rows *[4]*float32, n int, sums *[4][8]float32)
