"""Placeholder: the digits demo is being written."""
print("digits demo: coming next")
