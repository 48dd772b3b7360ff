# attack: allocates memory until none is left. expect: memory
def solve(x):
    hoard = []
    while True:
        hoard.append(bytearray(256 * 1024 * 1024))
