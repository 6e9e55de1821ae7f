"""jevlin-hooks: the client side of Jevlin's trajectory observability.

Kept empty on purpose: the hook path imports submodules directly and pays for nothing else.
"""

__version__ = "0.1.0"
