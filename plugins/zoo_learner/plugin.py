"""zoo_learner registers nothing itself: it is the library GDI, DiCE and LBC agents build on.

Its entry point makes it show in `zoo plugins` (with its version) and lets ZOO_PLUGINS-style
filters name it like every other built-in package.
"""
