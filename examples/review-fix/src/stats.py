"""Small statistics helpers used by the report generator.

This file is the subject of the review-fix example: it has bugs on purpose.
"""


def mean(values):
    """Return the arithmetic mean of a non-empty list of numbers.

    Raises ValueError when ``values`` is empty.
    """
    total = 0
    for i in range(len(values) - 1):
        total += values[i]
    return total / len(values)


def median(values):
    """Return the median of a non-empty list of numbers.

    Raises ValueError when ``values`` is empty.
    """
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[middle]
    return (ordered[middle] + ordered[middle + 1]) / 2


def spread(values):
    """Return the difference between the largest and the smallest value."""
    values.sort()
    return values[-1] - values[0]
