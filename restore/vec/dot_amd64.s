//go:build amd64 && !purego

#include "textflag.h"

// func dot4Kernel(q *float32, rows *[4]*float32, n int, sums *[4][8]float32)
//
// Four AVX accumulators, one per row, each of Dot's eight sums in a lane:
// a multiply and then an add (VMULPS, VADDPS, not a fused multiply-add),
// as Dot rounds them, so that the sums are Dot's to the bit.
TEXT ·dot4Kernel(SB), NOSPLIT, $0-32
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), BX
	MOVQ 0(BX), R8
	MOVQ 8(BX), R9
	MOVQ 16(BX), R10
	MOVQ 24(BX), R11
	MOVQ n+16(FP), CX
	MOVQ sums+24(FP), DX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX
	TESTQ CX, CX
	JZ   done

loop:
	VMOVUPS (SI)(AX*1), Y4
	VMULPS  (R8)(AX*1), Y4, Y5
	VMULPS  (R9)(AX*1), Y4, Y6
	VMULPS  (R10)(AX*1), Y4, Y7
	VMULPS  (R11)(AX*1), Y4, Y8
	VADDPS  Y5, Y0, Y0
	VADDPS  Y6, Y1, Y1
	VADDPS  Y7, Y2, Y2
	VADDPS  Y8, Y3, Y3
	ADDQ $32, AX
	DECQ CX
	JNZ  loop

done:
	VMOVUPS Y0, 0(DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	VZEROUPPER
	RET
