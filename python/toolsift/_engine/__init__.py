"""The engine boundary: the Protocol both engines implement (``protocol``) and the one place that
chooses between the compiled Rust index and its pure-Python twin (``select``). Only this package
imports ``toolsift._pyengine``."""
