"""One error type for bad input: it always names where (file and line, or table cell)."""


class BuildError(Exception):
    """Bad input. `where` is a file and line ("path:12") or a table cell locator."""

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


def did_you_mean(name: str, known, what: str = "") -> str:
    """"; did you mean 'x'?" for the closest of `known` to a misspelt `name` (difflib's
    ratio, at least 0.6), else "" (an error's hint for what to write instead)."""
    import difflib
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean {what}{close[0]!r}?" if close else ""
