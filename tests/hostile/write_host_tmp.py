# attack: overwrites a sentinel file in the host's /tmp (its path is the argument) and drops
# a marker file in /tmp. expect: sandbox_violation or exception; host files unchanged
def solve(x):
    with open("/tmp/freshbench-hostile-marker", "w") as f:
        f.write("pwned")
    with open(x, "w") as f:
        f.write("pwned")
    return 1
