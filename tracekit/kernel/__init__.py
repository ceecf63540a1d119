"""Kernel facts: tracefs formats, /proc, the proc connector, syscall tables and selections,
strace's syscall classes and the generated flag tables per architecture.
Every reader takes its root as an argument, so tests read snapshots.
"""
