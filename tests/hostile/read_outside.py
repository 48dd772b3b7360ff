# attack: reads a secret file outside the work folder (its host path is the argument) and
# returns it. expect: sandbox_violation or exception, never the secret
def solve(x):
    with open(x) as f:
        return f.read()
