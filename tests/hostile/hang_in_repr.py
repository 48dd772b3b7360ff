# attack: returns an object whose __repr__ never ends, to hang the harness after the call.
# expect: timeout
class Sticky:
    def __repr__(self):
        while True:
            pass


def solve(x):
    return Sticky()
