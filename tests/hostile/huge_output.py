# attack: prints without end. expect: output_limit
def solve(x):
    line = "x" * 10000
    while True:
        print(line)
