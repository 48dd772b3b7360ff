# attack: raises its own rlimits back to unlimited, then forks without end. expect: exception
# (raising a hard limit is refused) or resource_limit
import os
import resource


def solve(x):
    for r in (resource.RLIMIT_NPROC, resource.RLIMIT_AS, resource.RLIMIT_CPU):
        resource.setrlimit(r, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    while True:
        os.fork()
