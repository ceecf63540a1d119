"""A call a thread is inside when tracing ends, as strace prints it at its detach:
``read(0,  <detached ...>`` (tracekit.session.inflight). Each test traces processes it
starts, attached with ``-p``, and ends the tracer with SIGINT as a user's Ctrl-C does."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests._run import (
    attached_tracer,
    compile_c,
    die_with_parent,
    holds_bpf_link,
    rest_of_stderr,
    tracekit_env,
    wait_until,
)
from tracekit.kernel.arch import machine_arch
from tracekit.kernel.syscalls import SyscallTable

pytestmark = [pytest.mark.kernel,
              pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")]

TRACEKIT = [sys.executable, "-m", "tracekit"]


def _without_messages(text: str) -> list[str]:
    """The trace's lines without strace's attach and detach messages, which a trace on
    standard error holds inside its last line, as strace writes them
    (``read(0, strace: Process 5 detached\\n <detached ...>``)."""
    return re.sub(r"strace: Process \d+ (attached|detached)( with \d+ threads)?\n", "",
                  text).splitlines()


def _wait_for(path: Path, text: str, timeout: float = 20.0) -> None:
    wait_until(lambda: text in (path.read_text() if path.exists() else ""),
               f"{text!r} in {path}", timeout)


def _cat_session(tool: list[str], out: Path, shown: bool = True) -> tuple[str, str]:
    """``cat`` reading a pipe, traced by ``tool -p``: one line through it, then the
    tracer is interrupted while cat waits in its next read (seen in the trace when
    ``shown``, else after a second). (trace text, stderr)"""
    cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                           preexec_fn=die_with_parent)
    assert cat.stdin is not None
    try:
        tracer = attached_tracer([*tool, "-p", str(cat.pid), "-o", str(out)],
                                 env=tracekit_env())
        time.sleep(0.3)     # strace: past its attach's interruption of the read
        cat.stdin.write(b"hello\n")
        cat.stdin.flush()
        if shown:
            _wait_for(out, "write(1, ")
        else:
            time.sleep(1.0)
        time.sleep(0.2)     # cat is back in read
        tracer.send_signal(signal.SIGINT)
        err = rest_of_stderr(tracer, 30)
    finally:
        cat.kill()
        cat.wait()
        cat.stdin.close()
    return out.read_text(), err


def test_a_blocked_read_at_the_end_prints_as_strace_prints_it(tmp_path: Path) -> None:
    ref, _ = _cat_session(["strace"], tmp_path / "strace.txt")
    got, err = _cat_session([*TRACEKIT, "strace"], tmp_path / "tracekit.txt")
    assert ref.splitlines()[-1] == "read(0,  <detached ...>"
    assert got == ref, err


def test_the_status_selection_keeps_or_drops_detached_calls(tmp_path: Path) -> None:
    only, _ = _cat_session([*TRACEKIT, "strace", "-e", "status=detached"], tmp_path / "a",
                           shown=False)
    assert only == "read(0,  <detached ...>\n"
    none, _ = _cat_session([*TRACEKIT, "strace", "-e", "status=successful"], tmp_path / "b")
    assert "detached" not in none and 'read(0, "hello\\n", 131072)' in none


def test_perf_format_and_a_call_entered_before_the_attach(tmp_path: Path) -> None:
    # sleep is inside clock_nanosleep before tracekit starts: its entry is read from /proc
    sleeper = subprocess.Popen(["sleep", "60"], preexec_fn=die_with_parent)
    out = tmp_path / "perf.txt"
    try:
        time.sleep(0.2)
        tracer = subprocess.Popen([*TRACEKIT, "run", "-p", str(sleeper.pid), "-o", str(out)],
                                  stderr=subprocess.PIPE, text=True, env=tracekit_env(),
                                  preexec_fn=die_with_parent)
        wait_until(lambda: holds_bpf_link(tracer.pid), "attached", 30, tracer)
        time.sleep(0.5)     # past the re-enumeration of the target's threads
        tracer.send_signal(signal.SIGINT)
        _, err = tracer.communicate(timeout=30)
    finally:
        sleeper.kill()
        sleeper.wait()
    lines = out.read_text().splitlines()
    assert len(lines) == 1, (lines, err)
    assert f"sleep/{sleeper.pid} clock_nanosleep(" in lines[0]
    assert lines[0].endswith("= ? <detached>")


_INT80_BLOCKED = r"""
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
static char buf[64];
static unsigned int words[3];
int main(int argc, char **argv)
{
    long r;
    if (argc > 1) {     /* i386 socketcall(SYS_ACCEPT, {fd, NULL, NULL}) */
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a = {AF_UNIX};
        strcpy(a.sun_path + 1, argv[1]);
        if (bind(s, (void *)&a, sizeof(a)) || listen(s, 1))
            return 1;
        words[0] = s;
        asm volatile("int $0x80" : "=a"(r) : "a"(102), "b"(5), "c"(words) : "memory");
    } else {            /* i386 read(0, buf, 64) */
        asm volatile("int $0x80" : "=a"(r) : "a"(3), "b"(0), "c"(buf), "d"(64) : "memory");
    }
    return 0;
}
"""


def _blocked_before_attach(tool: list[str], prog: list[str],
                           nrs: tuple[str, ...] = ("3 ", "102 ")) -> str:
    """``prog`` blocked in its int $0x80 call before ``tool -p`` attaches; the tracer is
    interrupted once attached. The trace text (stderr included: the 32-bit mode line)."""
    target = subprocess.Popen(prog, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              preexec_fn=die_with_parent)
    try:
        wait_until(lambda: Path(f"/proc/{target.pid}/syscall").read_text().startswith(nrs),
                   "the workload blocked", 10)
        tracer = attached_tracer([*tool, "-p", str(target.pid)], env=tracekit_env())
        time.sleep(0.5)
        tracer.send_signal(signal.SIGINT)
        err = rest_of_stderr(tracer, 30)
    finally:
        target.kill()
        target.wait()
        assert target.stdin is not None
        target.stdin.close()
    return err


@pytest.mark.skipif(machine_arch() != "x86_64", reason="int $0x80 is x86_64's")
def test_a_32bit_call_entered_before_the_attach_is_read_as_one(tmp_path: Path) -> None:
    # /proc/TID/syscall gives the i386 number of an int $0x80 call (3: read, not close)
    prog = compile_c(_INT80_BLOCKED, tmp_path, "int80_blocked", "-no-pie")
    ref = _blocked_before_attach(["strace"], [str(prog)])
    got = _blocked_before_attach([*TRACEKIT, "strace"], [str(prog)])
    want = "read(0,  <detached ...>"
    # strace's detach message lands inside its line: taken out
    assert want in _without_messages(ref), ref
    lines = _without_messages(got)
    assert len(lines) == 2 and lines[1] == want, got
    assert re.fullmatch(r"\[ Process PID=\d+ runs in 32 bit mode\. \]", lines[0]), got
    # selected by the i386 table's numbers: read, and not the native close (3)
    got = _blocked_before_attach([*TRACEKIT, "strace", "-e", "trace=read"], [str(prog)])
    assert want in _without_messages(got), got
    got = _blocked_before_attach([*TRACEKIT, "strace", "-e", "trace=close"], [str(prog)])
    assert "detached ...>" not in got, got
    # a socketcall: the sub-call its words name
    name = f"tk{os.getpid()}-{tmp_path.name}"     # abstract: unique per worker
    got = _blocked_before_attach([*TRACEKIT, "strace"], [str(prog), name])
    assert "accept(" in got and "detached ...>" in got, got


_HIGH_BITS_BLOCKED = r"""
#define _GNU_SOURCE
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#define HIGH 0xdeadbeef00000000UL
int main(int argc, char **argv)
{
    /* what the call reads ends where its mapping ends */
    char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int p[2];
    if (m == MAP_FAILED || munmap(m + 4096, 4096) || pipe(p))
        return 1;
    if (!strcmp(argv[1], "poll")) {
        struct pollfd *f = (struct pollfd *)(m + 4096 - sizeof(*f));
        f->fd = p[0];
        f->events = POLLIN;
        syscall(SYS_poll, f, HIGH | 1, -1);
    } else {            /* a full backlog: the second connect blocks */
        struct sockaddr_un a = {AF_UNIX};
        socklen_t len = offsetof(struct sockaddr_un, sun_path) + strlen(argv[2]) + 1;
        int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
        int s = socket(AF_UNIX, SOCK_STREAM, 0);
        strcpy(a.sun_path, argv[2]);
        unlink(argv[2]);
        if (bind(l, (void *)&a, len) || listen(l, 0) || connect(c, (void *)&a, len))
            return 1;
        memcpy(m + 4096 - len, &a, len);
        syscall(SYS_connect, s, m + 4096 - len, HIGH | len);
    }
    return 0;
}
"""


@pytest.mark.parametrize("call", ["poll", "connect"])
def test_a_length_with_garbage_above_its_32_bits_reads_as_the_kernel_takes_it(
        tmp_path: Path, call: str) -> None:
    # poll's nfds is an unsigned int, connect's addrlen an int: the kernel ignores the
    # upper half of their registers, as the BPF programs do. Read from /proc/TID/mem
    # (entered before the attach), the whole 64-bit value was the length: 1024 bytes
    # of pollfds, 128 of sockaddr, which ran past the mapping's end, and the line
    # printed the address where strace prints the array and the address
    nr = SyscallTable().nr(call)
    if nr is None:      # (arm64 has no poll)
        pytest.skip(f"no {call} here")
    sock = tmp_path / "s"
    prog = [str(compile_c(_HIGH_BITS_BLOCKED, tmp_path, "high_bits")), call, str(sock)]
    want = {"poll": "poll([{fd=3, events=POLLIN}], 1, -1 <detached ...>",
            "connect": f'connect(7, {{sa_family=AF_UNIX, sun_path="{sock}"}}, '
                       f"{len(str(sock)) + 3} <detached ...>"}[call]
    if call == "connect":   # (strace's attach interrupts a poll: restart_syscall)
        ref = _blocked_before_attach(["strace"], prog, (f"{nr} ",))
        assert want in _without_messages(ref), ref
    got = _blocked_before_attach([*TRACEKIT, "strace"], prog, (f"{nr} ",))
    assert want in _without_messages(got), got


def test_a_kernel_thread_is_inside_no_call_at_the_end(tmp_path: Path) -> None:
    # /proc/TID/syscall of a kernel thread reads "0 0x0 ... 0x0" (no user registers):
    # tracekit run -p of one printed it blocked in read(fd: 0, buf: NULL, count: 0)
    kthread = None
    for name in sorted((n for n in os.listdir("/proc") if n.isdigit()), key=int):
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        if int(name) > 2 and int(stat.rsplit(b")", 1)[1].split()[6]) & 0x00200000:
            kthread = int(name)     # (not kthreadd: run -p would follow its children)
            break
    if kthread is None:
        pytest.skip("no kernel thread in this pid namespace")
    tracer = subprocess.Popen([*TRACEKIT, "run", "-p", str(kthread)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=tracekit_env(), preexec_fn=die_with_parent)
    try:
        wait_until(lambda: holds_bpf_link(tracer.pid) or tracer.poll() is not None,
                   "tracekit attached", 30)
        time.sleep(0.5)
        tracer.send_signal(signal.SIGINT)
        out, err = tracer.communicate(timeout=30)
    finally:
        if tracer.poll() is None:
            tracer.kill()
            tracer.wait()
    assert tracer.returncode is not None and "Traceback" not in err, err
    assert "detached" not in out, out


_ACCEPT_BLOCKED = r"""
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
int main(int argc, char **argv)
{
    struct sockaddr_un a = {AF_UNIX}, b;
    socklen_t len = sizeof(b);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    strcpy(a.sun_path + 1, argv[1]);
    if (bind(s, (void *)&a, sizeof(a)) || listen(s, 1))
        return 1;
    if (argc > 2)
        return accept(s, (void *)&b, &len) < 0;
    return accept(s, NULL, NULL) < 0;
}
"""


@pytest.mark.parametrize(("extra", "want"), [
    ((), "accept(3, NULL, NULL <detached ...>"),
    (("addr",), "accept(3,  <detached ...>"),
])
def test_accept_without_an_address_prints_both_nulls_at_its_entry(
        tmp_path: Path, extra: tuple[str, ...], want: str) -> None:
    # strace prints accept's address and length at entry when either is NULL
    prog = compile_c(_ACCEPT_BLOCKED, tmp_path, "accept_blocked")
    # the abstract socket's name: tmp_path's name is the same in every xdist worker
    argv = [str(prog), f"tk{os.getpid()}-{tmp_path.name}", *extra]
    ref = _blocked_before_attach(["strace"], argv, ("43 ",))
    assert want in _without_messages(ref), ref
    got = _blocked_before_attach([*TRACEKIT, "strace"], argv, ("43 ",))
    assert _without_messages(got) == [want], got


_THREADS = r"""
#include <pthread.h>
#include <unistd.h>
static void *wait_here(void *arg) { (void)arg; pause(); return NULL; }
int main(void)
{
    pthread_t t[2];
    pthread_create(&t[0], NULL, wait_here, NULL);
    pthread_create(&t[1], NULL, wait_here, NULL);
    pause();
    return 0;
}
"""


def _ignore_sigint() -> None:
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # as a script's background job starts


def _ended_by(tool: list[str], pid: int, sig: int, ignored: bool) -> tuple[int, list[str]]:
    """``tool -f -p pid`` ended by ``sig``: (its wait status, its attach/detach lines)."""
    tracer = attached_tracer([*tool, "-f", "-p", str(pid), "-o", "/dev/null"],
                             env=tracekit_env(),
                             preexec_fn=_ignore_sigint if ignored else die_with_parent)
    time.sleep(0.5)
    tracer.send_signal(sig)
    err = rest_of_stderr(tracer, 30)
    return tracer.returncode, [ln for ln in err.splitlines() if ln.startswith("strace: ")]


@pytest.mark.parametrize(("sig", "ignored"), [(signal.SIGINT, False), (signal.SIGTERM, False),
                                              (signal.SIGHUP, False), (signal.SIGINT, True)])
def test_a_signal_ends_p_as_it_ends_strace(tmp_path: Path, sig: int, ignored: bool) -> None:
    # strace dies of the signal once detached (a shell sees 128+N), says each thread of
    # a -f process detached, and takes the signal even when it started ignoring it
    prog = compile_c(_THREADS, tmp_path, "threads")
    target = subprocess.Popen([str(prog)], preexec_fn=die_with_parent)
    try:
        wait_until(lambda: len(os.listdir(f"/proc/{target.pid}/task")) == 3, "threads", 10)
        want = _ended_by(["strace"], target.pid, sig, ignored)
        got = _ended_by([*TRACEKIT, "strace"], target.pid, sig, ignored)
    finally:
        target.kill()
        target.wait()
    assert want[0] == -sig and len(want[1]) == 3, want
    assert got == want


def test_a_write_blocked_before_the_attach_shows_its_data(tmp_path: Path) -> None:
    # the string a call entered before the attach reads is read from /proc/PID/mem, as
    # strace reads it at its attach: write(4, "hello world", 11 <detached ...>
    code = ("import os, sys\nr, w = os.pipe()\nos.write(w, b'x' * 65536)\n"
            "print('full', flush=True)\nos.write(w, b'hello world')\n")
    write_nr = SyscallTable().nr("write")
    target = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              preexec_fn=die_with_parent)
    texts = []
    try:
        assert target.stdout is not None and target.stdout.readline() == "full\n"
        wait_until(lambda: Path(f"/proc/{target.pid}/syscall").read_text().startswith(
            f"{write_nr} "), "the write blocked", 10)
        for tool in (["strace"], [*TRACEKIT, "strace"]):
            out = tmp_path / f"{tool[-1]}.txt"
            tracer = attached_tracer([*tool, "-p", str(target.pid), "-o", str(out)],
                                     env=tracekit_env())
            time.sleep(0.5)
            tracer.send_signal(signal.SIGINT)
            rest_of_stderr(tracer, 30)
            texts.append(out.read_text())
    finally:
        target.kill()
        target.wait()
        assert target.stdout is not None
        target.stdout.close()
    assert texts[0].splitlines()[-1] == 'write(4, "hello world", 11 <detached ...>', texts[0]
    assert texts[1] == texts[0]


_BLOCKS_AFTER_A_GATE = r"""
#define _GNU_SOURCE
#include <linux/aio_abi.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int sv[2];
    char gate, b[64];
    struct timespec t = {1000, 0};
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) || read(0, &gate, 1) != 1)
        return 1;
    if (!strcmp(argv[1], "recvfrom")) {
        recvfrom(sv[0], b, sizeof(b), 0, NULL, NULL);
    } else if (!strcmp(argv[1], "recvmmsg")) {
        struct iovec v = {b, sizeof(b)};
        struct mmsghdr m;
        memset(&m, 0, sizeof(m));
        m.msg_hdr.msg_iov = &v;
        m.msg_hdr.msg_iovlen = 1;
        recvmmsg(sv[0], &m, 1, 0, &t);
    } else if (!strcmp(argv[1], "rt_sigtimedwait")) {
        sigset_t s;
        siginfo_t i;
        sigemptyset(&s);
        sigaddset(&s, SIGUSR2);
        sigprocmask(SIG_BLOCK, &s, NULL);
        sigtimedwait(&s, &i, &t);
    } else {
        aio_context_t ctx = 0;
        struct io_event ev[2];
        syscall(SYS_io_setup, 4, &ctx);
        syscall(SYS_io_getevents, ctx, 1, 2, ev, &t);
    }
    return 0;
}
"""


def _blocked_after_attach(tool: list[str], prog: list[str], nr: int) -> str:
    """``prog`` attached to by ``tool -p``, then let into its blocking call (call
    ``nr``, entered under the tracer), then the tracer interrupted: its stderr, where
    the trace goes."""
    target = subprocess.Popen(prog, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              preexec_fn=die_with_parent)
    assert target.stdin is not None
    try:
        tracer = attached_tracer([*tool, "-p", str(target.pid)], env=tracekit_env())
        time.sleep(0.5)     # strace: past its attach's interruption of the read
        target.stdin.write(b"g")
        target.stdin.flush()
        wait_until(lambda: Path(f"/proc/{target.pid}/syscall").read_text().startswith(
            f"{nr} "), "the workload blocked", 10)
        time.sleep(0.3)
        tracer.send_signal(signal.SIGINT)
        err = rest_of_stderr(tracer, 30)
    finally:
        target.kill()
        target.wait()
        target.stdin.close()
    return err


@pytest.mark.parametrize(("call", "want"), [
    ("recvfrom", "recvfrom(3,  <detached ...>"),
    ("recvmmsg", "recvmmsg(3,  <detached ...>"),
    ("rt_sigtimedwait", "rt_sigtimedwait([USR2],  <detached ...>"),
    ("io_getevents", "io_getevents(0xADDR, 1, 2,  <detached ...>"),
])
def test_a_call_that_writes_its_arguments_prints_those_before_them(
        tmp_path: Path, call: str, want: str) -> None:
    # strace prints a call's arguments up to the first it writes at the call's exit:
    # tracekit printed recvfrom's buffer, length, flags, rt_sigtimedwait's siginfo
    # address and timeout, recvmmsg's vector and io_getevents' events as at entry
    nr = SyscallTable().nr(call)
    assert nr is not None
    prog = [str(compile_c(_BLOCKS_AFTER_A_GATE, tmp_path, "gate_blocked")), call]

    def detached(text: str) -> list[str]:
        # (strace writes its "detached" line into the unfinished one)
        text = re.sub(r"strace: Process \d+ detached\n", "", text)
        return [re.sub(r"0x[0-9a-f]+", "0xADDR", ln) for ln in text.splitlines()
                if "<detached ...>" in ln]

    assert detached(_blocked_after_attach(["strace"], prog, nr)) == [want]
    assert detached(_blocked_after_attach([*TRACEKIT, "strace"], prog, nr)) == [want]


_INT80_RECV_AFTER_A_GATE = r"""
#include <sys/socket.h>
#include <unistd.h>
static char buf[64];
static unsigned int words[4];
int main(void)
{
    int sv[2];
    char gate;
    long r;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || read(0, &gate, 1) != 1)
        return 1;
    words[0] = sv[0];           /* i386 socketcall(SYS_RECV, {fd, buf, 64, 0}) */
    words[1] = (unsigned long)buf;
    words[2] = sizeof(buf);
    asm volatile("int $0x80" : "=a"(r) : "a"(102), "b"(10), "c"(words) : "memory");
    return 0;
}
"""


@pytest.mark.skipif(machine_arch() != "x86_64", reason="int $0x80 is x86_64's")
def test_a_32bit_recv_prints_what_strace_printed_at_its_entry(tmp_path: Path) -> None:
    # recv, an i386 socketcall sub-call only (no native call of that name), was printed
    # with every argument: its kinds are the i386 table's
    prog = [str(compile_c(_INT80_RECV_AFTER_A_GATE, tmp_path, "int80_recv", "-no-pie"))]

    def detached(text: str) -> list[str]:
        text = re.sub(r"strace: Process \d+ detached\n", "", text)
        return [ln for ln in text.splitlines() if "<detached ...>" in ln]

    ref = detached(_blocked_after_attach(["strace"], prog, 102))
    assert ref == [f"recv({ref[0][5:].split(',')[0]},  <detached ...>"], ref
    assert detached(_blocked_after_attach([*TRACEKIT, "strace"], prog, 102)) == ref


_THREADS_BLOCKED = r"""
#include <pthread.h>
#include <unistd.h>
static void *reader(void *arg) { char c; (void)arg; read(0, &c, 1); return 0; }
int main(void)
{
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], 0, reader, 0);
    pause();
    return 0;
}
"""


def _threads_session(tool: list[str], exe: Path, out: Path) -> list[str]:
    """A process whose four threads wait in calls (three reads of a pipe, pause),
    traced by ``tool -f -p`` and interrupted: the trace's lines."""
    rd, wr = os.pipe()
    proc = subprocess.Popen([str(exe)], stdin=rd, preexec_fn=die_with_parent)
    os.close(rd)
    try:
        wait_until(lambda: len(os.listdir(f"/proc/{proc.pid}/task")) == 4, "4 threads")
        tracer = attached_tracer([*tool, "-f", "-p", str(proc.pid), "-o", str(out)],
                                 env=tracekit_env())
        time.sleep(0.5)
        tracer.send_signal(signal.SIGINT)
        err = rest_of_stderr(tracer, 30)
    finally:
        proc.kill()
        proc.wait()
        os.close(wr)
    lines = out.read_text().splitlines()
    assert len(lines) == 4, (lines, err)
    return lines


def test_threads_in_calls_at_the_end_leave_one_line_detached(tmp_path: Path) -> None:
    # strace ends an open line with " <unfinished ...>" when another task's line comes;
    # only the last one written says " <detached ...>" (which thread is last varies)
    exe = compile_c(_THREADS_BLOCKED, tmp_path, "threads_blocked", "-pthread")
    for tool in (["strace"], [*TRACEKIT, "strace"]):
        lines = _threads_session(tool, exe, tmp_path / f"{tool[-1]}.txt")
        ends = [line.rsplit(" <", 1)[1] for line in lines]
        assert ends == ["unfinished ...>"] * 3 + ["detached ...>"], (tool, lines)
        calls = sorted(line.split(None, 1)[1].rsplit(" <", 1)[0] for line in lines)
        assert calls == ["pause(", *["read(0, "] * 3], (tool, lines)


def test_the_detach_message_goes_inside_the_open_line_as_strace_writes_it() -> None:
    # a trace on standard error: strace's line stays open, its detach message follows
    # the call's text, and " <detached ...>" comes on a line of its own after it
    def stderr_of(tool: list[str]) -> str:
        err = _blocked_before_attach(tool, ["cat"], ("0 ",))    # cat blocked in read
        return re.sub(r"Process \d+ ", "Process PID ", err)

    ref = stderr_of(["strace"])
    assert "read(0, strace: Process PID detached\n <detached ...>\n" in ref, ref
    assert stderr_of([*TRACEKIT, "strace"]) == ref


def _mask(pid: int, field: str) -> int:
    """A signal mask of /proc/PID/status (``SigCgt``, ``SigBlk`` ...); 0 once it is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return int(re.search(rf"^{field}:\s*([0-9a-f]+)", text, re.M)[1], 16)  # type: ignore[index]


def test_a_signal_while_p_starts_ignoring_it_ends_the_trace() -> None:
    # tracekit strace -p started with SIGINT ignored (a script's background job) takes
    # it as strace does; one that came while tracekit still imported its modules, before
    # its signal thread, was thrown away by the kernel and the trace went on until the
    # target ended (here: 60 s)
    target = subprocess.Popen(["sleep", "60"], preexec_fn=die_with_parent)
    tracer = subprocess.Popen([*TRACEKIT, "strace", "-f", "-p", str(target.pid), "-o",
                               "/dev/null"], env=tracekit_env(), stderr=subprocess.PIPE,
                              text=True, preexec_fn=_ignore_sigint)
    try:
        # the entry point has run (its handler of SIGTERM, not ignored, is there) and the
        # trace has not started (SIGINT not yet blocked for the signal thread)
        term, intr = 1 << (signal.SIGTERM - 1), 1 << (signal.SIGINT - 1)
        wait_until(lambda: _mask(tracer.pid, "SigCgt") & term, "the entry point", 20)
        assert not _mask(tracer.pid, "SigBlk") & intr
        tracer.send_signal(signal.SIGINT)
        err = rest_of_stderr(tracer, 20)
    finally:
        tracer.kill()
        tracer.wait()
        target.kill()
        target.wait()
    assert tracer.returncode in (128 + signal.SIGINT, -signal.SIGINT), err
