# attack: overwrites the repository's original file (the host path of the tree, given as the
# argument) instead of the worker's copy. expect: sandbox_violation; the original unchanged
def solve(x):
    with open(x, "w") as f:
        f.write("pwned")
    return 1
