"""on-tty.py CMD [ARG...]: run CMD with a new pseudo-terminal as its standard
input, output and error, copy what it writes there to standard output (line
ends as the terminal sends them, \r\n) and exit with its status. For the
checks of what ocrec prints on a terminal: script(1) under load sometimes
mixed its typescript header into the output."""
import os
import pty
import sys

pid, fd = pty.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
out = bytearray()
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:   # EIO: the command and its children closed the terminal
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))
