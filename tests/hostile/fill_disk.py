# attack: fills the disk with files in its work folder. expect: resource_limit (file size or space)
import os


def solve(x):
    block = b"\0" * (1 << 20)
    i = 0
    while True:
        with open("filler-%d.bin" % i, "wb") as f:
            for _ in range(1024):
                f.write(block)
        i += 1
