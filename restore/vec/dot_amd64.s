//go:build amd64 && !purego

#include "textflag.h"

// START loads the arguments of a kernel (q in SI, the four rows in R8–R11,
// n in CX, sums in DX), zeroes the four accumulators Y0–Y3 and the offset
// AX.
#define START \
	MOVQ q+0(FP), SI \
	MOVQ rows+8(FP), BX \
	MOVQ 0(BX), R8 \
	MOVQ 8(BX), R9 \
	MOVQ 16(BX), R10 \
	MOVQ 24(BX), R11 \
	MOVQ n+16(FP), CX \
	MOVQ sums+24(FP), DX \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	XORQ AX, AX

// FINISH stores the four accumulators into sums and returns.
#define FINISH \
	VMOVUPS Y0, 0(DX) \
	VMOVUPS Y1, 32(DX) \
	VMOVUPS Y2, 64(DX) \
	VMOVUPS Y3, 96(DX) \
	VZEROUPPER \
	RET

// func dot4Kernel(q *float32, rows *[4]*float32, n int, sums *[4][8]float32)
//
// Four AVX accumulators, one per row, each of Dot's eight sums in a lane:
// a multiply and then an add (VMULPS, VADDPS, not a fused multiply-add),
// as Dot rounds them, so that the sums are Dot's to the bit.
TEXT ·dot4Kernel(SB), NOSPLIT, $0-32
	START
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
	FINISH

// func dot4Int8Kernel(q *float32, rows *[4]*byte, n int, sums *[4][8]float32)
//
// Four AVX2 accumulators, one per row: eight signed bytes of a row widened
// to int32 (VPMOVSXBD), made float32 (VCVTDQ2PS, exact) and multiplied by
// eight values of q and added in one rounding (VFMADD231PS).
TEXT ·dot4Int8Kernel(SB), NOSPLIT, $0-32
	START
	TESTQ CX, CX
	JZ   done8

loop8:
	VMOVUPS     (SI)(AX*4), Y4
	VPMOVSXBD   (R8)(AX*1), Y5
	VPMOVSXBD   (R9)(AX*1), Y6
	VPMOVSXBD   (R10)(AX*1), Y7
	VPMOVSXBD   (R11)(AX*1), Y8
	VCVTDQ2PS   Y5, Y5
	VCVTDQ2PS   Y6, Y6
	VCVTDQ2PS   Y7, Y7
	VCVTDQ2PS   Y8, Y8
	VFMADD231PS Y4, Y5, Y0
	VFMADD231PS Y4, Y6, Y1
	VFMADD231PS Y4, Y7, Y2
	VFMADD231PS Y4, Y8, Y3
	ADDQ $8, AX
	DECQ CX
	JNZ  loop8

done8:
	FINISH
