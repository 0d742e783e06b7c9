"""The one base of our typed errors, importable from every room.

An `InputError` is a problem the user can act on: a file, a setting, a session or a request that
cannot be used as it is. Its message names the file and line or the field, and the fix; the
command line prints it as one line and exits 1 (never a traceback). Anything else reaching the
top of the program is a bug, reported as one."""


class InputError(Exception):
    """Bad input or state the user can fix; `str()` is the whole message."""
