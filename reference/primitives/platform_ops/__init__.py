"""Every OS-dependent primitive of the reference, each with a named branch per platform family.

One module per primitive family, imported from that module; :mod:`.family` is the one place
that picks the branch (:data:`CURRENT`, from ``sys.platform``), and each primitive takes
``platform=`` so a test can ask for another family (tests/primitives/test_platform_emulation*.py, with pyfakefs).

- :mod:`.paths`: canonical paths (§0.2), Node's ``path.resolve``, Pi's session folder and file names;
- :mod:`.durable`: fsync, directory fsync, the no-overwrite durable install, the durable replace (§6.5);
- :mod:`.lock`: the SQLite writer lock the kernel drops when its holder dies (§6.12);
- :mod:`.identity`: file identity, the change stamp and the stat keys of caches (D15);
- :mod:`.owner_only`: owner-only files and folders (D6), the mode-keeping replace of a settings file;
- :mod:`.steps`: every durable step (create, write, fsync, folder fsync, rename, link, unlink), and
  :mod:`.recorder` the typed record of each, kept while a ``recorder.recording()`` is open (issue 28);
- :mod:`.sync_sites`: the name of each place that asks for an fsync, kept in its record (``--drop-syncs``);
- :mod:`.reads`: opening without following links and reading at an offset (§3.5, H7).

docs/platforms.md has the table primitive x platform x implementation x test.
"""
