# attack: unbounded recursion. expect: exception (RecursionError)
def solve(x):
    return solve(x + 1)
