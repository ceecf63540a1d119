"""Workload of bench/strace_lines.py: files and a loopback TCP connection, one thread.

Usage: python3 files_tcp.py DIR. Writes, reads, stats, renames and removes a file in DIR;
then a listening socket on 127.0.0.1 (a kernel-chosen port), a client connected to it,
the accepted connection, a message each way, and closes. Single-threaded so that two
runs make the same calls in the same order (a loopback connect completes in the kernel
before accept is called).
"""

import os
import socket
import sys

d = sys.argv[1]
p = os.path.join(d, "files_tcp.tmp")
with open(p, "w") as f:
    f.write("x" * 100)
with open(p) as f:
    data = f.read()
os.stat(p)
os.rename(p, p + ".done")
os.unlink(p + ".done")
os.listdir(d)

srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(1)
cli = socket.create_connection(srv.getsockname())
conn, _ = srv.accept()
cli.sendall(b"ping")
conn.recv(16)
conn.sendall(data[:10].encode())
cli.recv(16)
cli.close()
conn.close()
srv.close()
