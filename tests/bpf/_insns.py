"""A tiny BPF instruction assembler for kernel tests.

Each function returns the bytes of one ``struct bpf_insn`` (two for ``ld_map_fd``):
``u8 code; u8 dst_reg:4, src_reg:4; s16 off; s32 imm`` little-endian
(include/uapi/linux/bpf.h, Documentation/bpf/standardization/instruction-set.rst).
"""

from __future__ import annotations

import struct

_INSN = struct.Struct("<BBhi")

# helper ids, enum bpf_func_id (include/uapi/linux/bpf.h)
FUNC_MAP_LOOKUP_ELEM = 1
FUNC_RINGBUF_OUTPUT = 130
FUNC_RINGBUF_RESERVE = 131
FUNC_RINGBUF_SUBMIT = 132
FUNC_RINGBUF_DISCARD = 133

R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10 = range(11)


def insn(code: int, dst: int = 0, src: int = 0, off: int = 0, imm: int = 0) -> bytes:
    return _INSN.pack(code, (src << 4) | dst, off, imm)


def mov64_reg(dst: int, src: int) -> bytes:      # dst = src
    return insn(0xBF, dst, src)


def mov64_imm(dst: int, imm: int) -> bytes:      # dst = imm (sign-extended)
    return insn(0xB7, dst, imm=imm)


def add64_imm(dst: int, imm: int) -> bytes:      # dst += imm
    return insn(0x07, dst, imm=imm)


def and64_imm(dst: int, imm: int) -> bytes:      # dst &= imm
    return insn(0x57, dst, imm=imm)


def stx_dw(dst: int, off: int, src: int) -> bytes:  # *(u64 *)(dst + off) = src
    return insn(0x7B, dst, src, off)


def st_w(dst: int, off: int, imm: int) -> bytes:    # *(u32 *)(dst + off) = imm
    return insn(0x62, dst, off=off, imm=imm)


def st_dw(dst: int, off: int, imm: int) -> bytes:   # *(u64 *)(dst + off) = imm
    return insn(0x7A, dst, off=off, imm=imm)


def ldx_dw(dst: int, src: int, off: int) -> bytes:  # dst = *(u64 *)(src + off)
    return insn(0x79, dst, src, off)


def jeq_imm(dst: int, imm: int, off: int) -> bytes:  # if dst == imm goto pc + 1 + off
    return insn(0x15, dst, off=off, imm=imm)


def jne_imm(dst: int, imm: int, off: int) -> bytes:  # if dst != imm goto pc + 1 + off
    return insn(0x55, dst, off=off, imm=imm)


def ja(off: int) -> bytes:                           # goto pc + 1 + off
    return insn(0x05, off=off)


def call(func_id: int) -> bytes:
    return insn(0x85, imm=func_id)


def exit_() -> bytes:
    return insn(0x95)


def ld_map_fd(dst: int, map_fd: int) -> bytes:       # dst = map (BPF_LD_IMM64, BPF_PSEUDO_MAP_FD)
    return insn(0x18, dst, 1, imm=map_fd) + insn(0)


def n_insns(*parts: bytes) -> int:
    """Instruction count of assembled parts (jump offsets are in instructions)."""
    return sum(len(p) for p in parts) // 8


def ringbuf_output_prog(counter_fd: int, ringbuf_fd: int) -> bytes:
    """A prog that bumps counter[0] and bpf_ringbuf_output()s a 16-byte record.

    Record: ``u64 seq`` (the counter after the bump, 1, 2, ...), ``u64 0x5eed``.
    Returns 0. Usable as SOCKET_FILTER (prog_test_run with data_in and repeat).
    """
    head = (
        st_w(R10, -4, 0)                       # key = 0
        + mov64_reg(R2, R10) + add64_imm(R2, -4)
        + ld_map_fd(R1, counter_fd)
        + call(FUNC_MAP_LOOKUP_ELEM)
    )
    body = (
        ldx_dw(R7, R0, 0) + add64_imm(R7, 1) + stx_dw(R0, 0, R7)   # r7 = ++*value
        + stx_dw(R10, -24, R7) + st_dw(R10, -16, 0x5EED)            # buf = {seq, 0x5eed}
        + ld_map_fd(R1, ringbuf_fd)
        + mov64_reg(R2, R10) + add64_imm(R2, -24)
        + mov64_imm(R3, 16) + mov64_imm(R4, 0)
        + call(FUNC_RINGBUF_OUTPUT)
    )
    tail = mov64_imm(R0, 0) + exit_()
    return head + jeq_imm(R0, 0, n_insns(body)) + body + tail


def ringbuf_reserve_prog(counter_fd: int, ringbuf_fd: int) -> bytes:
    """A prog that reserves a 16-byte record ``{seq, seq}`` and discards it when seq is odd.

    So the consumer must see exactly the even seqs: 2, 4, 6, ...
    """
    head = (
        st_w(R10, -4, 0)
        + mov64_reg(R2, R10) + add64_imm(R2, -4)
        + ld_map_fd(R1, counter_fd)
        + call(FUNC_MAP_LOOKUP_ELEM)
    )
    discard = call(FUNC_RINGBUF_DISCARD)
    submit = call(FUNC_RINGBUF_SUBMIT) + ja(n_insns(discard))
    after_reserve = (
        stx_dw(R0, 0, R7) + stx_dw(R0, 8, R7)
        + mov64_reg(R1, R0) + mov64_imm(R2, 0)
        + mov64_reg(R8, R7) + and64_imm(R8, 1)
        + jne_imm(R8, 0, n_insns(submit))
        + submit + discard
    )
    body = (
        ldx_dw(R7, R0, 0) + add64_imm(R7, 1) + stx_dw(R0, 0, R7)
        + ld_map_fd(R1, ringbuf_fd) + mov64_imm(R2, 16) + mov64_imm(R3, 0)
        + call(FUNC_RINGBUF_RESERVE)
        + jeq_imm(R0, 0, n_insns(after_reserve))
        + after_reserve
    )
    tail = mov64_imm(R0, 0) + exit_()
    return head + jeq_imm(R0, 0, n_insns(body)) + body + tail
