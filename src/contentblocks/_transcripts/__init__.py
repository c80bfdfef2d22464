"""Checking transcripts in bulk, from Python and from the ``contentblocks check`` command.

``_checker`` checks conversations (serially, in a process pool or a distributed engine); ``_files`` and ``_lines``
read what the command is given; ``_locate`` finds the line of a JSON path.
"""
