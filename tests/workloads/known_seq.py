"""A workload with a known syscall sequence, per task (used by tests/e2e/test_run.py).

Each of three tasks (the main thread, a second thread, a forked child) opens PATH, reads
from it, closes it, then calls getppid exactly N times. Prints a JSON report:
``{"main": [tid, fd], "thread": [tid, fd], "child": [tid, fd]}``.
Usage: known_seq.py N PATH
"""

import json
import os
import sys
import threading

N = int(sys.argv[1])
PATH = sys.argv[2]


def seq() -> list[int]:
    fd = os.open(PATH, os.O_RDONLY)
    os.read(fd, 64)
    os.close(fd)
    for _ in range(N):
        os.getppid()
    return [threading.get_native_id(), fd]


report = {"main": seq()}


def in_thread() -> None:
    report["thread"] = seq()


th = threading.Thread(target=in_thread)
th.start()
th.join()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    os.write(w, json.dumps(seq()).encode())
    os._exit(0)
os.close(w)
report["child"] = json.loads(os.read(r, 200))
os.waitpid(pid, 0)
print(json.dumps(report), flush=True)
