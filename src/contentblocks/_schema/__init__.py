"""The JSON Schema of the wire format, for validators in other languages and tool descriptions.

``_document`` builds it from the wire plan; ``_parts`` holds the definitions of the strings and JSON values it names.
"""
