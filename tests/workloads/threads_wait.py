"""Threads that idle until GOFILE exists, then call getppid exactly N times and end.

Prints the tids of its threads (JSON list, main thread first) once they all run, then
waits for them and exits. Usage: threads_wait.py N NTHREADS GOFILE
"""

import json
import os
import sys
import threading
import time

N, NTHREADS, GO = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
tids: list[int] = []
ready = threading.Barrier(NTHREADS + 1)


def work() -> None:
    tids.append(threading.get_native_id())
    ready.wait()
    while not os.path.exists(GO):
        time.sleep(0.005)
    for _ in range(N):
        os.getppid()


threads = [threading.Thread(target=work) for _ in range(NTHREADS)]
for t in threads:
    t.start()
ready.wait()
print(json.dumps([threading.get_native_id(), *tids]), flush=True)
for t in threads:
    t.join()
