"""The session: loads and attaches the programs, holds and starts the command, owns every fd;
the typed pids map the upkeep stages act through, and the ring-buffer source.
"""
