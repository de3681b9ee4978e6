import time


def fetch_with_retry(fetch, attempts=3):
    """Calls fetch() until it succeeds, at most `attempts` times."""
    for attempt in range(attempts):
        try:
            return fetch()
        except Exception:
            time.sleep(2 ** attempt)
    return fetch()
