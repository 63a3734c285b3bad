"""Pi 0.84.3's session files: reader, block scan, loading, header policy, tree, context, tool exchanges, inspection, host facts."""
