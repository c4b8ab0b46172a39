"""Interleaved timing of several builds of one program, for the benches that
compare builds (bench/autofdo-gawk.sh, bench/bolt-gawk.sh): every round runs
each build once, the order rotating and every other round reversed, so that a
change of load on a shared machine hits the builds alike."""
import os
import subprocess
import sys
import time


def run(cmd, tool):
    """(wall seconds, CPU seconds: user + sys from wait4) of one run of cmd."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        sys.exit(f"{tool}: {cmd[0]} failed (wait status {status})")
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime


def interleaved(bins, args, rounds, tool):
    """{build directory: [(wall, cpu) per round]} for BIN/gawk ARGS..."""
    times = {b: [] for b in bins}
    for i in range(rounds):
        order = bins[i % len(bins):] + bins[:i % len(bins)]
        if i % 2:
            order.reverse()
        for b in order:
            times[b].append(run([b + "/gawk"] + args, tool))
    return times
