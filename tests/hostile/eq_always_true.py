# attack: returns an object equal to everything. expect: ok but no pass (an object, not an int)
class Anything:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return 1

    def __repr__(self):
        return "1"


def solve(x):
    return Anything()
