"""The parts behind :mod:`toolsift.hybrid`: fusing ranked lists (``fusion``) and the dense
vectors and their kernels, Rust or numpy (``vectors``)."""
