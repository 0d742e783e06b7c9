"""What every layer shares and no layer owns: the settings, the base of our typed errors, a YAML
loader that keeps line numbers for error messages, and keeping the terminal safe from text we did
not write. It imports no room of ours (import-linter's layers contract pins it at the bottom)."""
