"""One error type for bad input: it always names where (file and line, or table cell)."""


class BuildError(Exception):
    """Bad input. `where` is a file and line ("path:12") or a table cell locator."""

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message
