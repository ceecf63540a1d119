"""The I/O and socket decoders (tracekit/decode/structs_io.py, structs_net.py) on packed
bytes, and through SyscallDecoder with captures that are short, cut or unreadable: a
capture the program controls must never raise, and what cannot be read prints as the
address, as strace prints memory it cannot read.

Expected texts are what strace 6.1 printed for the same values on this machine
(tests/e2e/test_strace_io.py compares against strace itself)."""

from __future__ import annotations

import socket
import struct

from hypothesis import given, settings, strategies as st

from tests.decode._calls import X64, call, ioctl_of_hostile_memory, line
from tracekit._events import (
    CAP_BUF,
    CAP_IOV,
    CAP_MMSGHDR,
    CAP_MSGHDR,
    CAP_STRUCT,
    CAPF_AT_EXIT,
    CAPF_ELEM_FAULT,
    CAPF_FAULT,
    CAPF_PARTIAL,
    CAPF_TRUNC,
    Capture,
)
from tracekit.decode import flags as F, structs_io as IO, structs_net as NET
from tracekit.decode.args import SyscallDecoder
from tracekit.decode.captures import cut_array
from tracekit.decode.fdcache import FdCache

FL = F.for_arch("x86_64")
ADDR = 0x7FFD1000
TERMIOS = struct.pack("<4IB19s", 0o2400, 0o5, 0o277, 0o105073, 0, bytes(19))
TERMIOS_TEXT = ("{c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, "
                "c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|"
                "ECHOCTL|ECHOKE, ...}")





def test_termios_and_winsize() -> None:
    assert IO.format_termios(TERMIOS, FL) == TERMIOS_TEXT
    assert IO.format_termios(TERMIOS[:35], FL) is None
    assert IO.format_winsize(struct.pack("<4H", 24, 80, 0, 0)) == \
        "{ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}"
    assert IO.format_winsize(b"\x00" * 7) is None


def test_termios_flag_words_of_zero_print_empty() -> None:
    """strace 6.1: {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B0|CS5|, ...};
    bits without a name in hex (tests/e2e/test_strace_sweep_tty.py)."""
    zero = bytes(IO.TERMIOS_SIZE)
    assert IO.format_termios(zero, FL) == (
        "{c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|, c_cflag=B0|CS5|, c_lflag=, ...}")
    odd = struct.pack("<4I", 0, 0x10000, 0x20000000 | 0o60 | 0o17, 0).ljust(36, b"\0")
    assert IO.format_termios(odd, FL) == (
        "{c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|0x10000, "
        "c_cflag=B38400|CS8|0x20000000, c_lflag=, ...}")


def test_ioctl_names() -> None:
    assert IO.ioctl_name(FL, 0x5401) == "TCGETS"
    assert IO.ioctl_name(FL, 0x5402) == "SNDCTL_TMR_START or TCSETS"
    assert IO.ioctl_name(FL, 0x40049409) == "BTRFS_IOC_CLONE or FICLONE"
    assert IO.ioctl_name(FL, 0x80047877) == "_IOC(_IOC_READ, 0x78, 0x77, 0x4)"
    assert IO.ioctl_name(FL, 0x1234) == "_IOC(_IOC_NONE, 0x12, 0x34, 0)"
    assert IO.ioctl_name(FL, 0xC0105400 | 1 << 32) == "_IOC(_IOC_READ|_IOC_WRITE, 0x54, 0, 0x10)"


def test_ioctl_arguments(dec: SyscallDecoder) -> None:
    tcgets, fionbio, fioclex = 0x5401, 0x5421, 0x5451
    good = Capture(2, CAP_STRUCT, 0, TERMIOS)
    assert line(dec, call("ioctl", (4, tcgets, ADDR), 0, (good,))) == \
        f"ioctl(4, TCGETS, {TERMIOS_TEXT}) = 0"
    # written by the call: a failed one shows the address; short or faulted bytes too
    assert line(dec, call("ioctl", (4, tcgets, ADDR), -25, (good,))).startswith(
        f"ioctl(4, TCGETS, {ADDR:#x}) = -1 ENOTTY")
    for bad in (Capture(2, CAP_STRUCT, 0, TERMIOS[:20]), Capture(2, CAP_STRUCT, CAPF_FAULT, b""),
                Capture(2, CAP_STRUCT, CAPF_TRUNC, TERMIOS)):
        assert line(dec, call("ioctl", (4, tcgets, ADDR), 0, (bad,))) == \
            f"ioctl(4, TCGETS, {ADDR:#x}) = 0"
    # read by the call: shown whatever the result
    one = Capture(2, CAP_STRUCT, 0, struct.pack("<i", 1))
    assert line(dec, call("ioctl", (4, fionbio, ADDR), -25, (one,))).startswith(
        "ioctl(4, FIONBIO, [1]) = -1")
    assert line(dec, call("ioctl", (4, fioclex, ADDR))) == "ioctl(4, FIOCLEX) = 0"
    assert line(dec, call("ioctl", (4, 0x1234, 0), -25)).startswith(
        "ioctl(4, _IOC(_IOC_NONE, 0x12, 0x34, 0), 0) = -1")
    assert line(dec, call("ioctl", (4, 0x541B, 0), -14)).startswith("ioctl(4, FIONREAD, NULL)")


def pollfds(*fds: tuple[int, int, int]) -> bytes:
    return b"".join(IO.POLLFD.pack(*f) for f in fds)


def test_poll_entry_and_exit(dec: SyscallDecoder) -> None:
    entry = Capture(0, CAP_BUF, 0, pollfds((5, 1, 0), (6, 5, 0)))
    out = Capture(0, CAP_BUF, 0, pollfds((5, 1, 1), (6, 5, 4)))
    assert line(dec, call("poll", (ADDR, 2, 100), 2, (entry, out))) == (
        "poll([{fd=5, events=POLLIN}, {fd=6, events=POLLIN|POLLOUT}], 2, 100) = "
        "2 ([{fd=5, revents=POLLIN}, {fd=6, revents=POLLOUT}])")
    assert line(dec, call("poll", (ADDR, 2, 100), 0, (entry, out))).endswith("= 0 (Timeout)")
    # nfds larger than what was captured: the rest is "..."; a short exit capture
    # shows only the whole elements it has (none with revents here: the plain return)
    cut = Capture(0, CAP_BUF, CAPF_TRUNC, pollfds((5, 1, 0)) + b"\x01\x02")
    assert line(dec, call("poll", (ADDR, 1000, 0), 1, (cut, cut))) == (
        "poll([{fd=5, events=POLLIN}, ...], 1000, 0) = 1")
    # a negative fd has no events (the kernel skips it); past -s 32 entries, "..."
    neg = Capture(0, CAP_BUF, 0, pollfds((-1, 1, 0), (3, 0, 0)))
    assert line(dec, call("poll", (ADDR, 2, 0), 0, (neg,))) == \
        "poll([{fd=-1}, {fd=3, events=0}], 2, 0) = 0 (Timeout)"
    many = pollfds(*[(k, 1, 1) for k in range(40)])
    text = line(dec, call("poll", (ADDR, 40, 0), 40, (Capture(0, CAP_BUF, 0, many),) * 2))
    assert text.count("revents=") == 32 and text.endswith("revents=POLLIN}, ...])")
    faulted = Capture(0, CAP_BUF, CAPF_FAULT, b"")
    assert line(dec, call("poll", (ADDR, 1, 0), 1, (faulted,))) == f"poll({ADDR:#x}, 1, 0) = 1"
    # an array cut by the end of its mapping (FAULT|PARTIAL: the bytes up to it): the
    # entries readable, then the address of the first that is not (strace's print_array)
    part = Capture(0, CAP_BUF, CAPF_FAULT | CAPF_PARTIAL | CAPF_AT_EXIT, b"",
                   pollfds((5, 1, 0)) + b"\x06\0")
    assert line(dec, call("poll", (ADDR, 3, 0), -14, (part, part))) == (
        f"poll([{{fd=5, events=POLLIN}}, ... /* {ADDR + 8:#x} */], 3, 0) = -1 EFAULT "
        "(Bad address)")
    first = Capture(0, CAP_BUF, CAPF_FAULT | CAPF_PARTIAL, b"", b"\x06\0")
    assert line(dec, call("poll", (ADDR, 3, 0), -14, (first,))) == \
        f"poll({ADDR:#x}, 3, 0) = -1 EFAULT (Bad address)"


def test_select_ready_as_strace() -> None:
    b = bytes([0b11000]) + bytes(7)                 # fds 3 and 4
    assert IO.format_ready([b, None, None], 8, 2) == "in [3 4]"
    assert IO.format_ready([b, b, None], 8, 3) == "in [3 4], out [3]"
    # a set without fds after one printed still closes with "]" (strace's text)
    assert IO.format_ready([b, bytes(8), b], 8, 3) == "in [3 4]], except [3]"
    assert IO.format_ready([None, None, None], 8, 1) == ""


def test_fdsets() -> None:
    assert IO.format_fdset(bytes([0b100001]) + bytes(7), 7) == "[0 5]"
    assert IO.format_fdset(bytes([0xFF]), 1024) == "[0 1 2 3 4 5 6 7]"   # short: what is there
    assert IO.format_fdset(b"", 5) == "[]"


def test_select_ret(dec: SyscallDecoder) -> None:
    s_in = Capture(1, CAP_BUF, 0, bytes([0b100001]) + bytes(7))
    s_out = Capture(1, CAP_BUF, 0, bytes([0b100000]) + bytes(7))
    ts = struct.pack("<qq", 0, 100000)
    caps = (s_in, Capture(4, CAP_STRUCT, 0, ts), s_out, Capture(4, CAP_STRUCT, 0, ts))
    assert line(dec, call("pselect6", (7, ADDR, 0, 0, ADDR + 8, 0), 1, caps)) == (
        "pselect6(7, [0 5], NULL, NULL, {tv_sec=0, tv_nsec=100000}, NULL) = "
        "1 (in [5], left {tv_sec=0, tv_nsec=100000})")


def test_pselect_sigmask(dec: SyscallDecoder) -> None:
    def sig(data: bytes) -> str:
        ev = call("pselect6", (1, 0, 0, 0, 0, ADDR), 0, (Capture(5, CAP_STRUCT, 0, data),))
        return dec.decode(ev).args[5]
    usr1 = (1 << 9).to_bytes(8, "little")
    assert sig(struct.pack("<QQ", ADDR + 64, 8) + usr1) == "{sigmask=[USR1], sigsetsize=8}"
    assert sig(struct.pack("<QQ", 0, 8)) == "{sigmask=NULL, sigsetsize=8}"
    # the set unread (16 bytes only) or of another size: its address
    assert sig(struct.pack("<QQ", ADDR + 64, 8)) == f"{{sigmask={ADDR + 64:#x}, sigsetsize=8}}"
    assert sig(struct.pack("<QQ", ADDR + 64, 4) + usr1) == \
        f"{{sigmask={ADDR + 64:#x}, sigsetsize=4}}"
    assert sig(b"\x01" * 15) == f"{ADDR:#x}"


def test_epoll_events(dec: SyscallDecoder) -> None:
    ev = struct.pack("<IQ", 0x80000001, 0x1234)
    assert line(dec, call("epoll_ctl", (7, 1, 5, ADDR), 0, (Capture(3, CAP_STRUCT, 0, ev),))) \
        == "epoll_ctl(7, EPOLL_CTL_ADD, 5, {events=EPOLLIN|EPOLLET, data={u32=4660, u64=4660}}) = 0"
    assert line(dec, call("epoll_ctl", (7, 1, 5, ADDR), 0,
                          (Capture(3, CAP_STRUCT, 0, ev[:11]),))).endswith(f"{ADDR:#x}) = 0")
    two = ev + struct.pack("<IQ", 4, (1 << 64) - 1)
    assert line(dec, call("epoll_wait", (7, ADDR, 4, 10), 2, (Capture(1, CAP_BUF, 0, two),))) \
        == ("epoll_wait(7, [{events=EPOLLIN|EPOLLET, data={u32=4660, u64=4660}}, "
            "{events=EPOLLOUT, data={u32=4294967295, u64=18446744073709551615}}], 4, 10) = 2")
    # the kernel said 3 but only 2 were captured
    assert line(dec, call("epoll_wait", (7, ADDR, 4, 10), 3, (Capture(1, CAP_BUF, 0, two),))) \
        .endswith("u64=18446744073709551615}}, ...], 4, 10) = 3")


def iov(*elems: tuple[int, int, bytes | None]) -> bytes:
    out = b""
    for base, length, data in elems:
        got = b"" if data is None else data
        out += IO.IOV_ELEM.pack(base, length, len(got), CAPF_FAULT if data is None else 0)
        out += got + bytes(-len(got) % 8)
    return out


def test_iov(dec: SyscallDecoder) -> None:
    cap = Capture(1, CAP_IOV, 0, iov((ADDR, 4, b"abch"), (ADDR + 8, 64, b"ello world")))
    assert line(dec, call("readv", (5, ADDR, 2), 14, (cap,))) == (
        'readv(5, [{iov_base="abch", iov_len=4}, {iov_base="ello world", iov_len=64}], 2) = 14')
    assert line(dec, call("readv", (5, ADDR, 2), -9, (cap,))).startswith(
        f"readv(5, [{{iov_base={ADDR:#x}, iov_len=4}}, {{iov_base={ADDR + 8:#x}, iov_len=64}}]")
    w = Capture(1, CAP_IOV, CAPF_TRUNC, iov((ADDR, 5, b"hello"), (ADDR + 8, 3, None)))
    assert line(dec, call("writev", (6, ADDR, 20), 8, (w,))) == (
        f'writev(6, [{{iov_base="hello", iov_len=5}}, {{iov_base={ADDR + 8:#x}, iov_len=3}}, '
        '...], 20) = 8')
    # a NULL base prints NULL; an array unreadable after its first element ends with
    # the address of the element that could not be read
    nul = Capture(1, CAP_IOV, CAPF_TRUNC | CAPF_ELEM_FAULT, iov((0, 0, b"")))
    assert line(dec, call("writev", (6, ADDR, 2), -14, (nul,))).startswith(
        f"writev(6, [{{iov_base=NULL, iov_len=0}}, ... /* {ADDR + 16:#x} */], 2) = -1")
    # records that run past the data are not an iovec array: the address
    assert IO.parse_iov(iov((ADDR, 5, b"hello"))[:27]) is None
    bad = IO.IOV_ELEM.pack(ADDR, 5, 4000, 0) + b"x"
    assert line(dec, call("writev", (6, ADDR, 1), 5, (Capture(1, CAP_IOV, 0, bad),))) == \
        f"writev(6, {ADDR:#x}, 1) = 5"


def test_iov_element_cut_by_its_mapping(dec: SyscallDecoder) -> None:
    """An element whose read faulted, with the bytes up to its page's end (FAULT|PARTIAL):
    strace reads min(iov_len, -s + 1) bytes of it in one piece, so 33 readable bytes
    (-s 32) print as a string, 32 as the address; a 2**63 iov_len is no different."""
    def cut(length: int, got: bytes) -> Capture:
        rec = IO.IOV_ELEM.pack(ADDR, length, len(got), CAPF_FAULT | CAPF_PARTIAL)
        return Capture(1, CAP_IOV, 0, rec + got + bytes(-len(got) % 8))
    for length in (100, 1 << 63):
        assert line(dec, call("writev", (6, ADDR, 1), -14, (cut(length, b"z" * 33),))) == (
            f'writev(6, [{{iov_base="{"z" * 32}"..., iov_len={length}}}], 1) = -1 EFAULT '
            "(Bad address)")
        assert line(dec, call("writev", (6, ADDR, 1), -14, (cut(length, b"z" * 32),))) == (
            f"writev(6, [{{iov_base={ADDR:#x}, iov_len={length}}}], 1) = -1 EFAULT "
            "(Bad address)")
    # all of a short element that was readable prints whole
    assert line(dec, call("writev", (6, ADDR, 1), -14, (cut(20, b"z" * 19),))).startswith(
        f"writev(6, [{{iov_base={ADDR:#x}, iov_len=20}}]")


def test_msghdr_of_an_unreadable_iovec_array(dec: SyscallDecoder) -> None:
    """msg_iov NULL or unreadable (the header committed with ELEM_FAULT, no element): the
    header with msg_iov=NULL or its address, as strace."""
    empty = IO.IOV_ELEM.pack(0, 0, 0, 0)
    for iov_addr, text in ((0, "NULL"), (ADDR, f"{ADDR:#x}")):
        hdr = IO.MSGHDR.pack(0, 0, iov_addr, 2, 0, 0, 0)
        cap = Capture(1, CAP_MSGHDR, CAPF_ELEM_FAULT, hdr + empty + empty)
        assert line(dec, call("sendmsg", (8, ADDR, 0x40), -14, (cap,))) == (
            f"sendmsg(8, {{msg_name=NULL, msg_namelen=0, msg_iov={text}, msg_iovlen=2, "
            "msg_controllen=0, msg_flags=0}, MSG_DONTWAIT) = -1 EFAULT (Bad address)")


def test_msghdr(dec: SyscallDecoder) -> None:
    hdr = IO.MSGHDR.pack(0, 0, ADDR, 1, 0, 0, 0)
    empty = IO.IOV_ELEM.pack(0, 0, 0, 0)
    data = hdr + empty + empty + iov((ADDR + 64, 5, b"hello"))
    cap = Capture(1, CAP_MSGHDR, 0, data)
    assert line(dec, call("sendmsg", (8, ADDR, 0x40), 5, (cap,))) == (
        'sendmsg(8, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="hello", iov_len=5}], '
        "msg_iovlen=1, msg_controllen=0, msg_flags=0}, MSG_DONTWAIT) = 5")
    for short in (data[:40], data[:60], data[:90], hdr + IO.IOV_ELEM.pack(0, 0, 200, 0)):
        assert line(dec, call("sendmsg", (8, ADDR, 0), 5, (Capture(1, CAP_MSGHDR, 0, short),))) \
            == f"sendmsg(8, {ADDR:#x}, 0) = 5"
    assert line(dec, call("recvmsg", (8, ADDR, 0), -11, (cap,))).startswith(
        f"recvmsg(8, {ADDR:#x}, 0) = -1 EAGAIN")


def test_sendmmsg(dec: SyscallDecoder) -> None:
    empty = IO.IOV_ELEM.pack(0, 0, 0, 0)

    def mmsg(text: bytes, sent: int) -> bytes:
        return (IO.MSGHDR.pack(0, 0, ADDR, 1, 0, 0, 0) + struct.pack("<I4x", sent) + empty
                + empty + iov((ADDR + 64, len(text), text)))
    caps = (Capture(1, CAP_MMSGHDR, 0, mmsg(b"one", 3)),
            Capture(1, CAP_MMSGHDR, 0, mmsg(b"two", 3)))
    one = ('{msg_hdr={msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="one", iov_len=3}], '
           "msg_iovlen=1, msg_controllen=0, msg_flags=0}")
    assert line(dec, call("sendmmsg", (3, ADDR, 2, 0), 1, caps)).startswith(
        f"sendmmsg(3, [{one}, msg_len=3}}, {{msg_hdr=")
    assert line(dec, call("sendmmsg", (3, ADDR, 2, 0), 1, caps)).endswith(
        "msg_flags=0}}], 2, 0) = 1")                  # the second was not sent: no msg_len
    # more messages than captured, and a capture that is not a mmsghdr
    assert line(dec, call("sendmmsg", (3, ADDR, 9, 0), 2, caps)).endswith(
        "msg_len=3}, ...], 9, 0) = 2")
    # a first element that cannot be read: the array's address, as strace prints
    # sendmmsg(4, 0x1, 1, MSG_DONTWAIT) (tests/e2e/test_strace_sweep_io.py)
    bad = (Capture(1, CAP_MMSGHDR, 0, b"\x01" * 70),)
    assert line(dec, call("sendmmsg", (3, ADDR, 1, 0), 1, bad)) == \
        f"sendmmsg(3, {ADDR:#x}, 1, 0) = 1"


def cmsg(level: int, ctype: int, data: bytes, clen: int | None = None) -> bytes:
    n = 16 + len(data) if clen is None else clen
    return struct.pack("<Qii", n, level, ctype) + data + bytes(-len(data) % 8)


def test_sol_ip_cmsgs_as_strace_6_1() -> None:
    """SOL_IP control messages by strace 6.1's ip_cmsg_types: arrays at most -s long
    (``elems_shown``), data only when as long as its struct, SCM_SECURITY at SOL_IP."""
    def one(ctype: int, data: bytes, shown: int = 32) -> str:
        c = cmsg(0, ctype, data)
        return IO.format_cmsgs(IO.IovElem(ADDR, len(c), c), FL, elems_shown=shown)
    assert one(2, struct.pack("<I", 0xFACEFEED)).endswith("IP_TTL, cmsg_data=[4207869677]}]")
    assert one(7, b"ABC", shown=2).endswith("IP_RETOPTS, cmsg_data=[0x41, 0x42, ...]}]")
    assert one(1, b"\0").endswith("IP_TOS, cmsg_data=[0]}]")
    assert one(11, bytes(31)).endswith("cmsg_type=IP_RECVERR}]")        # short of its struct
    assert one(20, bytes(15)).endswith("cmsg_type=IP_ORIGDSTADDR}]")
    assert one(3, b"x").endswith('cmsg_type=SCM_SECURITY, cmsg_data="x"}]')
    assert one(99, b"x").endswith("cmsg_type=0x63 /* IP_??? */}]")


@settings(deadline=None, max_examples=300, derandomize=True, database=None)
@given(ctype=st.sampled_from([1, 2, 3, 6, 7, 8, 11, 20, 23, 99, -1]),
       data=st.binary(max_size=160), clen=st.one_of(st.none(), st.integers(0, 1 << 64 - 1)),
       shown=st.integers(0, 40))
def test_sol_ip_cmsgs_of_any_bytes(ctype: int, data: bytes, clen: int | None,
                                   shown: int) -> None:
    c = cmsg(0, ctype, data, clen)
    text = IO.format_cmsgs(IO.IovElem(ADDR, len(c) + 8, c), FL, elems_shown=shown)
    assert text.startswith("[{cmsg_len=") and text.endswith("]")


def test_cmsgs() -> None:
    ctl = IO.IovElem(ADDR, 24, cmsg(1, 1, struct.pack("<i", 5)))
    assert IO.format_cmsgs(ctl, FL) == \
        "[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[5]}]"
    creds = cmsg(1, 2, struct.pack("<iII", 42, 0, 0))
    assert IO.format_cmsgs(IO.IovElem(ADDR, 32, creds), FL) == (
        "[{cmsg_len=28, cmsg_level=SOL_SOCKET, cmsg_type=SCM_CREDENTIALS, "
        "cmsg_data={pid=42, uid=0, gid=0}}]")
    # a cmsg_len shorter than the header ends the walk; a huge one is cut at the buffer
    assert IO.format_cmsgs(IO.IovElem(ADDR, 32, cmsg(1, 1, bytes(16), clen=3)), FL) == (
        f"[{{cmsg_len=3, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS}}, ... /* {ADDR + 16:#x} */]")
    assert IO.format_cmsgs(IO.IovElem(ADDR, 24, cmsg(1, 1, struct.pack("<i", 5), 1 << 63)), FL) \
        == "[{cmsg_len=9223372036854775808, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, " \
           "cmsg_data=[5, 0]}]"
    assert IO.format_cmsgs(IO.IovElem(ADDR, 24, None), FL) == f"{ADDR:#x}"
    assert IO.format_cmsgs(IO.IovElem(ADDR, 8, b"\0" * 8), FL) == f"{ADDR:#x}"
    assert IO.format_cmsgs(IO.IovElem(ADDR, 16, cmsg(99, 7, b"")), FL) == \
        "[{cmsg_len=16, cmsg_level=0x63 /* SOL_??? */, cmsg_type=0x7}]"


def test_scm_rights_fds_are_cut_at_the_string_limit() -> None:
    """SCM_RIGHTS' fds are strace's print_array: -s of them, then ``...`` (strace 6.1
    -s 4: ``cmsg_data=[0, 0, 0, 0, ...]`` for 40 fds); all of them under -v. A traced
    process chooses how many fds it sends."""
    many = cmsg(1, 1, struct.pack("<6i", *range(6)))
    ctl = IO.IovElem(ADDR, len(many), many)
    assert IO.format_cmsgs(ctl, FL, elems_shown=4).endswith("cmsg_data=[0, 1, 2, 3, ...]}]")
    assert IO.format_cmsgs(ctl, FL, elems_shown=6).endswith("cmsg_data=[0, 1, 2, 3, 4, 5]}]")
    assert IO.format_cmsgs(ctl, FL).endswith("cmsg_data=[0, 1, 2, 3, 4, 5]}]")


def test_socket_outputs(dec: SyscallDecoder) -> None:
    sin = struct.pack("<HH4s8x", 2, 0x5000, bytes([127, 0, 0, 1]))
    caps = (Capture(2, CAP_STRUCT, 0, struct.pack("<i", 128)),
            Capture(2, CAP_STRUCT, 0, struct.pack("<i", 16)), Capture(1, CAP_STRUCT, 0, sin))
    assert line(dec, call("accept4", (3, ADDR, ADDR + 8, 0x80000), 4, caps)) == (
        'accept4(3, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}, '
        "[128 => 16], SOCK_CLOEXEC) = 4")
    assert line(dec, call("accept4", (3, ADDR, ADDR + 8, 0), -11, caps)).startswith(
        f"accept4(3, {ADDR:#x}, [128], 0) = -1")
    # a length the program set negative, an address cut short
    neg = (Capture(2, CAP_STRUCT, 0, struct.pack("<i", -1)), Capture(2, CAP_STRUCT, 0, b"\x01"),
           Capture(1, CAP_STRUCT, 0, sin[:1]))
    assert line(dec, call("getsockname", (3, ADDR, ADDR + 8), 0, neg)) == \
        f"getsockname(3, {ADDR:#x}, [-1]) = 0"
    x = Capture(1, CAP_BUF, 0, b"x")
    assert line(dec, call("recvfrom", (3, ADDR, 16, 0, 0, 0), 1, (x,))) == \
        'recvfrom(3, "x", 16, 0, NULL, NULL) = 1'
    none = Capture(4, CAP_STRUCT, 0, b"")
    assert line(dec, call("sendto", (3, ADDR, 1, 0, 0, 0), 1, (x, none))) == \
        'sendto(3, "x", 1, 0, NULL, 0) = 1'


def test_sockopts(dec: SyscallDecoder) -> None:
    one = Capture(3, CAP_BUF, 0, struct.pack("<i", 1))
    assert line(dec, call("setsockopt", (3, 1, 2, ADDR, 4), 0, (one,))) == \
        "setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0"
    assert line(dec, call("setsockopt", (3, 6, 1, ADDR, 4), 0, (one,))) == \
        "setsockopt(3, SOL_TCP, TCP_NODELAY, [1], 4) = 0"
    assert line(dec, call("setsockopt", (3, 999, 77, ADDR, 2), 0, (one,))) == \
        'setsockopt(3, 0x3e7 /* SOL_?? */, 77, "\\1\\0", 2) = 0'
    assert line(dec, call("setsockopt", (3, 270, 11, ADDR, 4), 0, (one,))) == \
        "setsockopt(3, SOL_NETLINK, NETLINK_EXT_ACK, [1], 4) = 0"
    assert line(dec, call("setsockopt", (3, 270, 99, ADDR, 4), 0, (one,))) == \
        "setsockopt(3, SOL_NETLINK, 0x63 /* NETLINK_??? */, [1], 4) = 0"
    assert line(dec, call("setsockopt", (3, 1, 9999, ADDR, 4), 0, (one,))) == \
        "setsockopt(3, SOL_SOCKET, 0x270f /* SO_??? */, [1], 4) = 0"
    linger = Capture(3, CAP_BUF, 0, struct.pack("<ii", 1, 5))
    assert line(dec, call("setsockopt", (3, 1, 13, ADDR, 8), 0, (linger,))) == \
        "setsockopt(3, SOL_SOCKET, SO_LINGER, {l_onoff=1, l_linger=5}, 8) = 0"
    # optlen larger than the bytes there: the address
    assert line(dec, call("setsockopt", (3, 1, 13, ADDR, 8), 0,
                          (Capture(3, CAP_BUF, 0, b"\x01"),))).endswith(f"{ADDR:#x}, 8) = 0")
    caps = (Capture(4, CAP_STRUCT, 0, struct.pack("<i", 4)),
            Capture(4, CAP_STRUCT, 0, struct.pack("<i", 4)), Capture(3, CAP_BUF, 0, b"\x02\0\0\0"))
    assert line(dec, call("getsockopt", (3, 1, 3, ADDR, ADDR + 8), 0, caps)) == \
        "getsockopt(3, SOL_SOCKET, SO_TYPE, [2], [4]) = 0"
    assert NET.format_len_inout(4, 8) == "[4 => 8]"


def test_offsets(dec: SyscallDecoder) -> None:
    zero, ten = (Capture(2, CAP_STRUCT, 0, struct.pack("<q", v)) for v in (0, 10))
    assert line(dec, call("sendfile", (6, 5, ADDR, 10), 10, (zero, ten))) == \
        "sendfile(6, 5, [0] => [10], 10) = 10"
    assert line(dec, call("sendfile", (6, 5, ADDR, 10), -22, (zero, ten))).startswith(
        "sendfile(6, 5, [0], 10) = -1")
    assert line(dec, call("sendfile", (6, 5, ADDR, 10), 10,
                          (Capture(2, CAP_STRUCT, 0, b"\0" * 7),))).startswith(
        f"sendfile(6, 5, {ADDR:#x}, 10)")
    assert line(dec, call("copy_file_range", (5, ADDR, 6, 0, 5, 0), 5,
                          (Capture(1, CAP_STRUCT, 0, struct.pack("<q", 0)),))) == \
        "copy_file_range(5, [0], 6, NULL, 5, 0) = 5"


_NAMES = ["ioctl", "poll", "ppoll", "pselect6", "epoll_wait", "epoll_ctl", "readv", "writev",
          "sendmsg", "recvmsg", "accept4", "getsockopt", "setsockopt", "recvfrom", "sendfile",
          "copy_file_range", "socketpair", "select", "sendmmsg"]


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(_NAMES), data=st.binary(max_size=300),
       kind=st.sampled_from([CAP_BUF, CAP_STRUCT, CAP_IOV, CAP_MSGHDR, CAP_MMSGHDR]),
       flags=st.sampled_from([0, CAPF_TRUNC, CAPF_FAULT]), arg=st.integers(0, 5),
       ret=st.integers(-4095, 1 << 20), n=st.integers(0, 1 << 32))
def test_hostile_captures_never_raise(name: str, data: bytes, kind: int, flags: int, arg: int,
                                      ret: int, n: int) -> None:
    d = SyscallDecoder(X64, fdcache=FdCache("/nonexistent"))
    caps = (Capture(arg, kind, flags, data), Capture(arg, kind, flags, data[::-1]))
    out = d.decode(call(name, (3, n, ADDR, n, ADDR, n), ret, caps))
    assert out.name == name and all(isinstance(a, str) for a in out.args)


def test_recvfrom_truncated_and_connect_of_length_0(dec: SyscallDecoder) -> None:
    # MSG_TRUNC: the call returns the datagram's length, strace prints the buffer's
    data = Capture(1, CAP_BUF, 0, b"0123456789")
    assert line(dec, call("recvfrom", (3, ADDR, 4, 0x20, 0, 0), 10, (data,))) == \
        'recvfrom(3, "0123", 4, MSG_TRUNC, NULL, NULL) = 10'
    empty = Capture(1, CAP_BUF, 0, b"")
    assert line(dec, call("connect", (3, ADDR, 0), -22, (empty,))).startswith(
        "connect(3, 0x7ffd1000, 0) = -1 EINVAL")


def test_setsockopt_ip_mreq_and_empty_device(dec: SyscallDecoder) -> None:
    mreq = Capture(3, CAP_BUF, 0, bytes([239, 255, 42, 99, 127, 0, 0, 1]))
    assert line(dec, call("setsockopt", (3, 0, 35, ADDR, 8), 0, (mreq,))) == (
        'setsockopt(3, SOL_IP, IP_ADD_MEMBERSHIP, {imr_multiaddr=inet_addr("239.255.42.99"), '
        'imr_interface=inet_addr("127.0.0.1")}, 8) = 0')
    assert line(dec, call("setsockopt", (3, 1, 25, ADDR, 0), 0)) == \
        'setsockopt(3, SOL_SOCKET, SO_BINDTODEVICE, "", 0) = 0'


def test_cmsgs_of_sol_ip() -> None:
    ttl = cmsg(0, 2, struct.pack("<i", 7))
    lo = socket.if_nametoindex("lo")
    info = cmsg(0, 8, struct.pack("<I", lo) + bytes([127, 0, 0, 1, 127, 0, 0, 2]))
    ctl = IO.IovElem(ADDR, len(info) + len(ttl), info + ttl)
    assert IO.format_cmsgs(ctl, FL) == (
        "[{cmsg_len=28, cmsg_level=SOL_IP, cmsg_type=IP_PKTINFO, cmsg_data={ipi_ifindex="
        'if_nametoindex("lo"), ipi_spec_dst=inet_addr("127.0.0.1"), '
        'ipi_addr=inet_addr("127.0.0.2")}}, '
        "{cmsg_len=20, cmsg_level=SOL_IP, cmsg_type=IP_TTL, cmsg_data=[7]}]")
    odd = cmsg(0, 99, b"")
    assert IO.format_cmsgs(IO.IovElem(ADDR, len(odd), odd), FL) == \
        "[{cmsg_len=16, cmsg_level=SOL_IP, cmsg_type=0x63 /* IP_??? */}]"


def test_ioctl_ifreq(dec: SyscallDecoder) -> None:
    siocgifindex, siocgifname = 0x8933, 0x8910
    named = Capture(2, CAP_STRUCT, 0, b"lo".ljust(16, b"\0") + bytes(24))
    indexed = Capture(2, CAP_STRUCT, 0, b"lo".ljust(16, b"\0") + struct.pack("<i", 1) + bytes(20))
    assert line(dec, call("ioctl", (5, siocgifindex, ADDR), 0, (named, indexed))) == \
        'ioctl(5, SIOCGIFINDEX, {ifr_name="lo", ifr_ifindex=1}) = 0'
    asked = Capture(2, CAP_STRUCT, 0, bytes(16) + struct.pack("<i", 100000) + bytes(20))
    # a failed call: only what it read
    assert line(dec, call("ioctl", (5, siocgifname, ADDR), -19, (asked,))).startswith(
        "ioctl(5, SIOCGIFNAME, {ifr_ifindex=100000}) = -1 ENODEV")
    assert line(dec, call("ioctl", (5, siocgifname, ADDR), 0, (indexed, indexed))) == \
        'ioctl(5, SIOCGIFNAME, {ifr_ifindex=1, ifr_name="lo"}) = 0'


def test_addrlen_beside_a_null_address(dec: SyscallDecoder) -> None:
    n = Capture(2, CAP_BUF, 0, struct.pack("<i", 11))
    assert line(dec, call("getsockname", (4, 0, ADDR), -14, (n,))).startswith(
        f"getsockname(4, NULL, {ADDR:#x}) = -1 EFAULT")
    assert line(dec, call("accept4", (3, 0, 0, 0), 5)) == "accept4(3, NULL, NULL, 0) = 5"


def test_setsockopt_lengths_as_strace(dec: SyscallDecoder) -> None:
    one = Capture(3, CAP_BUF, 0, struct.pack("<i", 1))
    # an int option shorter than an int: its address; other options of length 0: ""
    assert line(dec, call("setsockopt", (3, 1, 2, ADDR, 2), -22, (one,))).startswith(
        f"setsockopt(3, SOL_SOCKET, SO_REUSEADDR, {ADDR:#x}, 2) = -1 EINVAL")
    assert line(dec, call("setsockopt", (3, 270, 11, ADDR, 0), -22)).startswith(
        f"setsockopt(3, SOL_NETLINK, NETLINK_EXT_ACK, {ADDR:#x}, 0) = -1 EINVAL")
    assert line(dec, call("setsockopt", (3, 1, 20, ADDR, 0), 0)) == \
        'setsockopt(3, SOL_SOCKET, SO_RCVTIMEO_OLD, "", 0) = 0'
    assert line(dec, call("setsockopt", (5, 41, 26, ADDR, 0), -92)).startswith(
        'setsockopt(5, SOL_IPV6, IPV6_V6ONLY, "", 0) = -1 ENOPROTOOPT')


def test_setsockopt_membership_structs(dec: SyscallDecoder) -> None:
    lo = socket.if_nametoindex("lo")
    m6 = Capture(3, CAP_BUF, 0, socket.inet_pton(socket.AF_INET6, "ff02::42")
                 + struct.pack("<I", lo))
    assert line(dec, call("setsockopt", (3, 41, 20, ADDR, 20), 0, (m6,))) == (
        'setsockopt(3, SOL_IPV6, IPV6_ADD_MEMBERSHIP, {inet_pton(AF_INET6, "ff02::42", '
        '&ipv6mr_multiaddr), ipv6mr_interface=if_nametoindex("lo")}, 20) = 0')
    # shorter than the struct: the address; an ip_mreqn: its ip_mreq part
    assert line(dec, call("setsockopt", (3, 41, 20, ADDR, 4), -22, (m6,))).startswith(
        f"setsockopt(3, SOL_IPV6, IPV6_ADD_MEMBERSHIP, {ADDR:#x}, 4) = -1 EINVAL")
    assert line(dec, call("setsockopt", (3, 1, 13, ADDR, 4), -22, (m6,))).startswith(
        f"setsockopt(3, SOL_SOCKET, SO_LINGER, {ADDR:#x}, 4) = -1 EINVAL")
    mn = Capture(3, CAP_BUF, 0, bytes([239, 255, 42, 98, 127, 0, 0, 1, 1, 0, 0, 0]))
    assert line(dec, call("setsockopt", (3, 0, 35, ADDR, 12), 0, (mn,))) == (
        'setsockopt(3, SOL_IP, IP_ADD_MEMBERSHIP, {imr_multiaddr=inet_addr("239.255.42.98"), '
        'imr_interface=inet_addr("127.0.0.1")}, 12) = 0')


def test_getsockopt_partial_structs(dec: SyscallDecoder) -> None:
    cred = Capture(3, CAP_BUF, 0, struct.pack("<iII", 77, 0, 0))
    n4 = Capture(4, CAP_BUF, 0, struct.pack("<i", 4))
    assert line(dec, call("getsockopt", (4, 1, 17, ADDR, ADDR + 64), 0, (n4, cred, n4))) == \
        "getsockopt(4, SOL_SOCKET, SO_PEERCRED, {pid=77}, [4]) = 0"
    assert line(dec, call("getsockopt", (4, 1, 13, ADDR, ADDR + 64), 0, (n4, cred, n4))) == \
        "getsockopt(4, SOL_SOCKET, SO_LINGER, {l_onoff=77}, [4]) = 0"


def test_tty_and_file_ioctl_structs(dec: SyscallDecoder) -> None:
    """termio, the modem lines, fsxattr, file_clone_range, file_dedupe_range and fiemap
    as strace 6.1 printed them (tests/e2e/test_strace_sweep_tty.py)."""
    termio = struct.pack("<4HB8sx", 0o2400, 0o5, 0o277, 0o105073, 0, bytes(8))
    assert IO.format_termio(termio, FL) == TERMIOS_TEXT
    assert IO.format_termio(termio[:17], FL) is None
    tcgeta, tcseta, tcflsh, tcxonc, tiocmset = 0x5405, 0x5406, 0x540B, 0x540A, 0x5418
    cap = Capture(2, CAP_STRUCT, 0, termio)
    assert line(dec, call("ioctl", (5, tcgeta, ADDR), 0, (cap,))) == \
        f"ioctl(5, TCGETA, {TERMIOS_TEXT}) = 0"
    assert line(dec, call("ioctl", (5, tcseta, ADDR), -1, (cap,))).startswith(
        f"ioctl(5, TCSETA, {TERMIOS_TEXT}) = -1")
    assert line(dec, call("ioctl", (5, tcflsh, 7), -22)).startswith(
        "ioctl(5, TCFLSH, 0x7 /* TC??? */) = -1")
    assert line(dec, call("ioctl", (5, tcxonc, 1))).startswith("ioctl(5, TCXONC, TCOON)")
    assert line(dec, call("ioctl", (5, tcxonc, 0xDEADBEEF_00000001), -22)).startswith(
        "ioctl(5, TCXONC, 0xdeadbeef00000001 /* TC??? */) = -1")
    modem = Capture(2, CAP_STRUCT, 0, struct.pack("<I", 0x6 | 0x10000))
    assert line(dec, call("ioctl", (5, tiocmset, ADDR), -25, (modem,))).startswith(
        "ioctl(5, TIOCMSET, [TIOCM_DTR|TIOCM_RTS|0x10000]) = -1")
    assert IO.format_fsxattr(struct.pack("<5I8x", 0x10, 0, 0, 0, 0), FL) == (
        "{fsx_xflags=FS_XFLAG_APPEND, fsx_extsize=0, fsx_nextents=0, fsx_projid=0, "
        "fsx_cowextsize=0}")
    assert IO.format_fsxattr(bytes(19), FL) is None
    assert IO.format_fsxattr(struct.pack("<5I8x", 0x40000000, 0, 0, 0, 0), FL,
                             nextents=False).startswith(
        "{fsx_xflags=0x40000000 /* FS_XFLAG_??? */, fsx_extsize=0, ")
    lines_only = Capture(2, CAP_STRUCT, 0, struct.pack("<I", 0x10000))
    assert line(dec, call("ioctl", (5, tiocmset, ADDR), -25, (lines_only,))).startswith(
        "ioctl(5, TIOCMSET, [0x10000 /* TIOCM_??? */]) = -1")
    assert IO.format_clone_range(struct.pack("<qQQQ", 3, 0, 4096, 0)) == \
        "{src_fd=3, src_offset=0, src_length=4096, dest_offset=0}"
    assert IO.format_clone_range(bytes(31)) is None
    head = struct.pack("<QQH2xI", 0, 4, 2, 0)
    info = struct.pack("<qQQiI", 4, 0, 0, 0, 0)
    assert IO.format_dedupe_range(head + info) == (
        "{src_offset=0, src_length=4, dest_count=2, info=[{dest_fd=4, dest_offset=0}, ...]}")
    assert IO.format_dedupe_range(head[:20]) is None
    fiemap = 0xC020660B
    req = Capture(2, CAP_STRUCT, 0, struct.pack("<QQIII4x", 0, 2**64 - 1, 1, 0, 2))
    got = Capture(2, CAP_STRUCT, 0, struct.pack("<QQIII4x", 0, 2**64 - 1, 1, 1, 2))
    assert line(dec, call("ioctl", (3, fiemap, ADDR), 0, (req, got))) == (
        "ioctl(3, FS_IOC_FIEMAP, {fm_start=0, fm_length=18446744073709551615, "
        "fm_flags=FIEMAP_FLAG_SYNC, fm_extent_count=2} => {fm_flags=FIEMAP_FLAG_SYNC, "
        "fm_mapped_extents=1, ...}) = 0")
    assert line(dec, call("ioctl", (3, fiemap, ADDR), -14, (req,))).startswith(
        "ioctl(3, FS_IOC_FIEMAP, {fm_start=0, fm_length=18446744073709551615, "
        "fm_flags=FIEMAP_FLAG_SYNC, fm_extent_count=2}) = -1")
    empty = Capture(2, CAP_STRUCT, 0, struct.pack("<QQIII4x", 0, 2**64 - 1, 0, 0, 0))
    assert line(dec, call("ioctl", (3, fiemap, ADDR), 0, (empty, empty))).endswith(
        "fm_extent_count=0} => {fm_flags=0, fm_mapped_extents=0, ...}) = 0")
    odd = Capture(2, CAP_STRUCT, 0, struct.pack("<QQIII4x", 0, 0, 8, 0, 2))
    assert "fm_flags=0x8 /* FIEMAP_FLAG_??? */, " in line(
        dec, call("ioctl", (3, fiemap, ADDR), -53, (odd,)))
    two = head + info + struct.pack("<qQQiI", 5, 8, 0, 0, 0)
    assert IO.format_dedupe_range(two) == (
        "{src_offset=0, src_length=4, dest_count=2, info=[{dest_fd=4, dest_offset=0}, "
        "{dest_fd=5, dest_offset=8}]}")
    assert line(dec, call("ioctl", (3, fiemap, 0), -14)).startswith(
        "ioctl(3, FS_IOC_FIEMAP, NULL)")
    assert IO.format_fsxattr(struct.pack("<5I8x", 0, 0, 3, 0, 0), FL, nextents=False) == \
        "{fsx_xflags=0, fsx_extsize=0, fsx_projid=0, fsx_cowextsize=0}"
    tcgets2, tiocsti, getfslabel = 0x802C542A, 0x5412, 0x81009431
    t2 = Capture(2, CAP_STRUCT, 0, TERMIOS + bytes(8))
    assert line(dec, call("ioctl", (5, tcgets2, ADDR), 0, (t2,))) == \
        f"ioctl(5, TCGETS2, {TERMIOS_TEXT}) = 0"
    assert line(dec, call("ioctl", (5, tiocsti, ADDR), 0,
                          (Capture(2, CAP_STRUCT, 0, b"x"),))) == 'ioctl(5, TIOCSTI, "x") = 0'
    label = Capture(2, CAP_STRUCT, 0, b"scratch\0" + bytes(248))
    assert line(dec, call("ioctl", (3, getfslabel, ADDR), 0, (label,))) == \
        'ioctl(3, FS_IOC_GETFSLABEL, "scratch") = 0'
    assert IO.ioctl_name(FL, 0x80285442) == "TIOCGISO7816"
    assert line(dec, call("ioctl", (5, 0x541F, ADDR), -25)).startswith(
        "ioctl(5, TIOCSSERIAL) = -1 ENOTTY")
    assert IO.ioctl_name(FL, 0x80045200) == "RNDGETENTCNT"
    assert IO.ioctl_name(FL, 0x4020940D) == "BTRFS_IOC_CLONE_RANGE or FICLONERANGE"


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=64), count=st.integers(-3, 40),
       size=st.sampled_from([4, 6, 8]), limit=st.integers(0, 12))
def test_cut_array_reads_element_by_element(data: bytes, count: int, size: int,
                                            limit: int) -> None:
    """An array cut by the end of its mapping: the elements wholly readable (at most the
    limit), then the address of the first that is not, or ``...`` at the limit; None
    (the array's address) when not even the first is readable."""
    addr = 0x7F0000001000
    got = cut_array(data, count, size, limit, addr)
    whole = len(data) // size
    if count > 0 and whole == 0:
        assert got is None
        return
    assert got is not None
    items, tail = got
    assert all(len(b) == size for b in items)
    assert b"".join(items) == data[:size * len(items)]
    if count <= min(whole, limit):
        assert (len(items), tail) == (max(count, 0), "")
    elif whole < min(count, limit + 1):
        assert (len(items), tail) == (whole, f"... /* {hex(addr + whole * size)} */")
    else:
        assert (len(items), tail) == (limit, "...")


def test_termios2_speeds_input_baud_and_termio_cc() -> None:
    """-v: a termios2's c_ispeed and c_ospeed after c_cc (None when short of its 44
    bytes); CIBAUD as ``B1800<<IBSHIFT`` after CBAUD, TAB3 as XTABS (strace 6.1's
    names); a termio's 8 control characters, not its padding byte."""
    words = struct.pack("<4I", 0, 0x1800, 0xF | 0xA << 16 | 0x30, 0)
    t2 = words + bytes([0]) + bytes(range(1, 20)) + struct.pack("<II", 9600, 38400)
    text = IO.format_termios(t2, FL, verbose=True, termios2=True)
    assert text is not None
    assert text.startswith("{c_iflag=, c_oflag=NL0|CR0|XTABS|BS0|VT0|FF0|, "
                           "c_cflag=B38400|B1800<<IBSHIFT|CS8|, c_lflag=, c_line=N_TTY, ")
    assert text.endswith(", [18]=0x13], c_ispeed=9600, c_ospeed=38400}")
    assert IO.format_termios(t2[:43], FL, verbose=True, termios2=True) is None
    assert IO.format_termios(t2[:36], FL, verbose=True) == text.split(", c_ispeed")[0] + "}"
    termio = struct.pack("<4H", 0, 0, 0xF, 0) + bytes(range(10))
    cc = IO.format_termio(termio, FL, verbose=True)
    assert cc is not None and cc.endswith("[VSWTC]=0x8]}")


def test_ifreq_sets() -> None:
    """SIOCSIF*'s struct ifreq: the name (15 characters and "..." without a NUL) and the
    member the request sets; a hardware address of the bytes its type has."""
    mtu = b"0123456789abcdef" + struct.pack("<i", -1).ljust(24, b"\0")
    assert IO.format_ifreq_set(mtu, FL, "SIOCSIFMTU") == \
        '{ifr_name="0123456789abcde"..., ifr_mtu=-1}'
    assert IO.format_ifreq_set(mtu[:39], FL, "SIOCSIFMTU") is None
    assert IO.format_ifreq_set(mtu, FL, "SIOCGIFMTU") is None
    hw = b"eth0".ljust(16, b"\0") + struct.pack("<H", 1) + bytes(range(1, 23))
    assert IO.format_ifreq_set(hw, FL, "SIOCADDMULTI") == \
        '{ifr_name="eth0", ifr_hwaddr={sa_family=ARPHRD_ETHER, sa_data=01:02:03:04:05:06}}'
    odd = hw[:16] + struct.pack("<H", 0x8484) + hw[18:]
    assert IO.format_ifreq_set(odd, FL, "SIOCSIFHWADDR").endswith(
        "sa_family=0x8484 /* ARPHRD_??? */, sa_data=01:02:03:04:05:06:07:08:09:0a:0b:0c:0d:0e}}")
    ifmap = b"eth0".ljust(16, b"\0") + struct.pack("<QQHBBB", 1, 0, 0xA1A0, 2, 0, 4) + bytes(3)
    assert IO.format_ifreq_set(ifmap[:40], FL, "SIOCSIFMAP").endswith(
        "ifr_map={mem_start=0x1, mem_end=0, base_addr=0xa1a0, irq=0x2, dma=0, port=0x4}}")


@settings(max_examples=300, deadline=None)
@given(req=st.sampled_from([v for v, n in FL.tables.IOCTLS.items()
                            if n.startswith(("SIOCS", "SIOCBR", "SIOCADD", "SIOCDEL"))]),
       data=st.lists(st.binary(max_size=48), max_size=2),
       flags=st.sampled_from([0, CAPF_TRUNC, CAPF_FAULT]), ret=st.integers(-4095, 10),
       arg=st.integers(0, 2**64 - 1))
def test_socket_ioctls_of_hostile_memory(req: int, data: list[bytes], flags: int, ret: int,
                                         arg: int) -> None:
    ioctl_of_hostile_memory(req, data, flags, ret, arg, False)



def test_iov_dumps_of_an_array_not_readable_whole() -> None:
    """-e write='s dump of writev: each buffer up to the bytes given; an array cut by an
    unreadable page (CAPF_ELEM_FAULT) dumps nothing, as strace's one read of the array
    fails."""
    whole = Capture(1, CAP_IOV, 0, iov((ADDR, 5, b"hello"), (ADDR + 8, 3, b"abc")))
    got = IO.iov_dump_vectors(call("writev", (6, ADDR, 2), -9, (whole,)), "writev")
    assert [(n, [e.data for e in elems]) for n, elems, _ in got] == [(2, [b"hello", b"abc"])]
    cut = Capture(1, CAP_IOV, CAPF_TRUNC | CAPF_ELEM_FAULT, iov((ADDR, 5, b"hello")))
    assert IO.iov_dump_vectors(call("writev", (6, ADDR, 2), -14, (cut,)), "writev") == []
