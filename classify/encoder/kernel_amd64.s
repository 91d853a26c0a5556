//go:build amd64 && !purego

#include "textflag.h"

// func dot4x2(x0, x1, x2, x3, w0, w1 *float32, n int, out *[8]float32)
//
// out = {x0·w0, x0·w1, x1·w0, x1·w1, x2·w0, x2·w1, x3·w0, x3·w1} over n
// floats, n a multiple of 8: eight AVX2 accumulators, one FMA chain each.
TEXT ·dot4x2(SB), NOSPLIT, $0-64
	MOVQ x0+0(FP), SI
	MOVQ x1+8(FP), DI
	MOVQ x2+16(FP), R8
	MOVQ x3+24(FP), R9
	MOVQ w0+32(FP), R10
	MOVQ w1+40(FP), R11
	MOVQ n+48(FP), CX
	MOVQ out+56(FP), DX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	SHLQ $2, CX
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPS (R10)(AX*1), Y8
	VMOVUPS (R11)(AX*1), Y9
	VMOVUPS (SI)(AX*1), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VMOVUPS (DI)(AX*1), Y11
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VMOVUPS (R8)(AX*1), Y12
	VFMADD231PS Y8, Y12, Y4
	VFMADD231PS Y9, Y12, Y5
	VMOVUPS (R9)(AX*1), Y13
	VFMADD231PS Y8, Y13, Y6
	VFMADD231PS Y9, Y13, Y7
	ADDQ $32, AX
	JMP  loop

done:
#define HSUM(Y, X, off) \
	VEXTRACTF128 $1, Y, X14; \
	VADDPS X14, X, X; \
	VHADDPS X, X, X; \
	VHADDPS X, X, X; \
	VMOVSS X, off(DX)

	HSUM(Y0, X0, 0)
	HSUM(Y1, X1, 4)
	HSUM(Y2, X2, 8)
	HSUM(Y3, X3, 12)
	HSUM(Y4, X4, 16)
	HSUM(Y5, X5, 20)
	HSUM(Y6, X6, 24)
	HSUM(Y7, X7, 28)
	VZEROUPPER
	RET
