//go:build !amd64 || purego

package encoder

// blockKernel is gemm's kernel.
var blockKernel = blockGo
