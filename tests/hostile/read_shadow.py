# attack: reads /etc/shadow. expect: sandbox_violation
def solve(x):
    with open("/etc/shadow") as f:
        return f.read()
