"""Front ends: the one trace orchestrator (trace.py), the command line, the pipeline file and
its located errors, the stage registry, listings and the status line.
"""
