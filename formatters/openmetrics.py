"""``[output] format = "openmetrics"``: syscall statistics for Prometheus (prometheus-client).

The calls are counted in BPF maps (the in-kernel summary: no record per call), and every
exposition reads the maps afresh: a scrape costs one batched read of the summary maps,
the traced calls nothing more. Three ways out, by the ``[output]`` keys:

- ``listen = "127.0.0.1:9464"``: an HTTP server on that address serves ``/metrics``
  while the trace runs (port 0 takes a free port; the address is logged);
- ``path = "/var/lib/prometheus/node-exporter/tracekit.prom"``: the textfile of
  node_exporter's textfile collector, replaced whole every ``interval_s`` and at the end
  (a new 0600 file renamed over the path, as every tracekit output);
- ``path = "-"`` (no ``listen``): the metrics once, on stdout, at the end.

Metric names, labels and what bounds their number: docs/metrics.md. In short::

    tracekit_syscalls_total{syscall}                    calls (counter)
    tracekit_syscall_errors_total{syscall,errno}        calls that returned -errno
    tracekit_syscall_duration_seconds{syscall}          histogram: the kernel's log2
                                                        buckets, le = (2**k - 1) ns
    tracekit_lost_records_total                         ring-buffer records lost
    tracekit_uncounted_syscalls_total                   calls the summary maps missed
    tracekit_untraced_tasks                             tasks not traced: pids map full

``labels = ["comm", "tgid", "cgroup"]`` (any of them) adds per-process or per-cgroup
labels to the three syscall families; at most ``max_processes`` distinct processes get
their own label values, later ones share ``comm="other", tgid="other"``.
"""

from __future__ import annotations

import functools
import io
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Annotated, Any, Literal

import msgspec
import trio

from tracekit._errors import ConfigError
from tracekit._summary import Summary
from tracekit.formatters._output import Output, close_output, is_stdout, open_output
from tracekit.formatters._spec import FormatSpec, SinkContext
from tracekit.kernel.syscalls import errno_name
from tracekit.pipeline._stage import EventReceiver, StageContext

__all__ = ["SPEC", "MetricsOptions", "MetricsSink", "collect", "make_sink"]

log = logging.getLogger("tracekit.openmetrics")

Label = Literal["comm", "tgid", "cgroup"]
#: histogram buckets: k = 0..HIST_TOP of the kernel's log2 histogram (bucket k holds
#: durations of 2**(k-1) to 2**k - 1 ns; 0 holds 0 ns); longer calls are only in +Inf
HIST_TOP = 40            # 2**40 ns: about 18 minutes


TEXTFILE_INTERVAL_S = 15.0   # default period of a textfile's rewrite, seconds


class MetricsOptions(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """``[output]`` keys of ``format = "openmetrics"`` (module docstring)."""

    listen: str = ""                    # "host:port" to serve /metrics on; "" = none
    # how often a textfile is replaced; None: every 15 s (the key is shared with the
    # summary's interval reports, whose default is none)
    interval_s: Annotated[float, msgspec.Meta(ge=0.001, le=86_400)] | None = None
    labels: tuple[Label, ...] = ()      # per-process/-cgroup labels: comm, tgid, cgroup
    max_processes: Annotated[int, msgspec.Meta(ge=1, le=100_000)] = 1000
    histogram: bool = True              # the latency histograms (42 series per syscall)


@functools.cache
def _les() -> list[str]:
    """The ``le`` of bucket k: (2**k - 1) ns in seconds, so that the kernel's bucket
    boundaries (integer ns) fall exactly between two ``le`` values."""
    from prometheus_client.utils import floatToGoString

    return [str(floatToGoString((2**k - 1) / 1e9))  # type: ignore[no-untyped-call]
            for k in range(HIST_TOP + 1)]


class _Labeller:
    """Label values per process, bounded (``max_processes``; first come, kept).

    Args:
      proc: where a process's cgroup is read (``<proc>/<tgid>/cgroup``, its cgroup v2
        line); None: not known (a replay, whose tgids are not this machine's processes
        now), and the cgroup label is empty, which Prometheus reads as absent.
    """

    def __init__(self, labels: list[Label], max_processes: int,
                 proc: str | None = "/proc") -> None:
        self.labels = labels
        self.max_processes = max_processes
        self.proc = proc
        self._values: dict[tuple[int, str], tuple[str, ...]] = {}
        self._cgroups: dict[int, str] = {}

    def _cgroup(self, tgid: int) -> str:
        if self.proc is None:
            return ""
        got = self._cgroups.get(tgid)
        if got is None:
            got = ""
            try:
                with open(f"{self.proc}/{tgid}/cgroup", "rb") as f:
                    for line in f.read().decode("utf-8", "surrogateescape").splitlines():
                        if line.startswith("0::"):
                            got = line[3:]
            except OSError:
                pass                     # gone: the cgroup is not known any more
            if len(self._cgroups) < 65536:
                self._cgroups[tgid] = got
        return got

    def of(self, tgid: int, comm: str) -> tuple[str, ...]:
        got = self._values.get((tgid, comm))
        if got is not None:
            return got
        if len(self._values) >= self.max_processes:
            return tuple("other" if name != "cgroup" else self._cgroup(tgid)
                         for name in self.labels)
        values = []
        for name in self.labels:
            if name == "comm":
                from tracekit.formatters._base import escape

                values.append(escape(comm))
            elif name == "tgid":
                values.append(str(tgid))
            else:
                values.append(self._cgroup(tgid))
        got = self._values[(tgid, comm)] = tuple(values)
        return got


def collect(summary: Summary, counters: Mapping[str, int], labeller: _Labeller, *,
            histogram: bool = True) -> Iterator[Any]:
    """The metric families of a summary and the kernel's counters (prometheus-client
    ``Metric`` objects, for a collector's ``collect``)."""
    from prometheus_client.core import (
        CounterMetricFamily,
        GaugeMetricFamily,
        HistogramMetricFamily,
    )

    extra = list(labeller.labels)
    calls = CounterMetricFamily("tracekit_syscalls", "System calls made by the traced tasks",
                                labels=["syscall", *extra])
    errors = CounterMetricFamily("tracekit_syscall_errors",
                                 "System calls that returned -errno, by errno",
                                 labels=["syscall", "errno", *extra])
    hist = HistogramMetricFamily("tracekit_syscall_duration_seconds",
                                 "System call durations, entry to exit (the kernel's log2 "
                                 "buckets)", labels=["syscall", *extra])
    # sum the groups that share label values (processes folded into "other", or no
    # per-process labels at all)
    rows: dict[tuple[str, ...], list[Any]] = {}
    errs: dict[tuple[str, ...], int] = {}
    grouped = summary.regroup("process") if extra else summary.regroup("total")
    for g in grouped.groups:
        values = labeller.of(g.tgid, g.comm) if extra else ()
        for s in g.syscalls:
            name = s.syscall + ("(32)" if s.compat else "")
            key = (name, *values)
            row = rows.get(key)
            if row is None:
                row = rows[key] = [0, 0, 0, [0] * (HIST_TOP + 2)]
            row[0] += s.calls
            row[1] += s.total_ns
            row[2] += s.timed
            buckets = row[3]
            for k, n in s.hist.items():
                buckets[min(k, HIST_TOP + 1)] += n
            for err, n in s.errnos.items():
                ekey = (name, errno_name(err), *values)
                errs[ekey] = errs.get(ekey, 0) + n
    les = _les()
    for key, (n, total_ns, timed, buckets) in sorted(rows.items()):
        calls.add_metric(list(key), n)
        if histogram:
            cum, out = 0, []
            for k in range(HIST_TOP + 1):
                cum += buckets[k]
                out.append((les[k], cum))
            out.append(("+Inf", timed))
            hist.add_metric(list(key), out, total_ns / 1e9)
    for key, n in sorted(errs.items()):
        errors.add_metric(list(key), n)
    yield calls
    yield errors
    if histogram:
        yield hist
    lost = CounterMetricFamily("tracekit_lost_records",
                               "Ring-buffer records the kernel could not reserve")
    lost.add_metric([], counters.get("lost", 0))
    yield lost
    missed = CounterMetricFamily("tracekit_uncounted_syscalls",
                                 "System calls the in-kernel summary could not count "
                                 "(its map was full)")
    missed.add_metric([], counters.get("summary_full", 0))
    yield missed
    untraced = GaugeMetricFamily("tracekit_untraced_tasks",
                                 "Tasks that were not traced: the pids map was full")
    untraced.add_metric([], counters.get("untraced", 0))
    yield untraced


class _Collector:
    """A prometheus-client collector that reads the summary maps at each collect."""

    def __init__(self, summary_from: Callable[[], Summary],
                 counters_from: Callable[[], Mapping[str, int]],
                 labeller: _Labeller, histogram: bool) -> None:
        self._summary_from = summary_from
        self._counters_from = counters_from
        self._labeller = labeller
        self._histogram = histogram
        self._lock = threading.Lock()       # the HTTP server's thread and the sink's

    def collect(self) -> Iterator[Any]:
        with self._lock:
            summary, counters = self._summary_from(), self._counters_from()
            return iter(list(collect(summary, counters, self._labeller,
                                     histogram=self._histogram)))


def _split_address(listen: str) -> tuple[str, int] | None:
    """``HOST:PORT`` as (host, port): ``[::1]:9464`` as ``::1``, no host as 0.0.0.0;
    None when it is not one (a port of ASCII digits, 0..65535)."""
    host, sep, port = listen.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()) or not 0 <= int(port) <= 65535:
        return None
    return host.strip("[]") or "0.0.0.0", int(port)


def _listen_problem(listen: str) -> str:
    return f"listen = {listen!r} is not HOST:PORT (e.g. \"127.0.0.1:9464\")"


def _address(listen: str) -> tuple[str, int]:
    got = _split_address(listen)
    if got is None:
        raise ConfigError(f"openmetrics output: {_listen_problem(listen)}")
    return got


def _problem(options: MetricsOptions) -> tuple[str, str] | None:
    """A ``listen`` that is not HOST:PORT, found with the pipeline file."""
    if options.listen and _split_address(options.listen) is None:
        return "listen", _listen_problem(options.listen)
    return None


class MetricsSink:
    """The sink of ``format = "openmetrics"`` (module docstring).

    Args:
      out: ``"-"`` (stdout, written once at the end) or a path (a node_exporter textfile,
        replaced every ``interval_s`` and at the end), or an open stream.
      options: :class:`MetricsOptions`.
      summary_from: the in-kernel summary now (``Session.kernel_summary().read``).
      counters_from: the kernel's counters now: ``lost``, ``summary_full``, ``untraced``.

    Attributes:
      address: ``(host, port)`` the server listens on once started, else None.
    """

    name = "openmetrics"
    spec: FormatSpec[Any] | None = None

    def __init__(self, out: Output, options: MetricsOptions, *,
                 summary_from: Callable[[], Summary],
                 counters_from: Callable[[], Mapping[str, int]] | None = None,
                 proc: str | None = "/proc") -> None:
        from prometheus_client import CollectorRegistry

        self.out = out
        self.options = options
        self.address: tuple[str, int] | None = None
        self.closed_by_reader = False
        self._listen = _address(options.listen) if options.listen else None
        self._collector = _Collector(summary_from, counters_from or (lambda: {}),
                                     _Labeller(list(options.labels), options.max_processes,
                                               proc),
                                     options.histogram)
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self._collector)

    def text(self) -> bytes:
        """The exposition now, OpenMetrics text (``# EOF`` last)."""
        from prometheus_client.openmetrics.exposition import generate_latest

        return bytes(generate_latest(self.registry))  # type: ignore[no-untyped-call]

    def _write_file(self, data: bytes) -> None:
        if isinstance(self.out, str | os.PathLike):
            stream = open_output(self.out, atomic=True)
            completed = False
            try:
                stream.write(data)
                stream.flush()
                completed = True
            finally:
                if not is_stdout(stream):
                    close_output(stream, completed=completed)
        elif isinstance(self.out, io.TextIOBase):
            self.out.write(data.decode())
            self.out.flush()
        else:
            self.out.write(data)        # type: ignore[arg-type]
            self.out.flush()

    def _textfile(self) -> bool:
        return isinstance(self.out, str | os.PathLike) and os.fspath(self.out) != "-"

    async def _rewrite(self) -> None:
        while True:
            await trio.sleep(self.options.interval_s or TEXTFILE_INTERVAL_S)
            self._write_file(self.text())

    async def run(self, ctx: StageContext, recv: EventReceiver) -> None:
        server = None
        if self._listen is not None:
            from prometheus_client import start_http_server

            host, port = self._listen
            try:
                server, thread = start_http_server(port, addr=host, registry=self.registry)
            except socket.gaierror as e:    # the host does not resolve: no errno of its own
                raise ConfigError(f"openmetrics output: cannot listen on "
                                  f"{self.options.listen}: {e.strerror} (getaddrinfo of "
                                  f"{host!r})") from e
            except OSError as e:
                raise ConfigError(f"openmetrics output: cannot listen on "
                                  f"{self.options.listen}: {os.strerror(e.errno or 0)} "
                                  f"({errno_name(e.errno or 0)})") from e
            bound_host, bound_port = server.server_address[:2]
            self.address = (str(bound_host), int(bound_port))
            shown = f"[{self.address[0]}]" if ":" in self.address[0] else self.address[0]
            log.warning("serving metrics on http://%s:%d/metrics", shown, bound_port)
        try:
            async with trio.open_nursery() as nursery:
                if self._textfile():
                    nursery.start_soon(self._rewrite)
                async with recv:
                    async for _ in recv:
                        pass                # the calls are counted in the kernel
                nursery.cancel_scope.cancel()
            if self._textfile() or self._listen is None:
                self._write_file(self.text())   # the final counts
        finally:
            if server is not None:
                server.shutdown()
                server.server_close()


def make_sink(out: Output, options: MetricsOptions, ctx: SinkContext) -> MetricsSink:
    """``[output] format = "openmetrics"``: counts from ``ctx.summary_from`` (the
    in-kernel summary) and ``ctx.counters_from``.

    Raises:
      ConfigError: no in-kernel summary to read (the output counts in BPF maps only), or
        a ``listen`` that is not HOST:PORT.
    """
    if ctx.summary_from is None:
        raise ConfigError("openmetrics output: the calls must be counted in the kernel "
                          "(no [[stage]] and no [filter] path with this output)")
    if ctx.replay and "cgroup" in options.labels:
        log.warning("openmetrics: a recording holds no cgroups: the cgroup label is empty "
                    "in a replay")
    sink = MetricsSink(out, options, summary_from=ctx.summary_from,
                       counters_from=ctx.counters_from,
                       proc=None if ctx.replay else "/proc")
    return sink


def _in_kernel(options: MetricsOptions, has_stages: bool) -> bool:
    return True


SPEC: FormatSpec[MetricsOptions] = FormatSpec("openmetrics", MetricsOptions, make_sink,
                                              in_kernel=_in_kernel, rewrites=True,
                                              problem=_problem)
MetricsSink.spec = SPEC
