# attack: returns an int subclass whose __eq__ always says True. expect: ok but no pass
class One(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def solve(x):
    return One(7)
