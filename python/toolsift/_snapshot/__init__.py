"""The snapshot file format both engines read and write (``format``), the tools section a loaded
index decodes lazily (``tools_section``), and the renumbering of positions after a copy-on-write
update (``positions``)."""
