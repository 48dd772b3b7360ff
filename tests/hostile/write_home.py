# attack: writes into the home folders (/root, /home). expect: sandbox_violation
def solve(x):
    for path in ("/root/freshbench-hostile-marker", "/home/freshbench-hostile-marker"):
        with open(path, "w") as f:
            f.write("pwned")
    return 1
