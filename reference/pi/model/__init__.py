"""One compact, array-backed session model of an ordinary file: ids, offsets, types, parents, the
tree walk and tool exchanges, a few bytes per entry; anything it cannot prove goes to :mod:`reference.pi.exact`."""
