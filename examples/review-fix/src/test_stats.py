"""Tests for stats.py (run with `python -m pytest src`)."""

import pytest

from stats import mean, median, spread


def test_mean_of_three():
    assert mean([1, 2, 3]) == 2


def test_median_odd():
    assert median([3, 1, 2]) == 2


def test_median_even():
    assert median([4, 1, 3, 2]) == 2.5


def test_mean_of_empty_list_raises():
    with pytest.raises(ValueError):
        mean([])


def test_spread_keeps_input_order():
    values = [3, 1, 2]
    assert spread(values) == 2
    assert values == [3, 1, 2]
