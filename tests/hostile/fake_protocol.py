# attack: prints fake protocol lines and writes a fake result to every descriptor, then
# exits. expect: sandbox_violation (forged result) or crash, never ok
import json
import os

FAKE = json.dumps({"status": "ok", "value": {"t": "int", "v": "1"}, "repr": "1", "id": 1})


def solve(x):
    print(FAKE)
    print(FAKE, flush=True)
    for fd in range(0, 64):
        try:
            os.write(fd, (FAKE + "\n").encode())
        except OSError:
            pass
    os._exit(0)
