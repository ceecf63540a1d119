"""Netlink messages and message headers a traced process controls, built to reach every
nested decoder (tests/decode/_nl_shapes.py), then lied about: attribute lengths of 0 to
5, odd, past the buffer; a capture cut anywhere; -s 0 to 32, -v, -x.

Whatever the bytes, a decoder returns a str and never raises; its text holds no raw
control byte; no quoted string shows more than -s bytes and no list more than -s
elements (but under -v); the text stays within a fixed multiple of the bytes read.

Each test is deterministic (derandomized, no example database) and fast;
TK_FUZZ_EXAMPLES raises the examples per test for a longer hunt.
"""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.decode import _nl_shapes as S
from tracekit.decode.structs_netlink import decode_netlink

EXAMPLES = int(os.environ.get("TK_FUZZ_EXAMPLES", "8"))
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])
ROUTE, SOCK_DIAG, NETFILTER = 0, 4, 12

# a quoted string's bytes: \xNN, an octal escape, \n and the like, or a plain char
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
_BYTE = re.compile(r"\\x[0-9a-f]{2}|\\[0-7]{1,3}|\\.|.")
# strings not cut at -s: addresses (inet_pton's longest, 45), interface names
_UNCUT = 64


def _lists(text: str, uncut: tuple[str, ...] = ()) -> list[int]:
    """The element count of each ``[...]`` in ``text`` (quoted strings skipped) but
    those after one of ``uncut`` (``msg_control=``: strace cuts no list of control
    messages)."""
    counts: list[int] = []
    stack: list[tuple[str, int]] = []
    quoted = escaped = False
    for at, ch in enumerate(text):
        if quoted:
            escaped, quoted = (False, True) if escaped else (ch == "\\", ch != '"')
            continue
        if ch == '"':
            quoted = True
        elif ch in "[{(":
            stack.append(("" if ch == "[" and text[:at].endswith(uncut)
                          else ch, 1))
        elif ch in "]})" and stack:
            kind, n = stack.pop()
            if kind == "[":
                counts.append(n)
        elif ch == "," and stack:
            kind, n = stack[-1]
            stack[-1] = (kind, n + 1)
    return counts


def check(text: str, captured: int, limit: int, verbose: bool,
          uncut: tuple[str, ...] = (), whole: tuple[str, ...] = ()) -> None:
    """``uncut``: lists after these are not cut at -s elements; ``whole``: strings after
    these are not cut at -s bytes (as strace prints them)."""
    assert isinstance(text, str)
    assert all(" " <= ch <= "~" for ch in text), text
    assert len(text) <= 300 * (captured + 16), (len(text), captured)
    if verbose:
        return
    for m in _QUOTED.finditer(text):
        if text[:m.start()].endswith(whole):
            continue
        assert len(_BYTE.findall(m.group(1))) <= max(limit, _UNCUT), m.group(0)
    # -s elements, then "..."; a [header, payload] pair is two
    assert max(_lists(text, uncut), default=0) <= max(limit, 2) + 1, text


def decode(data: bytes, cut: int, extra: int, family: int, limit: int, verbose: bool,
           hexs: bool) -> None:
    cut = min(cut, len(data))
    text = decode_netlink(data[:cut], len(data) + extra, family, S.FL, limit,
                          verbose=verbose, hex_strings=hexs)
    check(text, cut, limit, verbose)


LIMITS = st.sampled_from([0, 1, 4, 32])
# mostly the whole capture, else cut anywhere
CUTS = st.one_of(st.just(1 << 20), st.just(1 << 20), st.integers(0, 600))


def _path_id(p: S.Path) -> str:
    root, steps = p
    name = getattr(root, "__name__", None) or "table"
    return f"{name}:{'.'.join(map(str, steps)) or '-'}"


@pytest.mark.parametrize("path", S.ROUTE_PATHS, ids=_path_id)
def test_route_attributes_down_every_path(path: S.Path) -> None:
    @FUZZ
    @given(data=S.route_path_message(st.just(path)), cut=CUTS, extra=st.integers(0, 64),
           limit=LIMITS, verbose=st.booleans(), hexs=st.booleans())
    def run(data: bytes, cut: int, extra: int, limit: int, verbose: bool,
            hexs: bool) -> None:
        decode(data, cut, extra, ROUTE, limit, verbose, hexs)
    run()


@pytest.mark.parametrize("path", S.DIAG_PATHS, ids=_path_id)
def test_sock_diag_attributes_down_every_path(path: S.Path) -> None:
    @FUZZ
    @given(data=S.sock_diag_path_message(st.just(path)), cut=CUTS, extra=st.integers(0, 64),
           limit=LIMITS, verbose=st.booleans(), hexs=st.booleans())
    def run(data: bytes, cut: int, extra: int, limit: int, verbose: bool,
            hexs: bool) -> None:
        decode(data, cut, extra, SOCK_DIAG, limit, verbose, hexs)
    run()


@settings(FUZZ, max_examples=EXAMPLES * 40)
@given(data=st.lists(S.netfilter_message(), min_size=1, max_size=3).map(b"".join),
       cut=CUTS, limit=LIMITS, verbose=st.booleans(), hexs=st.booleans())
def test_nfnetlink_messages(data: bytes, cut: int, limit: int, verbose: bool,
                            hexs: bool) -> None:
    decode(data, cut, 0, NETFILTER, limit, verbose, hexs)


@settings(FUZZ, max_examples=EXAMPLES * 20)
@given(data=S.error_message(S.route_path_message()), cut=CUTS, limit=LIMITS,
       verbose=st.booleans(), hexs=st.booleans())
def test_errors_carrying_requests(data: bytes, cut: int, limit: int, verbose: bool,
                                  hexs: bool) -> None:
    decode(data, cut, 0, ROUTE, limit, verbose, hexs)


@settings(FUZZ, max_examples=EXAMPLES * 10)
@given(data=st.lists(st.one_of(S.route_path_message(), S.sock_diag_path_message()),
                     min_size=2, max_size=8).map(b"".join),
       family=st.sampled_from([-1, ROUTE, SOCK_DIAG, 16, 9, 6]), cut=CUTS, limit=LIMITS,
       verbose=st.booleans())
def test_many_messages_in_one_buffer(data: bytes, family: int, cut: int, limit: int,
                                     verbose: bool) -> None:
    decode(data, cut, 0, family, limit, verbose, False)


def test_the_list_counter_counts() -> None:
    """The element counter of :func:`check` (a test that could not fail is no test)."""
    assert _lists('[1, "a,]b", [2, 3], {x=[4]}]') == [2, 1, 4]
    assert _lists("{a=[1, 2], b=[3]}", ("a=",)) == [1]
    with pytest.raises(AssertionError):
        check("[" + ", ".join(["1"] * 6) + "]", 24, 4, False)
    with pytest.raises(AssertionError):
        check('"' + "a" * 70 + '"', 70, 4, False)
    with pytest.raises(AssertionError):
        check("\x1b[31m", 5, 4, False)
    check("[" + ", ".join(["1"] * 6) + "]", 24, 4, True)


def test_a_nested_decoder_is_reached() -> None:
    """The strategies reach the fourth level: a bridge's IFLA_BR_MULTI_BOOLOPT in
    IFLA_INFO_DATA, decoded after IFLA_INFO_KIND "bridge"."""
    seen: list[str] = []
    # the paths three levels deep or more (the generation over all of ROUTE_PATHS meets
    # them too, but how often depends on what ran before in the process)
    deep = [p for p in S.ROUTE_PATHS if len(p[1]) >= 3]
    assert deep

    @settings(FUZZ, max_examples=300)
    @given(data=S.route_path_message(st.sampled_from(deep)))
    def run(data: bytes) -> None:
        seen.append(decode_netlink(data, len(data), ROUTE, S.FL, 32, verbose=True))
    run()
    text = "\n".join(seen)
    for name in ("IFLA_LINKINFO", "IFLA_INFO_KIND", "IFLA_INFO_DATA", "nla_len=0,",
                 "NLA_F_NESTED"):
        assert name in text, name
