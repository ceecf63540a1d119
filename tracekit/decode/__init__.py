"""Decoding: strace's text of every argument, flag and return value, and the fd cache.
"""
