"""The kernel interface: ctypes bpf(2) (one function per command, sys.py), perf_event_open(2),
BTF, the ELF loader with CO-RE relocations, maps/progs/links and the ring-buffer reader.
Imports nothing above it (docs/architecture.md).
"""
