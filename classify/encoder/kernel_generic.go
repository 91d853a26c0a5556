//go:build !amd64 || purego

package encoder

// kernel is the inner block of matmulT.
var kernel = kernelGo

// blockKernel is gemm's kernel.
var blockKernel = blockGo
