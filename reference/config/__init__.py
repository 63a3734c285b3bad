"""The configuration catalogue, its layering and the /context config commands."""
