"""The ``toolsift`` command's subcommands and output (:mod:`toolsift.cli` is the entry point)."""
