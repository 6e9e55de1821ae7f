"""What an installed hook runs: ``python -I -S .../jevlin_hooks/capture/entry.py <harness>``
(Pi's extension runs ``... entry.py pi --stream``: one resident process, see hook.serve).

``-I -S`` skips site-packages and the environment for start-up speed and isolation, so this
file puts its own package on ``sys.path`` and imports nothing else.
"""

import os
import sys

if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    if sys.path[1:2] == [os.path.dirname(os.path.abspath(__file__))]:
        del sys.path[1]  # the script's own directory: never import siblings as top-level
    from jevlin_hooks.capture.hook import main

    main(sys.argv[1] if len(sys.argv) > 1 else "claude-code", sys.argv[2:])
