"""The parts of the :class:`~toolsift.Tool` model: field checks and derived values."""
