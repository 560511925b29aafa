"""Runs a command and reports what it cost, its whole process tree included.

usage: python3 rusage.py OUT.json -- CMD [ARGS...]

Becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER) so processes the command leaves behind — pyspark's
JVM outlives its python parent — are reparented here and waited for; then getrusage(RUSAGE_CHILDREN) holds
the CPU of every process of the tree and the largest peak RSS among them. Peak RSS: Linux carries a
process's pre-exec high-water mark over exec, so it includes this small wrapper's own (~10 MB), never the
bench parent's. Writes {"wall_s", "cpu_s", "user_s", "sys_s", "peak_rss_bytes", "exit"} to OUT.json; the
command's stdout/stderr pass through; exits with the command's code.
"""
import ctypes
import json
import os
import resource
import subprocess
import sys
import time

out, sep, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
assert sep == "--" and cmd, __doc__
PR_SET_CHILD_SUBREAPER = 36
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
t0 = time.perf_counter()
proc = subprocess.Popen(cmd)
code = proc.wait()
while True:  # reap orphans the command left behind (they were reparented to us)
    try:
        os.wait4(-1, 0)
    except ChildProcessError:
        break
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    json.dump(
        {
            "wall_s": wall,
            "cpu_s": ru.ru_utime + ru.ru_stime,
            "user_s": ru.ru_utime,
            "sys_s": ru.ru_stime,
            "peak_rss_bytes": ru.ru_maxrss * 1024,
            "exit": code,
        },
        f,
    )
sys.exit(code)
