//go:build !amd64 || purego

package vec

// dot4 is DotEach's kernel: none, Dot row by row.
var dot4 func(q *float32, rows *[4]*float32, n int, sums *[4][8]float32)

// dot4Int8 is DotInt8Each's kernel: none, dotInt8 row by row.
var dot4Int8 func(q *float32, rows *[4]*byte, n int, sums *[4][8]float32)
