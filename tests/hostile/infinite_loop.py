# attack: an infinite loop burning CPU. expect: timeout
def solve(x):
    while True:
        x += 1
