# attack: opens 100000 descriptors. expect: resource_limit (RLIMIT_NOFILE)
def solve(x):
    files = []
    for _ in range(100000):
        files.append(open("/dev/null"))
    return 1
